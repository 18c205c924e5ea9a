/*
 * t_group.c - corrupted COMDAT groups (SHT_GROUP) are refused with a precise error.
 *
 * usage: t_group GROUP.o GROUP2.o   (tests/robustness/fixtures/group.c, the second built with
 *        -DCALLER=grp_call2: the same group, a differently named caller)
 * Each case patches the .group section of a copy: member index out of range, member
 * index 0, the group naming itself, a member that is the symbol table or a string table,
 * a section in two groups, size not a multiple of 4, sh_link not the symbol table,
 * signature symbol (sh_info) out of range, unknown flag bits. objrt follows the members of
 * COMDAT groups to drop duplicates (comdat.c), so parse.c must refuse each, naming the
 * object, the group and what is wrong, and leave nothing behind. Controls: the unpatched
 * object loads and grp_call() returns 42; GROUP.o + GROUP2.o load together as one unit,
 * one copy of the group dropped (objrt_stats counts it).
 */
#include "t_common.h"

static unsigned char *g_img, *g_img2;
static size_t g_size, g_size2;

typedef void (*gpatch)(unsigned char *img, Elf64_Shdr *grp, uint32_t *words);

static void g_member_range(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)g; w[1] = t_ehdr(img)->e_shnum + 5; }
static void g_member_zero(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)img; (void)g; w[1] = 0; }
static void g_member_self(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { w[1] = (uint32_t)t_find_type(img, SHT_GROUP); (void)g; }
static void g_member_symtab(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { w[1] = (uint32_t)t_find_type(img, SHT_SYMTAB); (void)g; }
static void g_member_strtab(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { w[1] = (uint32_t)t_find_type(img, SHT_STRTAB); (void)g; }
/* the group lists its member twice: the second listing puts a section in two groups */
static void g_member_twice(unsigned char *img, Elf64_Shdr *g, uint32_t *w)
{
    (void)img;
    if (g->sh_size >= 12) w[2] = w[1];
}
static void g_size_odd(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)img; (void)w; g->sh_size = 6; }
static void g_link(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)w; g->sh_link = (Elf64_Word)t_find_section(img, ".text"); }
static void g_info(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)img; (void)w; g->sh_info = 0x7fffffff; }
static void g_flags(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)img; (void)g; w[0] = 0x80001; }

static const struct { const char *name; gpatch patch; const char *says; } cases[] = {
    { "member-index-out-of-range", g_member_range, "out of range" },
    { "member-index-0", g_member_zero, "is section 0, out of range" },
    { "member-is-the-group", g_member_self, ", a group" },
    { "member-is-the-symtab", g_member_symtab, ", a symbol table" },
    { "member-is-a-string-table", g_member_strtab, ", a string table" },
    { "section-in-two-groups", g_member_twice, "is a member of groups" },
    { "size-not-multiple-of-4", g_size_odd, "size 6 is not" },
    { "sh_link-not-symtab", g_link, "not the symbol table" },
    { "signature-symbol-out-of-range", g_info, "signature symbol 2147483647" },
    { "unknown-flags", g_flags, "unknown flags 0x80001" },
};

struct job { const char *input; gpatch patch; const char *says; };

/* A corrupted group is refused: the error names the input and says what is wrong. */
static int load_patched(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    struct job *j = arg;
    unsigned char *img = t_copy(g_img, g_size);
    int gi = t_find_type(img, SHT_GROUP);
    if (gi < 0) { fprintf(stderr, "fixture has no SHT_GROUP section\n"); exit(2); }
    Elf64_Shdr *g = t_shdr(img, (unsigned)gi);
    j->patch(img, g, (uint32_t *)(img + g->sh_offset));
    objrt_unit *u = t_load_mem(ctx, j->input, img, g_size);
    free(img);
    const char *needles[] = { j->says, NULL };
    return t_refused(ctx, u, "a corrupted group was accepted", j->input, needles, why, whylen);
}

/* Refused three times; nothing may be left behind (t_fails_cleanly's accounting). */
static int run_case(void *arg, char *why, size_t whylen)
{
    return t_fails_cleanly_new(load_patched, arg, NULL, why, whylen);
}

static int run_control(void *arg, char *why, size_t whylen)
{
    objrt_input in[2] = { { "group.o", g_img, g_size }, { "group2.o", g_img2, g_size2 } };
    if (!arg) return t_mem_call(in, 1, "grp_call", 42, why, whylen);
    /* two copies: one COMDAT group kept, both callers work */
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load_memory(ctx, in, 2);
    int (*call2)(void) = u ? (int (*)(void))objrt_unit_sym(u, "grp_call2") : NULL;
    int v2 = call2 ? call2() : -1;
    objrt_stats st = { 0 };
    if (u) objrt_unit_stats(u, &st);
    if (!t_call_unload(ctx, u, "grp_call", 42, why, whylen)) return 0;
    if (v2 != 42) { snprintf(why, whylen, "grp_call2() = %d, expected 42", v2); return 0; }
    if (st.comdat_groups_dropped != 1 || st.comdat_bytes_dropped == 0) {
        snprintf(why, whylen, "stats: %zu groups / %zu bytes dropped, expected 1 group",
                 st.comdat_groups_dropped, st.comdat_bytes_dropped);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 3, "GROUP.o GROUP2.o");
    g_img = t_read_file(argv[1], &g_size);
    g_img2 = t_read_file(argv[2], &g_size2);
    t_case("group-control-unpatched-loads", run_control, NULL);
    t_case("group-control-two-copies-load", run_control, (void *)1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct job j = { NULL, cases[i].patch, cases[i].says };
        char input[96], name[128];
        snprintf(input, sizeof input, "group-%s.o", cases[i].name);
        snprintf(name, sizeof name, "group-%s-refused", cases[i].name);
        j.input = input;
        t_case(name, run_case, &j);
    }
    free(g_img);
    free(g_img2);
    return t_exit_status();
}

/*
 * t_group.c - corrupted COMDAT groups (SHT_GROUP) are ignored: the object loads and works.
 *
 * usage: t_group GROUP.o GROUP2.o   (tests/unit/fixtures/group.c, the second built with
 *        -DCALLER=grp_call2: the same group, a differently named caller)
 * Each case patches the .group section of a copy: member index out of range, member
 * index 0, the group naming itself, size not a multiple of 4, sh_link not the symbol
 * table, signature symbol (sh_info) out of range, unknown flag bits. objrt does not
 * interpret groups (it never follows their member indices), so each must load and work
 * exactly like the unpatched object, and leave nothing behind. Controls: the unpatched object
 * loads and grp_call() returns 42; GROUP.o + GROUP2.o load together as one unit.
 */
#include "t_common.h"

static unsigned char *g_img, *g_img2;
static size_t g_size, g_size2;

typedef void (*gpatch)(unsigned char *img, Elf64_Shdr *grp, uint32_t *words);

static void g_member_range(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)g; w[1] = t_ehdr(img)->e_shnum + 5; }
static void g_member_zero(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)img; (void)g; w[1] = 0; }
static void g_member_self(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { w[1] = (uint32_t)t_find_type(img, SHT_GROUP); (void)g; }
static void g_size_odd(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)img; (void)w; g->sh_size = 6; }
static void g_link(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)w; g->sh_link = (Elf64_Word)t_find_section(img, ".text"); }
static void g_info(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)img; (void)w; g->sh_info = 0x7fffffff; }
static void g_flags(unsigned char *img, Elf64_Shdr *g, uint32_t *w) { (void)img; (void)g; w[0] = 0x80000; }

static const struct { const char *name; gpatch patch; } cases[] = {
    { "member-index-out-of-range", g_member_range },
    { "member-index-0", g_member_zero },
    { "member-is-the-group", g_member_self },
    { "size-not-multiple-of-4", g_size_odd },
    { "sh_link-not-symtab", g_link },
    { "signature-symbol-out-of-range", g_info },
    { "unknown-flags", g_flags },
};

struct job { const char *input; gpatch patch; };

/* objrt does not interpret SHT_GROUP (it never follows a group's member indices), so a
 * corrupted group must change nothing: the object loads and grp_call() returns 42. */
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
    if (!u) { snprintf(why, whylen, "refused: %s", objrt_error(ctx)); return 0; }
    return t_unit_call(u, "grp_call", 42, why, whylen);
}

/* Load and unload twice more; nothing may be left behind (t_fails_cleanly's accounting;
 * here the "expected outcome" it checks is a working load). */
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
    if (!t_call_unload(ctx, u, "grp_call", 42, why, whylen)) return 0;
    if (v2 != 42) { snprintf(why, whylen, "grp_call2() = %d, expected 42", v2); return 0; }
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
        struct job j = { NULL, cases[i].patch };
        char input[96], name[128];
        snprintf(input, sizeof input, "group-%s.o", cases[i].name);
        snprintf(name, sizeof name, "group-%s-ignored", cases[i].name);
        j.input = input;
        t_case(name, run_case, &j);
    }
    free(g_img);
    free(g_img2);
    return t_exit_status();
}

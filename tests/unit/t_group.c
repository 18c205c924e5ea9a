/*
 * t_group.c - corrupted COMDAT groups (SHT_GROUP) are refused cleanly.
 *
 * usage: t_group GROUP.o GROUP2.o   (tests/unit/fixtures/group.c, the second built with
 *        -DCALLER=grp_call2: the same group, a differently named caller)
 * Each case patches the .group section of a copy: member index out of range, member
 * index 0, the group naming itself, size not a multiple of 4, sh_link not the symbol
 * table, signature symbol (sh_info) out of range, unknown flag bits. objrt does not
 * interpret groups today, so each must either fail with an error naming the input, or
 * load and work; never crash or leave anything behind. Controls: the unpatched object
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

static int load_patched(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    struct job *j = arg;
    unsigned char *img = malloc(g_size);
    memcpy(img, g_img, g_size);
    int gi = t_find_type(img, SHT_GROUP);
    if (gi < 0) { fprintf(stderr, "fixture has no SHT_GROUP section\n"); exit(2); }
    Elf64_Shdr *g = t_shdr(img, (unsigned)gi);
    j->patch(img, g, (uint32_t *)(img + g->sh_offset));
    objrt_unit *u = t_load_mem(ctx, j->input, img, g_size);
    free(img);
    if (u) {
        int (*call)(void) = (int (*)(void))objrt_unit_sym(u, "grp_call");
        int v = call ? call() : -1;
        objrt_unload(u);
        if (v == 42) return 1;
        snprintf(why, whylen, "loaded with a corrupted group, and grp_call() returned %d", v);
        return 0;
    }
    return t_check_error(ctx, j->input, NULL, why, whylen);
}

static int run_case(void *arg, char *why, size_t whylen)
{
    objrt_ctx *ctx = objrt_new();
    int ok = t_fails_cleanly(ctx, load_patched, arg, why, whylen);
    fprintf(stderr, "%s -> %s\n", ((struct job *)arg)->input, objrt_error(ctx));   /* for a reader of the log */
    objrt_free(ctx);
    return ok;
}

static int run_control(void *arg, char *why, size_t whylen)
{
    int copies = arg ? 2 : 1;
    objrt_ctx *ctx = objrt_new();
    objrt_input in[2] = { { "group.o", g_img, g_size }, { "group2.o", g_img2, g_size2 } };
    objrt_unit *u = objrt_load_memory(ctx, in, (size_t)copies);
    if (!u) { snprintf(why, whylen, "%d copies did not load: %s", copies, objrt_error(ctx)); return 0; }
    int (*call)(void) = (int (*)(void))objrt_unit_sym(u, "grp_call");
    int (*call2)(void) = copies == 2 ? (int (*)(void))objrt_unit_sym(u, "grp_call2") : call;
    int v = call ? call() : -1, v2 = call2 ? call2() : -1;
    objrt_unload(u);
    objrt_free(ctx);
    if (v != 42 || v2 != 42) { snprintf(why, whylen, "grp_call() = %d, grp_call2() = %d, expected 42", v, v2); return 0; }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: %s GROUP.o GROUP2.o\n", argv[0]); return 2; }
    g_img = t_read_file(argv[1], &g_size);
    g_img2 = t_read_file(argv[2], &g_size2);
    t_case("group-control-unpatched-loads", run_control, NULL);
    t_case("group-control-two-copies-load", run_control, (void *)1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct job j = { NULL, cases[i].patch };
        char input[96], name[128];
        snprintf(input, sizeof input, "group-%s.o", cases[i].name);
        snprintf(name, sizeof name, "group-%s", cases[i].name);
        j.input = input;
        t_case(name, run_case, &j);
    }
    free(g_img);
    free(g_img2);
    return t_exit_status();
}

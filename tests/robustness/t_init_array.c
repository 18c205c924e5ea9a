/*
 * t_init_array.c - a malformed .init_array is refused or handled, never read out of
 * bounds or misaligned (the fuzzer found a misaligned read of a 1-aligned .init_array:
 * tests/fuzz/regressions/init-array-align-1-misaligned.elf).
 *
 * usage: t_init_array CTOR.o
 *  - control: CTOR.o loads and its constructor ran once;
 *  - .init_array of 7 bytes (not a whole pointer): refused, the error names the input;
 *  - .init_array aligned to 1 (its pointer still at an aligned offset): loads and the
 *    constructor runs once; in the asan config UBSan aborts the case on a misaligned read.
 */
#include "t_common.h"

static unsigned char *g_img;
static size_t g_size;

struct job { const char *input; Elf64_Xword size_delta; Elf64_Xword align; };

static unsigned char *patched(const struct job *j)
{
    unsigned char *img = malloc(g_size);
    memcpy(img, g_img, g_size);
    int s = t_find_section(img, ".init_array");
    if (s < 0) { fprintf(stderr, "fixture has no .init_array\n"); exit(2); }
    Elf64_Shdr *sh = t_shdr(img, (unsigned)s);
    sh->sh_size -= j->size_delta;
    if (j->align) sh->sh_addralign = j->align;
    return img;
}

static int load_bad(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    const struct job *j = arg;
    unsigned char *img = patched(j);
    objrt_unit *u = t_load_mem(ctx, j->input, img, g_size);
    free(img);
    return t_refused(ctx, u, "loaded a 7-byte .init_array", j->input, NULL, why, whylen);
}

static int run_refused(void *arg, char *why, size_t whylen)
{
    return t_fails_cleanly_new(load_bad, arg, NULL, why, whylen);
}

/* Loads, and the constructor ran exactly once. */
static int run_loads(void *arg, char *why, size_t whylen)
{
    const struct job *j = arg;
    unsigned char *img = patched(j);
    objrt_input in = { j->input, img, g_size };
    int ok = t_mem_call(&in, 1, "ctor_count", 1, why, whylen);
    free(img);
    return ok;
}

static int run_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    struct job none = { "ctor.o", 0, 0 };
    return run_loads(&none, why, whylen);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 2, "CTOR.o");
    g_img = t_read_file(argv[1], &g_size);
    struct job short7 = { "init-array-7-bytes.o", 1, 0 };
    struct job align1 = { "init-array-align-1.o", 0, 1 };
    t_case("init-array-control-constructor-runs-once", run_control, NULL);
    t_case("init-array-7-bytes-refused", run_refused, &short7);
    t_case("init-array-align-1-loads-constructor-runs-once", run_loads, &align1);
    free(g_img);
    return t_exit_status();
}

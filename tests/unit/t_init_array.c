/*
 * t_init_array.c - a malformed .init_array is refused or handled, never read out of
 * bounds or misaligned (the fuzzer found a misaligned read of a 1-aligned .init_array:
 * tests/fuzz/regressions/init-array-align-1-misaligned.elf).
 *
 * usage: t_init_array CTOR.o
 *  - control: CTOR.o loads and its constructor ran once;
 *  - .init_array of 7 bytes (not a whole pointer): refused, the error names the input;
 *  - .init_array aligned to 1: refused naming the input, or loaded with the constructor
 *    run once; in the asan config UBSan aborts the case on a misaligned read.
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
    if (u) { snprintf(why, whylen, "loaded a 7-byte .init_array"); objrt_unload(u); return 0; }
    return t_check_error(ctx, j->input, NULL, why, whylen);
}

static int run_refused(void *arg, char *why, size_t whylen)
{
    objrt_ctx *ctx = objrt_new();
    int ok = t_fails_cleanly(ctx, load_bad, arg, why, whylen);
    objrt_free(ctx);
    return ok;
}

/* Loads and runs the constructor once, or is refused cleanly. */
static int run_either(void *arg, char *why, size_t whylen)
{
    const struct job *j = arg;
    unsigned char *img = patched(j);
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = t_load_mem(ctx, j->input, img, g_size);
    free(img);
    if (!u) {
        int ok = t_check_error(ctx, j->input, NULL, why, whylen);
        objrt_free(ctx);
        return ok;
    }
    int (*count)(void) = (int (*)(void))objrt_unit_sym(u, "ctor_count");
    int n = count ? count() : -1;
    objrt_unload(u);
    objrt_free(ctx);
    if (n != 1) { snprintf(why, whylen, "loaded, but the constructor ran %d times", n); return 0; }
    return 1;
}

static int run_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    struct job none = { "ctor.o", 0, 0 };
    return run_either(&none, why, whylen);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s CTOR.o\n", argv[0]); return 2; }
    g_img = t_read_file(argv[1], &g_size);
    struct job short7 = { "init-array-7-bytes.o", 1, 0 };
    struct job align1 = { "init-array-align-1.o", 0, 1 };
    t_case("init-array-control-constructor-runs-once", run_control, NULL);
    t_case("init-array-7-bytes-refused", run_refused, &short7);
    t_case("init-array-align-1-handled", run_either, &align1);
    free(g_img);
    return t_exit_status();
}

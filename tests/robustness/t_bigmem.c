/*
 * t_bigmem.c - sizes and alignments taken from the input must not turn into committed
 * memory or unbounded time (found by the fuzzer: .bss with sh_addralign 2^34 made a load
 * take 105 s and 16 GB of RSS).
 *
 * usage: t_bigmem BIGBSS.o BASIC.o
 *  - a 1 GiB .bss loads with VmRSS growing < 64 MiB (demand-zero, not prefaulted), in
 *    bounded time, and reads as zero. Control: touching 128 MiB of it is seen by the check.
 *  - BASIC.o with .bss aligned to 16 GiB: refused with an error naming the input; with
 *    .data aligned to 1 GiB (within objrt's limit): loaded with the symbol aligned. Either
 *    way the padding is not committed: < 64 MiB RSS growth and < 5 s.
 * Each case runs in a child with an alarm, so a runaway load is a FAIL, not a hang.
 */
#include <time.h>
#include "t_common.h"

#define LIMIT_KIB (64 * 1024)

static const char *g_bigbss;
static unsigned char *g_basic;
static size_t g_basic_size;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_bss(void *arg, char *why, size_t whylen)
{
    int touch = arg != NULL;          /* control: touch 128 MiB on purpose */
    alarm(30);
    objrt_ctx *ctx = objrt_new();
    long rss0 = t_rss_kib();
    double t0 = now();
    const char *paths[1] = { g_bigbss };
    objrt_unit *u = objrt_load(ctx, paths, 1);
    double dt = now() - t0;
    if (!u) { snprintf(why, whylen, "1 GiB .bss did not load: %s", objrt_error(ctx)); return 0; }
    int (*get)(unsigned long) = (int (*)(unsigned long))objrt_unit_sym(u, "bigbss_get");
    void (*fill)(unsigned long) = (void (*)(unsigned long))objrt_unit_sym(u, "bigbss_fill");
    if (!get || !fill) { snprintf(why, whylen, "symbols missing"); return 0; }
    if (get(12345) != 0 || get((1UL << 30) - 1) != 0) { snprintf(why, whylen, ".bss not zero"); return 0; }
    if (touch) fill(128UL << 20);
    long grown = t_rss_kib() - rss0;
    objrt_unload(u);
    objrt_free(ctx);
    if (touch) {
        if (grown <= LIMIT_KIB) { snprintf(why, whylen, "touched 128 MiB but RSS grew only %ld KiB", grown); return 0; }
        return 1;
    }
    if (grown > LIMIT_KIB) {
        snprintf(why, whylen, "loading a 1 GiB .bss grew RSS by %ld MiB in %.2f s (prefaulted?)", grown >> 10, dt);
        return 0;
    }
    if (dt > 2.0) { snprintf(why, whylen, "loading a 1 GiB .bss took %.2f s", dt); return 0; }
    return 1;
}

struct align_case { const char *section, *symbol, *input; unsigned shift; int loads; };

/* A section of BASIC.o aligned to 2^shift: loaded with the symbol aligned (`loads`), or
 * refused naming the input (above objrt's 1 GiB limit); either way the alignment padding
 * is not committed memory. */
static int run_align(void *arg, char *why, size_t whylen)
{
    const struct align_case *c = arg;
    alarm(8);
    unsigned char *img = t_copy(g_basic, g_basic_size);
    int sec = t_find_section(img, c->section);
    if (sec < 0) { snprintf(why, whylen, "fixture has no %s", c->section); return 0; }
    t_shdr(img, (unsigned)sec)->sh_addralign = (Elf64_Xword)1 << c->shift;
    objrt_ctx *ctx = objrt_new();
    long rss0 = t_rss_kib();
    double t0 = now();
    objrt_unit *u = t_load_mem(ctx, c->input, img, g_basic_size);
    double dt = now() - t0;
    long grown = t_rss_kib() - rss0;
    free(img);
    if (grown > LIMIT_KIB || dt > 5.0) {
        snprintf(why, whylen, "%s aligned to 2^%u cost %ld MiB of RSS and %.2f s (%s)", c->section, c->shift,
                 grown >> 10, dt, u ? "loaded" : objrt_error(ctx));
        return 0;
    }
    if (!u && c->loads) { snprintf(why, whylen, "refused: %s", objrt_error(ctx)); return 0; }
    if (!u) return t_check_error(ctx, c->input, NULL, why, whylen);
    if (!c->loads) { snprintf(why, whylen, "%s aligned to 2^%u loaded", c->section, c->shift); objrt_unload(u); return 0; }
    uintptr_t a = (uintptr_t)objrt_unit_sym(u, c->symbol);
    objrt_unload(u);
    if ((a & (((uintptr_t)1 << c->shift) - 1)) == 0)
        return 1;
    snprintf(why, whylen, "loaded but %s %#lx is not aligned to 2^%u", c->symbol, (unsigned long)a, c->shift);
    return 0;
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 3, "BIGBSS.o BASIC.o");
    g_bigbss = argv[1];
    g_basic = t_read_file(argv[2], &g_basic_size);
    t_harness_case("bigmem-control-rss-check-sees-touched-bss", run_bss, (void *)1);
    t_case("bigmem-1gib-bss-not-committed", run_bss, NULL);
    static const struct align_case bss16g = { ".bss", "basic_bss", "bss-align-16g.o", 34, 0 };
    static const struct align_case data1g = { ".data", "basic_data", "data-align-1g.o", 30, 1 };
    t_case("bigmem-bss-16gib-alignment-refused-bounded", run_align, (void *)&bss16g);
    t_case("bigmem-data-1gib-alignment-padding-not-committed", run_align, (void *)&data1g);
    free(g_basic);
    return t_exit_status();
}

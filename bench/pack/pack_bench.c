/*
 * pack_bench.c - one measurement of small units sharing pages, in a fresh process:
 *     pack_bench DIR N packed|unpacked PAGE_SIZE
 * loads N units (DIR/u<i % 20>.o, tests/pack/make-units.sh; units 0..9 roots, unit i >= 10
 * bound to root i % 10, as tests/pack/t_pack.c) into one context, calls every unit's f
 * once (checked against unit.c's formula), unloads them newest first, and prints one line:
 *     mode page n mapped_per_unit content_per_unit load_us_per_unit unload_us_per_unit
 * mapped: the arena's pages (objrt_memory_usage) plus the own reservations of units that
 * were not packed (objrt_stats.reserved_bytes), with all N loaded. Exit 1 on any error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "objrt.h"

#define VARIANTS 20
#define ROOTS 10

static int ntab(int v) { return 4 + (v * 37) % 120; }
static int nstep(int v) { return 1 + (v * 5) % 24; }
static int tabv(int v, int k) { return (k * 7 + v) % 101; }

static int zero_fn(int x) { (void)x; return 0; }
static int zero;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* f of unit i at x with g = i + 1 (unit.c's formula; roots' prev and prev_g are 0). */
static int expect_f(int i, int x)
{
    int v = i % VARIANTS, r = i < ROOTS ? -1 : i % ROOTS;
    unsigned u = (unsigned)x;
    int acc = (i + 1) + (r >= 0 ? r + 1 : 0) + tabv(v, (int)(u % (unsigned)ntab(v))) * (v + 1);
    for (int s = 0; s < nstep(v); s++)
        acc += tabv(v, (int)((u + (unsigned)s) % (unsigned)ntab(v))) ^ s;
    return acc + (r >= 0 ? expect_f(r, x) : 0);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s DIR N packed|unpacked PAGE_SIZE\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[2]), pack = strcmp(argv[3], "packed") == 0;
    unsigned char *obj[VARIANTS];
    size_t size[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/u%d.o", argv[1], v);
        if (!(obj[v] = slurp(path, &size[v]))) {
            fprintf(stderr, "pack_bench: cannot read %s\n", path);
            return 1;
        }
    }
    objrt_ctx *ctx = objrt_new();
    objrt_options o = { .page_size = (size_t)atol(argv[4]), .pack_small = pack };
    objrt_unit **u = calloc((size_t)n, sizeof *u);
    int (**f)(int) = calloc((size_t)n, sizeof *f);
    if (!ctx || !u || !f || objrt_set_options(ctx, &o))
        return 1;
    double load = 0;
    for (int i = 0; i < n; i++) {
        int r = i < ROOTS ? -1 : i % ROOTS;
        objrt_define(ctx, "prev", r < 0 ? (void *)zero_fn : (void *)f[r]);
        objrt_define(ctx, "prev_g", r < 0 ? (void *)&zero : objrt_unit_sym(u[r], "g"));
        objrt_input in = { "u.o", obj[i % VARIANTS], size[i % VARIANTS] };
        double t0 = now_us();
        u[i] = objrt_load_memory(ctx, &in, 1);
        load += now_us() - t0;
        int *g = u[i] ? objrt_unit_sym(u[i], "g") : NULL;
        f[i] = u[i] ? (int (*)(int))objrt_unit_sym(u[i], "f") : NULL;
        if (!g || !f[i]) {
            fprintf(stderr, "pack_bench: unit %d: %s\n", i, objrt_error(ctx));
            return 1;
        }
        *g = i + 1;
    }
    size_t content = 0, own = 0, packed = 0;
    for (int i = 0; i < n; i++) {
        objrt_stats s;
        objrt_unit_stats(u[i], &s);
        content += s.used_bytes;
        packed += s.packed;
        own += s.packed ? 0 : s.reserved_bytes;
        if (f[i](7) != expect_f(i, 7)) {
            fprintf(stderr, "pack_bench: unit %d computes %d, expected %d\n", i, f[i](7),
                    expect_f(i, 7));
            return 1;
        }
    }
    if (packed != (pack ? (size_t)n : 0)) {
        fprintf(stderr, "pack_bench: %zu of %d units packed\n", packed, n);
        return 1;
    }
    objrt_memory m;
    objrt_memory_usage(ctx, &m);
    double unload = 0;
    for (int i = n - 1; i >= 0; i--) {
        double t0 = now_us();
        if (objrt_unload(u[i])) {
            fprintf(stderr, "pack_bench: unload %d: %s\n", i, objrt_error(ctx));
            return 1;
        }
        unload += now_us() - t0;
    }
    printf("%s %s %d %.1f %.1f %.2f %.2f\n", argv[3], argv[4], n,
           (double)(m.arena_page_bytes + own) / n, (double)content / n, load / n, unload / n);
    objrt_free(ctx);
    for (int v = 0; v < VARIANTS; v++)
        free(obj[v]);
    free(u);
    free(f);
    return 0;
}

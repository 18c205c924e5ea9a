/*
 * scale_bench.c - load and unload cost of a unit against the number of units already
 * loaded in its context:
 *     scale_bench FILLER.o PROBE.o N[,N...] [REPS] [packed] [control]
 * For each N (ascending), a new context is filled with N copies of FILLER.o, then
 *   - probe: PROBE.o (a unit with host references) is loaded and unloaded REPS times;
 *   - churn: REPS times, a filler unit picked at random (fixed seed) is unloaded and a new
 *     copy loaded in its place, as a long-lived JIT service replaces its functions;
 *   - free: objrt_free() of the context with its N units still loaded.
 * `packed`: the context packs small units (objrt_options.pack_small), as Python and numba
 * do. `control`: every timed probe and churn operation also walks all N units
 * (objrt_unit_stats of each), a cost linear in N planted for tests/suites/37-scale.sh's
 * negative control. Prints one line per N, times in microseconds of the thread's CPU time
 * (user and system: a machine shared with other jobs stretches wall time, and a long span
 * such as the free of 20,000 units far more often than a short one):
 *     n probe_load probe_unload churn_load churn_unload fill_load_per_unit free_per_unit
 * (medians over REPS, default 20; fill and free: the mean per unit). Exit 1 on any error.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "objrt.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static objrt_unit **units;          /* the fillers of the context being measured */
static long nunits;
static bool control;

/* The planted linear cost of the control: one look at every unit. */
static void walk_all(void)
{
    objrt_stats s;
    for (long i = 0; control && i < nunits; i++)
        objrt_unit_stats(units[i], &s);
}

static unsigned long long rng = 88172645463325252ull;
static long pick(long n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (long)(rng % (unsigned long long)n);
}

/* One N: fills a new context, measures, frees it; prints the line. 0, or 1 on error. */
static int measure(long n, const objrt_input *fill, const objrt_input *probe, int reps,
                   bool packed, double *a, double *b)
{
    objrt_ctx *ctx = objrt_new();
    objrt_options o = { .pack_small = packed };
    if (!ctx || objrt_set_options(ctx, &o) || !(units = calloc((size_t)n, sizeof *units)))
        return 1;
    nunits = n;
    double t0 = now_us();
    for (long i = 0; i < n; i++)
        if (!(units[i] = objrt_load_memory(ctx, fill, 1))) {
            fprintf(stderr, "scale_bench: filler %ld: %s\n", i, objrt_error(ctx));
            return 1;
        }
    double fill_us = (now_us() - t0) / (double)n;
    double pl, pu, cl, cu;
    for (int r = 0; r < reps; r++) {
        t0 = now_us();
        objrt_unit *u = objrt_load_memory(ctx, probe, 1);
        walk_all();
        double t1 = now_us();
        if (!u || objrt_unload(u)) {
            fprintf(stderr, "scale_bench: probe at %ld: %s\n", n, objrt_error(ctx));
            return 1;
        }
        walk_all();
        a[r] = t1 - t0;
        b[r] = now_us() - t1;
    }
    pl = median(a, reps);
    pu = median(b, reps);
    for (int r = 0; r < reps; r++) {
        long i = pick(n);
        t0 = now_us();
        if (objrt_unload(units[i])) {
            fprintf(stderr, "scale_bench: unload filler %ld at %ld: %s\n", i, n, objrt_error(ctx));
            return 1;
        }
        walk_all();
        double t1 = now_us();
        units[i] = objrt_load_memory(ctx, fill, 1);
        if (!units[i]) {
            fprintf(stderr, "scale_bench: reload filler %ld at %ld: %s\n", i, n, objrt_error(ctx));
            return 1;
        }
        walk_all();
        b[r] = t1 - t0;
        a[r] = now_us() - t1;
    }
    cl = median(a, reps);
    cu = median(b, reps);
    t0 = now_us();
    objrt_free(ctx);
    double free_us = (now_us() - t0) / (double)n;
    free(units);
    units = NULL;
    printf("%ld %.1f %.1f %.1f %.1f %.2f %.2f\n", n, pl, pu, cl, cu, fill_us, free_us);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: scale_bench FILLER.o PROBE.o N[,N...] [REPS] [packed] [control]\n");
        return 2;
    }
    objrt_input fill = { argv[1], NULL, 0 }, probe = { argv[2], NULL, 0 };
    if (!(fill.data = slurp(argv[1], &fill.size)) || !(probe.data = slurp(argv[2], &probe.size))) {
        fprintf(stderr, "scale_bench: cannot read the objects\n");
        return 1;
    }
    int reps = argc > 4 ? atoi(argv[4]) : 20;
    if (reps < 1)
        reps = 1;
    bool packed = false;
    for (int i = 5; i < argc; i++) {
        if (strcmp(argv[i], "packed") == 0)
            packed = true;
        else if (strcmp(argv[i], "control") == 0)
            control = true;
        else {
            fprintf(stderr, "scale_bench: unknown mode '%s'\n", argv[i]);
            return 2;
        }
    }
    double *a = malloc(sizeof *a * (size_t)reps), *b = malloc(sizeof *b * (size_t)reps);
    if (!a || !b)
        return 1;
    for (char *s = argv[3]; *s;) {
        char *end;
        long n = strtol(s, &end, 10);
        if (end == s || n < 1) {
            fprintf(stderr, "scale_bench: bad unit count '%s'\n", s);
            return 2;
        }
        if (measure(n, &fill, &probe, reps, packed, a, b))
            return 1;
        s = *end == ',' ? end + 1 : end;
    }
    free(a);
    free(b);
    free((void *)fill.data);
    free((void *)probe.data);
    return 0;
}

/*
 * scale_bench.c - load and unload cost of one unit against the number of units already
 * loaded in its context:
 *     scale_bench FILLER.o PROBE.o N[,N...] [REPS]
 * For each N (ascending) the context is filled with copies of FILLER.o up to N units, then
 * PROBE.o (a unit with host references) is loaded and unloaded REPS times (default 20);
 * prints one line per N:  n load_us unload_us  (medians). Exit 1 on any error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "objrt.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
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

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: scale_bench FILLER.o PROBE.o N[,N...] [REPS]\n");
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
    objrt_ctx *ctx = objrt_new();
    double *ld = malloc(sizeof *ld * (size_t)reps), *ul = malloc(sizeof *ul * (size_t)reps);
    if (!ctx || !ld || !ul)
        return 1;
    long have = 0;
    for (char *s = argv[3]; *s;) {
        char *end;
        long n = strtol(s, &end, 10);
        for (; have < n; have++)
            if (!objrt_load_memory(ctx, &fill, 1)) {
                fprintf(stderr, "scale_bench: filler %ld: %s\n", have, objrt_error(ctx));
                return 1;
            }
        for (int r = 0; r < reps; r++) {
            double t0 = now_us();
            objrt_unit *u = objrt_load_memory(ctx, &probe, 1);
            double t1 = now_us();
            if (!u || objrt_unload(u)) {
                fprintf(stderr, "scale_bench: probe at %ld: %s\n", n, objrt_error(ctx));
                return 1;
            }
            ld[r] = t1 - t0;
            ul[r] = now_us() - t1;
        }
        qsort(ld, (size_t)reps, sizeof *ld, cmp);
        qsort(ul, (size_t)reps, sizeof *ul, cmp);
        printf("%ld %.1f %.1f\n", n, ld[reps / 2], ul[reps / 2]);
        fflush(stdout);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s != ',' && *end)
            break;
    }
    objrt_free(ctx);
    return 0;
}

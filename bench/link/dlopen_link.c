/*
 * dlopen_link.c - time dlopen(LIB, RTLD_NOW | RTLD_LOCAL) + dlclose, the dynamic-linker
 * reference point for the link benchmark.
 *
 * usage: dlopen_link [-r REPS] [-t SECONDS] [-c sqlite|lua|jit|none] [-s SAMPLES_FILE] [-1] LIB.so
 *
 * libm is loaded once before timing (the objrt and RuntimeDyld harnesses load it too).
 *   first_us   the first dlopen of LIB in this process: the honest cold-process number
 *              (files are in the page cache; run this program once per sample for more);
 *   loop       dlopen + dlclose repeated in-process; after each dlclose the program
 *              verifies with RTLD_NOLOAD that the library really left the process, so no
 *              sample is a cached reference-count bump (reported as unloaded=yes/no);
 *   open       the dlopen alone of each loop repetition: what objrt_load_memory is compared
 *              with (objrt's unload is timed apart as well); -s appends these samples,
 *              "wall_us cpu_us" per line, as the other harnesses do, so run.sh can
 *              interleave it with them in rounds.
 * -1: print first_us only (for a fresh-process-per-sample loop).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* CPU time of the whole process, as the other harnesses report it. */
static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double median_of(double *v, int n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *lookup(void *cookie, const char *name)
{
    return dlsym(cookie, name);
}

int main(int argc, char **argv)
{
    int reps = 200, first_only = 0;
    double budget_s = 10;
    const char *what = "none", *samples_path = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            budget_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "-c") && i + 1 < argc)
            what = argv[++i];
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            samples_path = argv[++i];
        else if (!strcmp(argv[i], "-1"))
            first_only = 1;
        else
            break;
    }
    if (i != argc - 1 || reps < 1) {
        fprintf(stderr, "usage: %s [-r REPS] [-t SECONDS] [-c sqlite|lua|jit|none] [-s SAMPLES_FILE] [-1] LIB.so\n", argv[0]);
        return 2;
    }
    const char *lib = argv[i];
    if (!dlopen("libm.so.6", RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "dlopen_link: libm: %s\n", dlerror());
        return 1;
    }
    if (dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
        fprintf(stderr, "dlopen_link: %s is already loaded; the first sample would not be cold\n", lib);
        return 1;
    }
    double t0 = now_us();
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    double first = now_us() - t0;
    if (!h) {
        fprintf(stderr, "dlopen_link: %s\n", dlerror());
        return 1;
    }
    if (first_only) {
        printf("dlopen first_us=%.1f\n", first);
        return 0;
    }
    int rc = bench_check(what, lookup, h);
    dlclose(h);
    printf("dlopen first_us=%.1f\n", first);

    double *v = calloc((size_t)reps, sizeof *v), start = now_us();
    double *open_v = calloc((size_t)reps, sizeof *open_v), *open_cpu = calloc((size_t)reps, sizeof *open_cpu);
    int done = 0, stayed = 0;
    for (int r = 0; r < reps; r++) {
        double c0 = cpu_us();
        t0 = now_us();
        h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        double opened = now_us();
        open_cpu[done] = cpu_us() - c0;
        if (!h) {
            fprintf(stderr, "dlopen_link: %s\n", dlerror());
            return 1;
        }
        dlclose(h);
        open_v[done] = opened - t0;
        v[done++] = now_us() - t0;
        void *still = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (still) {
            stayed++;
            dlclose(still);
        }
        if (r >= 4 && (now_us() - start) / 1e6 > budget_s)
            break;
    }
    if (samples_path) {
        FILE *f = fopen(samples_path, "a");
        for (int k = 0; f && k < done; k++)
            fprintf(f, "%.1f %.1f\n", open_v[k], open_cpu[k]);
        if (f)
            fclose(f);
    }
    qsort(v, (size_t)done, sizeof *v, cmp_double);
    printf("dlopen loop reps=%d min_us=%.1f median_us=%.1f max_us=%.1f unloaded=%s\n", done, v[0],
           median_of(v, done), v[done - 1], stayed ? "no" : "yes");
    qsort(open_v, (size_t)done, sizeof *open_v, cmp_double);
    printf("dlopen open reps=%d min_us=%.1f median_us=%.1f max_us=%.1f\n", done, open_v[0], median_of(open_v, done),
           open_v[done - 1]);
    free(v);
    free(open_v);
    free(open_cpu);
    return rc ? 1 : 0;
}

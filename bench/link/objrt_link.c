/*
 * objrt_link.c - time linking N relocatable objects (or archives) in-process with objrt.
 *
 * usage: objrt_link [-r REPS] [-t SECONDS] [-c sqlite|lua|jit|none] [-s SAMPLES_FILE] [-y CYCLES]
 *                   FILE...
 *
 * Same protocol as rtdyld_link.cpp so the numbers compare:
 *   * every file is read into memory before timing starts; objrt_new() and
 *     objrt_add_library("m") happen once, outside the timing;
 *   * one repetition = objrt_load_memory(ctx, inputs, n) -> "link" time (parse, resolve,
 *     place, relocate, protect, eh_frame registration; the loaded libraries have no
 *     constructors), then objrt_unload() -> "teardown";
 *   * -y CYCLES: then CYCLES load+unload cycles back to back, timed in blocks of ten (mean per
 *     cycle, wall and process CPU time), within the same time budget: what a long-running
 *     host that keeps reloading a unit pays, growth over many cycles included (issue 13:
 *     <= 1.5x the link time); after each block as many links are timed one by one, and
 *     their medians are the link the cycle is compared with (see run_cycles);
 *   * the first link's minor page faults are reported ("objrt first ... faults=N"): in a new
 *     process they count the fresh pages it had to take (bench/link/floor.c prices them);
 *   * after timing, one more unit is loaded and known functions are looked up with
 *     objrt_unit_sym() and called (-c, see check.c) to prove the linked code works.
 * Wall time (CLOCK_MONOTONIC) and process CPU time (CLOCK_PROCESS_CPUTIME_ID, less
 * disturbed by other load on a busy machine) are both reported.
 * Output: one "key=value ..." line per measurement, parsed by bench/link/run.sh.
 */
#include <objrt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "check.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* CPU time of the whole process (all threads): robust against other load on the machine. */
static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Minor page faults of the process so far: the first link's show what memory it had to
 * take fresh (a new process has touched none of it before). */
static long minor_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    printf("%s reps=%zu min_us=%.1f median_us=%.1f max_us=%.1f\n", what, n, v[0], median, v[n - 1]);
}

static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, len = 0, got;
    do {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
    } while (got > 0);
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    *size = len;
    return buf;
}

/* Blocks of CYCLE_BLOCK load+unload cycles back to back (timed per block), each followed
 * by as many links timed one by one (the unload after each untimed), until `cycles` cycles
 * or the budget: the cycle and the link it is compared with are measured in the same
 * process, interleaved, so neither sees a calmer stretch of the machine than the other.
 * Prints the cycle's mean (wall and CPU) and the interleaved links' medians. */
#define CYCLE_BLOCK 10
static int run_cycles(objrt_ctx *ctx, const objrt_input *in, size_t n, int cycles, double budget_s)
{
    double *lw = calloc((size_t)cycles, sizeof *lw), *lc = calloc((size_t)cycles, sizeof *lc);
    double wall = 0, cpu = 0, start = now_us();
    int k = 0, nl = 0, rc = -1;
    if (!lw || !lc)
        goto out;
    while (k < cycles) {
        double w0 = now_us(), c0 = cpu_us();
        int b = 0;
        for (; b < CYCLE_BLOCK && k < cycles; b++, k++) {
            objrt_unit *c = objrt_load_memory(ctx, in, n);
            if (!c || objrt_unload(c) != 0) {
                fprintf(stderr, "objrt_link: cycle %d failed: %s\n", k, objrt_error(ctx));
                goto out;
            }
        }
        wall += now_us() - w0;
        cpu += cpu_us() - c0;
        for (int j = 0; j < b; j++, nl++) {
            double t0 = now_us(), p0 = cpu_us();
            objrt_unit *c = objrt_load_memory(ctx, in, n);
            lw[nl] = now_us() - t0;
            lc[nl] = cpu_us() - p0;
            if (!c || objrt_unload(c) != 0) {
                fprintf(stderr, "objrt_link: link between cycles failed: %s\n", objrt_error(ctx));
                goto out;
            }
        }
        if ((now_us() - start) / 1e6 > budget_s)
            break;                              /* the budget bounds the slow sets */
    }
    qsort(lw, (size_t)nl, sizeof *lw, cmp_double);
    qsort(lc, (size_t)nl, sizeof *lc, cmp_double);
    printf("objrt cycle cycles=%d mean_us=%.1f cpu_mean_us=%.1f link_median_us=%.1f "
           "link_cpu_median_us=%.1f\n", k, wall / k, cpu / k, lw[nl / 2], lc[nl / 2]);
    rc = 0;
out:
    free(lw);
    free(lc);
    return rc;
}

static void *lookup(void *cookie, const char *name)
{
    return objrt_unit_sym(cookie, name);
}

int main(int argc, char **argv)
{
    int reps = 200, cycles = 0;
    double budget_s = 20;
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
        else if (!strcmp(argv[i], "-y") && i + 1 < argc)
            cycles = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [-r REPS] [-t SECONDS] [-c sqlite|lua|jit|none] "
                    "[-s SAMPLES_FILE] [-y CYCLES] FILE...\n", argv[0]);
            return 2;
        }
    }
    size_t n = (size_t)(argc - i);
    if (n == 0 || reps < 1) {
        fprintf(stderr, "objrt_link: no input files\n");
        return 2;
    }
    objrt_input *in = calloc(n, sizeof *in);
    double *link_us = calloc((size_t)reps, sizeof *link_us);
    double *total_us = calloc((size_t)reps, sizeof *total_us);
    double *link_cpu = calloc((size_t)reps, sizeof *link_cpu);
    if (!in || !link_us || !total_us || !link_cpu)
        return 1;
    size_t bytes = 0;
    for (size_t k = 0; k < n; k++) {
        in[k].name = argv[i + (int)k];
        in[k].data = read_file(in[k].name, &in[k].size);
        if (!in[k].data) {
            perror(in[k].name);
            return 1;
        }
        bytes += in[k].size;
    }
    printf("objrt inputs=%zu bytes=%zu\n", n, bytes);

    objrt_ctx *ctx = objrt_new();
    if (!ctx || objrt_add_library(ctx, "m") != 0) {
        fprintf(stderr, "objrt_link: setup failed: %s\n", ctx ? objrt_error(ctx) : "out of memory");
        return 1;
    }
    objrt_stats st;
    memset(&st, 0, sizeof st);
    int done = 0;
    long first_faults = 0;
    double start = now_us();
    for (int r = 0; r < reps; r++) {
        long f0 = r == 0 ? minor_faults() : 0;
        double c0 = cpu_us(), t0 = now_us();
        objrt_unit *u = objrt_load_memory(ctx, in, n);
        double t1 = now_us(), c1 = cpu_us();
        if (r == 0)
            first_faults = minor_faults() - f0;
        if (!u) {
            fprintf(stderr, "objrt_link: load failed: %s\n", objrt_error(ctx));
            return 1;
        }
        if (r == 0)
            objrt_unit_stats(u, &st);
        if (objrt_unload(u) != 0) {
            fprintf(stderr, "objrt_link: unload failed: %s\n", objrt_error(ctx));
            return 1;
        }
        link_us[done] = t1 - t0;
        link_cpu[done] = c1 - c0;
        total_us[done] = now_us() - t0;
        done++;
        if (r >= 4 && (now_us() - start) / 1e6 > budget_s)
            break;                              /* enough samples within the time budget */
    }
    printf("objrt stats objects=%zu relocations=%zu reserved_bytes=%zu used_bytes=%zu got_slots=%zu "
           "stubs=%zu stubs_used=%zu link_us=%.1f\n", st.objects, st.relocations, st.reserved_bytes,
           st.used_bytes, st.got_slots, st.stubs, st.stubs_used, st.link_us);
    if (samples_path) {                         /* raw samples, appended: "wall_us cpu_us" */
        FILE *f = fopen(samples_path, "a");
        for (int k = 0; f && k < done; k++)
            fprintf(f, "%.1f %.1f\n", link_us[k], link_cpu[k]);
        if (f)
            fclose(f);
    }
    printf("objrt first link_us=%.1f faults=%ld\n", link_us[0], first_faults);
    report("objrt link", link_us, (size_t)done);
    report("objrt link+teardown", total_us, (size_t)done);
    report("objrt link-cpu", link_cpu, (size_t)done);

    if (cycles > 0 && run_cycles(ctx, in, n, cycles, budget_s) != 0)
        return 1;

    objrt_unit *u = objrt_load_memory(ctx, in, n);
    if (!u) {
        fprintf(stderr, "objrt_link: load failed: %s\n", objrt_error(ctx));
        return 1;
    }
    int rc = bench_check(what, lookup, u);
    objrt_unload(u);
    objrt_free(ctx);
    for (size_t k = 0; k < n; k++)
        free((void *)in[k].data);
    free(in);
    free(link_us);
    free(total_us);
    free(link_cpu);
    return rc ? 1 : 0;
}

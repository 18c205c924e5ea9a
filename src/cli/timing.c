/* timing.c - `--repeat N`: many runs, a median time per run. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli.h"

#define MAX_SAMPLES 1001

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int cli_repeat_timed(int (*once)(const void *), const void *arg, long n, const char *what,
                     const char *unit)
{
    static double per_run[MAX_SAMPLES];
    long samples = n < MAX_SAMPLES ? n : MAX_SAMPLES;
    for (long s = 0; s < samples; s++) {
        long batch = n / samples + (s < n % samples), t0 = now_ns();
        for (long i = 0; i < batch; i++)
            if (once(arg) != 0)
                return -1;
        per_run[s] = (double)(now_ns() - t0) / (double)batch;
    }
    qsort(per_run, (size_t)samples, sizeof per_run[0], cmp_double);
    printf("%s: median %.3f us per %s (min %.3f us; %ld %ss in %ld timed batches)\n", what,
           per_run[samples / 2] / 1e3, unit, per_run[0] / 1e3, n, unit, samples);
    return 0;
}


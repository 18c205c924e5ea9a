/* timing.c - `--repeat N`: many runs, a median time per run. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "timing.h"

#define MAX_SAMPLES 1001

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


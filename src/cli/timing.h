/* timing.h - the clock and the sort order of `objrt call --repeat` (output.c), kept in one
 * place so that bench/tvm/bench_tvm.c, which includes it too, times a C host exactly as the
 * command times itself. Static inline: the bench links libobjrt.a, not the CLI's objects. */
#ifndef OBJRT_CLI_TIMING_H
#define OBJRT_CLI_TIMING_H

#include <time.h>

/* The monotonic clock in nanoseconds. */
static inline long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* qsort's comparison for doubles, ascending. */
static inline int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

#endif

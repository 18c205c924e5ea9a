/* bench_rt.h - shared pieces of the runtime benchmark harnesses. */
#ifndef BENCH_RT_H
#define BENCH_RT_H
#include <stdlib.h>
#include <time.h>

enum { MM_N = 512, MM_ROWS = 16, MM_REPS = 20, BATCHES = 7 };
enum { FJ_ITERS = 20000, BAR_ITERS = 20000 };

void mm_rows(const float *a, const float *b, float *c, int n, int r0, int r1, float *ws);
void mm_init(float *a, float *b, int n);
double mm_checksum(const float *c, int n);
double now_s(void);
double median(double *v, int n);
#endif

/* bench_rt.h - shared pieces of the runtime benchmark harnesses. */
#ifndef BENCH_RT_H
#define BENCH_RT_H
#include <stdlib.h>
#include <time.h>

enum { MM_N = 512, MM_ROWS = 16, MM_REPS = 10, BATCHES = 7 };
enum { FJ_ITERS = 20000, BAR_ITERS = 20000 };
/* A batch of fork/joins or barriers also ends after BATCH_S seconds, so that a heavily
 * loaded machine (10-100x slower launches) does not stretch the run to many minutes. */
#define BATCH_S 0.05

void mm_rows(const float *a, const float *b, float *c, int n, int r0, int r1, float *ws);
void mm_init(float *a, float *b, int n);
double mm_checksum(const float *c, int n);
double now_s(void);
/* About 1 us of dependent integer arithmetic: the body of the "small task" fork/join. */
enum { WORK_ITERS = 1000 };
unsigned long small_work(unsigned long seed);
/* argv selection: nonzero when metric `name` was asked for (no arguments: all). */
int wanted(int argc, char **argv, const char *name);
double median(double *v, int n);
#endif

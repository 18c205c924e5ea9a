/* bench_pool.c - objrt's kernel runtime side: fork/join, barrier, matmul through
 * TVMBackendParallelLaunch, and workspace alloc+free pairs against malloc/free and
 * posix_memalign/free. */
#include <objrt/tvm_backend.h>
#include <stdio.h>
#include <string.h>
#include "bench_rt.h"

static int empty(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    (void)id, (void)penv, (void)cdata;
    return 0;
}

static double forkjoin_ns(void)
{
    double t[BATCHES];
    TVMBackendParallelLaunch(empty, NULL, 0);          /* create the pool outside the timing */
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_s();
        for (int i = 0; i < FJ_ITERS; i++)
            TVMBackendParallelLaunch(empty, NULL, 0);
        t[b] = (now_s() - t0) / FJ_ITERS * 1e9;
    }
    return median(t, BATCHES);
}

static int barriers(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    double *out = cdata;
    TVMBackendParallelBarrier(id, penv);
    double t0 = now_s();
    for (int i = 0; i < BAR_ITERS; i++)
        TVMBackendParallelBarrier(id, penv);
    if (id == 0)
        *out = (now_s() - t0) / BAR_ITERS * 1e9;
    return 0;
}

static double barrier_ns(void)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++)
        TVMBackendParallelLaunch(barriers, &t[b], 0);
    return median(t, BATCHES);
}

typedef struct { const float *a, *b; float *c; } mm_closure;

static int mm_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    const mm_closure *m = cdata;
    int chunk = (MM_N + penv->num_task - 1) / penv->num_task, r0 = id * chunk;
    int r1 = r0 + chunk < MM_N ? r0 + chunk : MM_N;
    float *ws = TVMBackendAllocWorkspace(kDLCPU, 0, sizeof(float) * MM_ROWS * MM_N, kDLFloat, 32);
    if (!ws)
        return -1;
    mm_rows(m->a, m->b, m->c, MM_N, r0, r1, ws);
    return TVMBackendFreeWorkspace(kDLCPU, 0, ws);
}

static double matmul_gflops(double *check)
{
    mm_closure m;
    float *a = aligned_alloc(128, sizeof(float) * MM_N * MM_N);
    float *b = aligned_alloc(128, sizeof(float) * MM_N * MM_N);
    float *c = aligned_alloc(128, sizeof(float) * MM_N * MM_N);
    double t[BATCHES];
    mm_init(a, b, MM_N);
    m = (mm_closure){a, b, c};
    for (int r = 0; r < BATCHES; r++) {
        double t0 = now_s();
        for (int rep = 0; rep < MM_REPS; rep++)
            if (TVMBackendParallelLaunch(mm_task, &m, 0) != 0)
                fprintf(stderr, "matmul: %s\n", TVMGetLastError());
        t[r] = 2.0 * MM_N * MM_N * MM_N * MM_REPS / (now_s() - t0) / 1e9;
    }
    *check = mm_checksum(c, MM_N);
    free(a), free(b), free(c);
    return median(t, BATCHES);
}

/* ---- workspace pairs: 8 live blocks of 64 B .. 4 MiB, freed LIFO or in a fixed shuffle */

enum { DEPTH = 8, WS_ITERS = 20000 };
static const size_t sizes[] = {64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };
static const int lifo[DEPTH] = {7, 6, 5, 4, 3, 2, 1, 0}, shuffled[DEPTH] = {3, 0, 6, 1, 7, 4, 2, 5};

static void *a_ws(size_t n) { return TVMBackendAllocWorkspace(kDLCPU, 0, n, kDLFloat, 32); }
static void f_ws(void *p) { TVMBackendFreeWorkspace(kDLCPU, 0, p); }
static void *a_malloc(size_t n) { return malloc(n); }
static void *a_memalign(size_t n)
{
    void *p;
    return posix_memalign(&p, 128, n) == 0 ? p : NULL;
}

static double pairs_ns(void *(*alloc)(size_t), void (*release)(void *), const int *order)
{
    double t[BATCHES];
    void *p[DEPTH];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_s();
        for (int it = 0; it < WS_ITERS; it++) {
            for (int d = 0; d < DEPTH; d++) {
                p[d] = alloc(sizes[(it + d) % NSIZES]);
                *(volatile char *)p[d] = 1;
            }
            for (int d = 0; d < DEPTH; d++)
                release(p[order[d]]);
        }
        t[b] = (now_s() - t0) / ((double)WS_ITERS * DEPTH) * 1e9;
    }
    return median(t, BATCHES);
}

int main(void)
{
    double check, gf;
    printf("threads %d\n", objrt_num_threads());
    printf("forkjoin_ns %.1f\n", forkjoin_ns());
    printf("barrier_ns %.1f\n", barrier_ns());
    gf = matmul_gflops(&check);
    printf("matmul_gflops %.2f\nmatmul_check %.1f\n", gf, check);
    printf("ws_lifo_ns %.1f\n", pairs_ns(a_ws, f_ws, lifo));
    printf("malloc_lifo_ns %.1f\n", pairs_ns(a_malloc, free, lifo));
    printf("memalign_lifo_ns %.1f\n", pairs_ns(a_memalign, free, lifo));
    printf("ws_shuffled_ns %.1f\n", pairs_ns(a_ws, f_ws, shuffled));
    printf("malloc_shuffled_ns %.1f\n", pairs_ns(a_malloc, free, shuffled));
    printf("memalign_shuffled_ns %.1f\n", pairs_ns(a_memalign, free, shuffled));
    return 0;
}

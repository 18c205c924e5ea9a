/* bench_pool.c - objrt's kernel runtime side: fork/join, barrier, matmul through
 * TVMBackendParallelLaunch, and workspace alloc+free pairs against malloc/free and
 * posix_memalign/free. */
#include <objrt/tvm_backend.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "bench_rt.h"

/* Tasks > 0 that ran on the calling thread (objrt lets a free caller run a task no worker
 * has started): reported beside the fork/join time so that it is clear what it measured. */
static __thread int tl_is_caller;
static long stolen, launched;

static int empty(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    (void)penv, (void)cdata;
    if (id > 0 && tl_is_caller)
        stolen++;
    return 0;
}

static volatile unsigned long sink[64 * 16];

static int small(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    (void)penv, (void)cdata;
    if (id > 0 && tl_is_caller)
        stolen++;
    sink[id * 16] = small_work((unsigned long)id);
    return 0;
}

static double forkjoin_ns(FTVMParallelLambda fn, double *stolen_pct)
{
    double t[BATCHES];
    TVMBackendParallelLaunch(fn, NULL, 0);             /* create the pool outside the timing */
    stolen = launched = 0;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_s();
        int i = 0;
        while (i < FJ_ITERS) {
            TVMBackendParallelLaunch(fn, NULL, 0);
            if ((++i & 63) == 0 && now_s() - t0 > BATCH_S)
                break;
        }
        t[b] = (now_s() - t0) / i * 1e9;
        launched += (long)i * (objrt_num_threads() - 1);
    }
    *stolen_pct = launched ? 100.0 * stolen / launched : 0;
    return median(t, BATCHES);
}

/* Every task passes the same number of barriers: task 0's decision to stop early (made
 * between barrier i and i+1) is acted on at i+2, after a barrier ordered it. */
typedef struct { atomic_int stop_at; double ns; } bar_job;

static int barriers(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    bar_job *j = cdata;
    double t0;
    int i;
    TVMBackendParallelBarrier(id, penv);
    t0 = now_s();
    for (i = 0; i < atomic_load_explicit(&j->stop_at, memory_order_relaxed); i++) {
        TVMBackendParallelBarrier(id, penv);
        if (id == 0 && (i & 63) == 63 && i + 2 < BAR_ITERS && now_s() - t0 > BATCH_S)
            atomic_store_explicit(&j->stop_at, i + 2, memory_order_relaxed);
    }
    if (id == 0)
        j->ns = (now_s() - t0) / i * 1e9;
    return 0;
}

static double barrier_ns(void)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        bar_job j = {BAR_ITERS, 0};
        TVMBackendParallelLaunch(barriers, &j, 0);
        t[b] = j.ns;
    }
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

/* bench_objrt [forkjoin] [small] [barrier] [matmul] [ws]: the metrics to run (default all) */
int main(int argc, char **argv)
{
    double check, gf, pct, ns;
    tl_is_caller = 1;
    printf("threads %d\n", objrt_num_threads());
    if (wanted(argc, argv, "forkjoin")) {
        ns = forkjoin_ns(empty, &pct);
        printf("forkjoin_ns %.1f\nforkjoin_stolen_pct %.1f\n", ns, pct);
    }
    if (wanted(argc, argv, "small")) {
        ns = forkjoin_ns(small, &pct);
        printf("small_ns %.1f\nsmall_stolen_pct %.1f\n", ns, pct);
    }
    if (wanted(argc, argv, "barrier"))
        printf("barrier_ns %.1f\n", barrier_ns());
    if (wanted(argc, argv, "matmul")) {
        gf = matmul_gflops(&check);
        printf("matmul_gflops %.2f\nmatmul_check %.1f\n", gf, check);
    }
    if (wanted(argc, argv, "ws")) {
        printf("ws_lifo_ns %.1f\n", pairs_ns(a_ws, f_ws, lifo));
        printf("malloc_lifo_ns %.1f\n", pairs_ns(a_malloc, free, lifo));
        printf("memalign_lifo_ns %.1f\n", pairs_ns(a_memalign, free, lifo));
        printf("ws_shuffled_ns %.1f\n", pairs_ns(a_ws, f_ws, shuffled));
        printf("malloc_shuffled_ns %.1f\n", pairs_ns(a_malloc, free, shuffled));
        printf("memalign_shuffled_ns %.1f\n", pairs_ns(a_memalign, free, shuffled));
    }
    return 0;
}

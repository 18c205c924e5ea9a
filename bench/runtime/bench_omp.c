/* bench_omp.c - the OpenMP side (built with gcc -fopenmp for libgomp and with
 * clang -fopenmp=libomp for LLVM's libomp): fork/join, barrier, matmul. */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include "bench_rt.h"

static double forkjoin_ns(void)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_s();
        int i = 0;
        while (i < FJ_ITERS) {
#pragma omp parallel
            __asm__ __volatile__("" ::: "memory");
            if ((++i & 63) == 0 && now_s() - t0 > BATCH_S)
                break;
        }
        t[b] = (now_s() - t0) / i * 1e9;
    }
    return median(t, BATCHES);
}

static volatile unsigned long sink[64 * 16];

static double small_ns(void)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_s();
        int i = 0;
        while (i < FJ_ITERS) {
#pragma omp parallel
            {
                int id = omp_get_thread_num();
                sink[id * 16] = small_work((unsigned long)id);
            }
            if ((++i & 63) == 0 && now_s() - t0 > BATCH_S)
                break;
        }
        t[b] = (now_s() - t0) / i * 1e9;
    }
    return median(t, BATCHES);
}

/* Every thread passes the same number of barriers: the master's decision to stop early
 * (written between barrier i and i+1) is acted on at i+2, after a barrier ordered it. */
static double barrier_ns(void)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = 0, t1 = 0;
        int done = 0;
        atomic_int stop_at = BAR_ITERS;
#pragma omp parallel
        {
            int i;
#pragma omp barrier
#pragma omp master
            t0 = now_s();
            for (i = 0; i < atomic_load_explicit(&stop_at, memory_order_relaxed); i++) {
#pragma omp barrier
#pragma omp master
                if ((i & 63) == 63 && i + 2 < BAR_ITERS && now_s() - t0 > BATCH_S)
                    atomic_store_explicit(&stop_at, i + 2, memory_order_relaxed);
            }
#pragma omp master
            {
                t1 = now_s();
                done = i;
            }
        }
        t[b] = (t1 - t0) / done * 1e9;
    }
    return median(t, BATCHES);
}

static double matmul_gflops(double *check)
{
    float *a = aligned_alloc(128, sizeof(float) * MM_N * MM_N);
    float *b = aligned_alloc(128, sizeof(float) * MM_N * MM_N);
    float *c = aligned_alloc(128, sizeof(float) * MM_N * MM_N);
    double t[BATCHES];
    mm_init(a, b, MM_N);
    for (int r = 0; r < BATCHES; r++) {
        double t0 = now_s();
        for (int rep = 0; rep < MM_REPS; rep++) {
#pragma omp parallel
            {   /* the same ceil(n / num_task) chunking and per-task workspace as objrt's side */
                int nt = omp_get_num_threads(), id = omp_get_thread_num();
                int chunk = (MM_N + nt - 1) / nt, r0 = id * chunk;
                int r1 = r0 + chunk < MM_N ? r0 + chunk : MM_N;
                float *ws = aligned_alloc(128, sizeof(float) * MM_ROWS * MM_N);
                mm_rows(a, b, c, MM_N, r0, r1, ws);
                free(ws);
            }
        }
        t[r] = 2.0 * MM_N * MM_N * MM_N * MM_REPS / (now_s() - t0) / 1e9;
    }
    *check = mm_checksum(c, MM_N);
    free(a), free(b), free(c);
    return median(t, BATCHES);
}

/* bench_libgomp|bench_libomp [forkjoin] [small] [barrier] [matmul]: metrics (default all) */
int main(int argc, char **argv)
{
    double check, gf;
    printf("threads %d\n", omp_get_max_threads());
    if (wanted(argc, argv, "forkjoin"))
        printf("forkjoin_ns %.1f\n", forkjoin_ns());
    if (wanted(argc, argv, "small"))
        printf("small_ns %.1f\n", small_ns());
    if (wanted(argc, argv, "barrier"))
        printf("barrier_ns %.1f\n", barrier_ns());
    if (wanted(argc, argv, "matmul")) {
        gf = matmul_gflops(&check);
        printf("matmul_gflops %.2f\nmatmul_check %.1f\n", gf, check);
    }
    return 0;
}

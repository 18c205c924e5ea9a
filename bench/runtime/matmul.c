/* matmul.c - the benchmark's real kernel, compiled once and linked into every harness so
 * only the thread pool differs: rows [r0, r1) of C = A * B (n x n floats), accumulated
 * in a per-task workspace of ROWS x n floats, k blocked for cache reuse. */
#include <string.h>
#include "bench_rt.h"

void mm_rows(const float *a, const float *b, float *c, int n, int r0, int r1, float *ws)
{
    enum { KB = 128 };
    for (int i0 = r0; i0 < r1; i0 += MM_ROWS) {
        int i1 = i0 + MM_ROWS < r1 ? i0 + MM_ROWS : r1;
        for (int i = 0; i < (i1 - i0) * n; i++)
            ws[i] = 0;
        for (int k0 = 0; k0 < n; k0 += KB)
            for (int i = i0; i < i1; i++) {
                float *acc = ws + (size_t)(i - i0) * n;
                for (int k = k0; k < k0 + KB && k < n; k++) {
                    float aik = a[(size_t)i * n + k];
                    const float *brow = b + (size_t)k * n;
                    for (int j = 0; j < n; j++)
                        acc[j] += aik * brow[j];
                }
            }
        for (int i = i0; i < i1; i++)
            for (int j = 0; j < n; j++)
                c[(size_t)i * n + j] = ws[(size_t)(i - i0) * n + j];
    }
}

void mm_init(float *a, float *b, int n)
{
    for (int i = 0; i < n * n; i++) {
        a[i] = (float)((i * 7) % 13) * 0.25f;
        b[i] = (float)((i * 5) % 11) * 0.5f;
    }
}

double mm_checksum(const float *c, int n)
{
    double s = 0;
    for (int i = 0; i < n * n; i += 17)
        s += c[i];
    return s;
}

double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

unsigned long small_work(unsigned long x)
{
    for (int i = 0; i < WORK_ITERS; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}

int wanted(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return argc < 2;
}

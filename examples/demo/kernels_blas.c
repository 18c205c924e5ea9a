/* Demo kernels, compiled at demo time and loaded by objrt. */
#include <stddef.h>

float kernel_dot(const float *a, const float *b, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

void kernel_saxpy(float a, const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* c[m x n] = a[m x k] * b[k x n], row-major, blocked for cache. */
void kernel_matmul(const float *a, const float *b, float *c, size_t m, size_t n, size_t k)
{
    enum { B = 32 };
    for (size_t i = 0; i < m * n; i++)
        c[i] = 0;
    for (size_t i0 = 0; i0 < m; i0 += B)
        for (size_t p0 = 0; p0 < k; p0 += B)
            for (size_t i = i0; i < i0 + B && i < m; i++)
                for (size_t p = p0; p < p0 + B && p < k; p++) {
                    float av = a[i * k + p];
                    for (size_t j = 0; j < n; j++)
                        c[i * n + j] += av * b[p * n + j];
                }
}

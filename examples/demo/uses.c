/*
 * uses.c - what a program built against kernels.a references. Loaded with the archive, it
 * makes objrt pull exactly the members that define these kernels, as ld would.
 */
#include <stddef.h>

float kernel_dot(const float *a, const float *b, size_t n);
void kernel_saxpy(float a, const float *x, float *y, size_t n);
void kernel_matmul(const float *a, const float *b, float *c, size_t m, size_t n, size_t k);
long kernel_histogram(const unsigned char *data, size_t n, unsigned *hist256);
int kernel_median(const int *v, size_t n);

void *const demo_kernels[] = {
    (void *)kernel_dot, (void *)kernel_saxpy, (void *)kernel_matmul,
    (void *)kernel_histogram, (void *)kernel_median,
};

/* Demo kernels that use the C library and a constructor: loaded code calls back into
 * the host process (memset, qsort) and its constructor runs before the host calls it. */
#include <stdlib.h>
#include <string.h>

static int table_ready;
static unsigned char popcount_table[256];

__attribute__((constructor)) static void build_table(void)
{
    for (int i = 0; i < 256; i++)
        popcount_table[i] = (unsigned char)((i & 1) + popcount_table[i / 2]);
    table_ready = 1;
}

/* Histogram of byte values, then the sum of set bits (table built by the constructor). */
long kernel_histogram(const unsigned char *data, size_t n, unsigned *hist256)
{
    long bits = 0;
    memset(hist256, 0, 256 * sizeof *hist256);
    for (size_t i = 0; i < n; i++) {
        hist256[data[i]]++;
        bits += popcount_table[data[i]];
    }
    return table_ready ? bits : -1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Median by sorting a copy: qsort calls back into this unit's comparator. */
int kernel_median(const int *v, size_t n)
{
    int *copy = malloc(n * sizeof *copy);
    if (!copy)
        return 0;
    memcpy(copy, v, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, cmp_int);
    int m = copy[n / 2];
    free(copy);
    return m;
}

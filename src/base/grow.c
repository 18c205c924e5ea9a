/* grow.c - the one way the loader grows an array: doubling from a first capacity chosen per
 * array, the product never overflowing, the array and *cap untouched on failure. */
#include <stdlib.h>

#include "base/context.h"

void *objrt_grow(objrt_ctx *ctx, void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return arr;
    size_t n = *cap ? *cap : first;
    while (n < need && n <= SIZE_MAX / 2 / elem)
        n *= 2;
    void *v = n >= need ? realloc(arr, n * elem) : NULL;
    if (!v) {
        objrt_fail(ctx, "out of memory (%zu x %zu bytes)", need, elem);
        return NULL;
    }
    *cap = n;
    return v;
}

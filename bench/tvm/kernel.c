/* kernel.c - the benchmark's kernel, twice: add_packed as TVM emits it (packed signature,
 * MakePackedAPI's argument checks, a serial loop as TVM emits for a small tensor) and
 * add_direct, the same loop as a plain C function. Loaded by objrt in bench_tvm and
 * `objrt call`. */
#define KERNEL_SET_ERROR(msg) TVMAPISetLastError(msg)
#include "tvm_args.h"

int add_packed(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)ret, (void)rcode, (void)res;
    if (check_nargs("add_packed", nargs, 3) != 0 ||
        check_tensor("add_packed", "A", args, codes, 0, kDLFloat, 32, 1, (int64_t[]){-1}) != 0)
        return -1;
    int64_t n = ((DLTensor *)args[0].v_handle)->shape[0];
    if (check_tensor("add_packed", "B", args, codes, 1, kDLFloat, 32, 1, &n) != 0 ||
        check_tensor("add_packed", "C", args, codes, 2, kDLFloat, 32, 1, &n) != 0)
        return -1;
    const float *a = ((DLTensor *)args[0].v_handle)->data, *b = ((DLTensor *)args[1].v_handle)->data;
    float *c = ((DLTensor *)args[2].v_handle)->data;
    for (int64_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    return 0;
}

void add_direct(const float *a, const float *b, float *c, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

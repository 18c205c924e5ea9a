/* align_kernel.c - a packed kernel as TVM 0.7-0.9 emit them: it assumes every tensor's data
 * is 128-byte aligned (kAllocAlignment then), here checked and refused instead of the
 * aligned vector access that would fault. Y = X + 1. */
#include <stdint.h>
#include <objrt/tvm_backend.h>

int32_t add_one_aligned128(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode,
                           void *res)
{
    (void)codes, (void)ret, (void)rcode, (void)res;
    for (int i = 0; i < nargs; i++)
        if ((uintptr_t)((DLTensor *)args[i].v_handle)->data % 128 != 0) {
            TVMAPISetLastError("add_one_aligned128: tensor data is not 128-byte aligned");
            return -1;
        }
    DLTensor *x = args[0].v_handle, *y = args[1].v_handle;
    const float *xs = __builtin_assume_aligned(x->data, 128);
    float *ys = __builtin_assume_aligned(y->data, 128);
    for (int64_t i = 0; i < x->shape[0]; i++)
        ys[i] = xs[i] + 1;
    return 0;
}

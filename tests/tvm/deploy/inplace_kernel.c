/* inplace_kernel.c - a packed kernel that updates its first tensor in place (as TVM's
 * in-place operators and a state buffer a model carries between calls do) and writes a
 * second one: X = 2 X + 1, S[0] = sum of the new X. */
#include <stdint.h>
#include <objrt/tvm_backend.h>

int32_t scale_in_place(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)codes, (void)ret, (void)rcode, (void)res;
    if (nargs != 2) {
        TVMAPISetLastError("scale_in_place: num_args should be 2");
        return -1;
    }
    DLTensor *x = args[0].v_handle, *s = args[1].v_handle;
    float *xs = x->data, sum = 0;
    for (int64_t i = 0; i < x->shape[0]; i++) {
        xs[i] = 2 * xs[i] + 1;
        sum += xs[i];
    }
    ((float *)s->data)[0] = sum;
    return 0;
}

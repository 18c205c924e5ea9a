/* math_kernel.c - a fused operator as TVM's C codegen writes one (relay.build with
 * target "c"): <math.h> calls (expf, tanhf, roundf) inside a packed function.
 *   tvmgen_default_fused_sigmoid_tanh(X f32[n], Y f32[n]):
 *       Y = 1 / (1 + expf(-X)) + roundf(tanhf(X) * 8) */
#include <math.h>
#include <stdint.h>
#include <objrt/tvm_backend.h>

int32_t tvmgen_default_fused_sigmoid_tanh(TVMValue *args, int *codes, int nargs,
                                          TVMValue *ret, int *rcode, void *res)
{
    (void)codes, (void)ret, (void)rcode, (void)res;
    if (nargs != 2) {
        TVMAPISetLastError("tvmgen_default_fused_sigmoid_tanh: num_args should be 2");
        return -1;
    }
    DLTensor *x = args[0].v_handle, *y = args[1].v_handle;
    const float *xs = x->data;
    float *ys = y->data;
    for (int64_t i = 0; i < x->shape[0]; i++)
        ys[i] = 1.0f / (1.0f + expf(-xs[i])) + roundf(tanhf(xs[i]) * 8.0f);
    return 0;
}

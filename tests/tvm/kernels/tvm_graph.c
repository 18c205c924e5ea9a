/* tvm_graph.c - the fused functions a graph executor calls for the model
 *     out = 2 * relu(x @ W^T + b),   x f32[1,8], W f32[4,8], b f32[4]
 * in TVM's system-lib form: tvmgen-style names, packed signature with argument checks.
 *   fused_nn_dense(x, W, y)          y[1,4] = x @ W^T
 *   fused_add_nn_relu(y, b, z)       z[1,4] = relu(y + b)       (b broadcast)
 *   fused_multiply(z, out)           out = 2 z, on flattened 1-D tensors (flatten_data)
 *   fused_fails(z, out)              fails with its own message */
#define KERNEL_SET_ERROR(msg) TVMAPISetLastError(msg)
#include "tvm_args.h"

void *__tvm_module_ctx;

#define T(i) ((DLTensor *)args[i].v_handle)
#define F(i) ((float *)T(i)->data)

int fused_nn_dense(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)ret, (void)rcode, (void)res;
    if (check_nargs("fused_nn_dense", nargs, 3) != 0 ||
        check_tensor("fused_nn_dense", "x", args, codes, 0, kDLFloat, 32, 2, (int64_t[]){1, 8}) ||
        check_tensor("fused_nn_dense", "W", args, codes, 1, kDLFloat, 32, 2, (int64_t[]){4, 8}) ||
        check_tensor("fused_nn_dense", "y", args, codes, 2, kDLFloat, 32, 2, (int64_t[]){1, 4}))
        return -1;
    for (int j = 0; j < 4; j++) {
        float s = 0;
        for (int k = 0; k < 8; k++)
            s += F(0)[k] * F(1)[j * 8 + k];
        F(2)[j] = s;
    }
    return 0;
}

int fused_add_nn_relu(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)ret, (void)rcode, (void)res;
    if (check_nargs("fused_add_nn_relu", nargs, 3) != 0 ||
        check_tensor("fused_add_nn_relu", "y", args, codes, 0, kDLFloat, 32, 2, (int64_t[]){1, 4}) ||
        check_tensor("fused_add_nn_relu", "b", args, codes, 1, kDLFloat, 32, 1, (int64_t[]){4}) ||
        check_tensor("fused_add_nn_relu", "z", args, codes, 2, kDLFloat, 32, 2, (int64_t[]){1, 4}))
        return -1;
    for (int j = 0; j < 4; j++) {
        float v = F(0)[j] + F(1)[j];
        F(2)[j] = v > 0 ? v : 0;
    }
    return 0;
}

int fused_multiply(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)ret, (void)rcode, (void)res;
    if (check_nargs("fused_multiply", nargs, 2) != 0 ||
        check_tensor("fused_multiply", "z", args, codes, 0, kDLFloat, 32, 1, (int64_t[]){4}) ||
        check_tensor("fused_multiply", "out", args, codes, 1, kDLFloat, 32, 1, (int64_t[]){4}))
        return -1;
    for (int j = 0; j < 4; j++)
        F(1)[j] = 2 * F(0)[j];
    return 0;
}

int fused_fails(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)args, (void)codes, (void)nargs, (void)ret, (void)rcode, (void)res;
    return kernel_error("fused_fails: planted failure");
}

__attribute__((constructor)) static void __tvm_module_startup(void)
{
    TVMBackendRegisterSystemLibSymbol("fused_nn_dense", (void *)fused_nn_dense);
    TVMBackendRegisterSystemLibSymbol("fused_add_nn_relu", (void *)fused_add_nn_relu);
    TVMBackendRegisterSystemLibSymbol("fused_multiply", (void *)fused_multiply);
    TVMBackendRegisterSystemLibSymbol("fused_fails", (void *)fused_fails);
    TVMBackendRegisterSystemLibSymbol("__tvm_module_ctx", &__tvm_module_ctx);
}

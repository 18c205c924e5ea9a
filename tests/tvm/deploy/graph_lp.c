/* graph_lp.c - a graph module built with link-params (TVM 0.7-0.9, relay.build with
 * target "c -link-params=1"): the weights live in the object as __tvm_param__<name>
 * arrays and _lookup_linked_param(storage_id) hands them to the graph executor.
 *   graph: y = relu(x + p0) * 2, x f32[16] (storage 0), p0 f32[16] (storage 1, linked)
 * -DNO_LINKED leaves _lookup_linked_param out (the negative control: p0 is never set). */
#include <stdint.h>
#include <objrt/tvm_backend.h>

static const float __tvm_param__p0[16] __attribute__((aligned(128), used)) = {
    -1.0f, -0.75f, -0.5f, -0.25f, 0.0f, 0.25f, 0.5f, 0.75f,
    1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.25f, 2.5f, 2.75f,
};

int32_t fused_add_nn_relu(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode,
                          void *res)
{
    (void)codes, (void)ret, (void)rcode, (void)res;
    if (nargs != 3)
        return -1;
    const float *x = ((DLTensor *)args[0].v_handle)->data, *p = ((DLTensor *)args[1].v_handle)->data;
    float *y = ((DLTensor *)args[2].v_handle)->data;
    for (int i = 0; i < 16; i++)
        y[i] = x[i] + p[i] > 0 ? x[i] + p[i] : 0;
    return 0;
}

int32_t fused_multiply(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)codes, (void)ret, (void)rcode, (void)res;
    if (nargs != 2)
        return -1;
    const float *x = ((DLTensor *)args[0].v_handle)->data;
    float *y = ((DLTensor *)args[1].v_handle)->data;
    for (int i = 0; i < 16; i++)
        y[i] = x[i] * 2;
    return 0;
}

#ifndef NO_LINKED
int32_t _lookup_linked_param(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                             int *out_type_code, void *resource_handle)
{
    (void)type_code, (void)num_args, (void)resource_handle;
    switch (args[0].v_int64) {
    case 1:
        out_value->v_handle = (void *)__tvm_param__p0;
        break;
    default:
        out_type_code[0] = kTVMNullptr;
        return 0;
    }
    out_type_code[0] = kTVMOpaqueHandle;
    return 0;
}
#endif

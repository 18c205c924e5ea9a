/* model_graph.c - the example model as a graph executor module (relay.build with the
 * graph executor, target "c -link-params=1"): each fused operator a packed function that
 * checks its arguments as TVM's generated code does, and the weights linked in, handed to
 * the executor by _lookup_linked_param (storage ids 1 and 2 in model_graph.json). */
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/c_backend_api.h>
#include "model_ops.h"

static int32_t check(const char *fn, int32_t num_args, int32_t want, void *args)
{
    if (num_args != want) {
        TVMAPISetLastError(fn);     /* "<fn>: num_args should be N", TVM's wording */
        return -1;
    }
    for (int i = 0; i < want; i++) {
        const DLTensor *t = ((TVMValue *)args)[i].v_handle;
        if (!t || t->dtype.code != kDLFloat || t->dtype.bits != 32 || t->device.device_type != kDLCPU) {
            TVMAPISetLastError("argument is not a float32 CPU tensor");
            return -1;
        }
    }
    return 0;
}

#define DATA(i) ((float *)((DLTensor *)((TVMValue *)args)[i].v_handle)->data)

TVM_DLL int32_t tvmgen_default_fused_nn_dense_add(void *args, int32_t *arg_type_ids,
                                                  int32_t num_args, void *out_ret_value,
                                                  int32_t *out_ret_tcode, void *resource_handle)
{
    (void)arg_type_ids, (void)out_ret_value, (void)out_ret_tcode, (void)resource_handle;
    if (check("tvmgen_default_fused_nn_dense_add: num_args should be 4", num_args, 4, args))
        return -1;
    return fused_nn_dense_add_impl(DATA(0), DATA(1), DATA(2), DATA(3));
}

TVM_DLL int32_t tvmgen_default_fused_nn_relu(void *args, int32_t *arg_type_ids,
                                             int32_t num_args, void *out_ret_value,
                                             int32_t *out_ret_tcode, void *resource_handle)
{
    (void)arg_type_ids, (void)out_ret_value, (void)out_ret_tcode, (void)resource_handle;
    if (check("tvmgen_default_fused_nn_relu: num_args should be 2", num_args, 2, args))
        return -1;
    return fused_nn_relu_impl(DATA(0), DATA(1));
}

TVM_DLL int32_t _lookup_linked_param(TVMValue *args, int *type_code, int num_args,
                                     TVMValue *out_value, int *out_type_code, void *resource_handle)
{
    (void)type_code, (void)num_args, (void)resource_handle;
    switch (args[0].v_int64) {
    case 1: out_value->v_handle = (void *)model_W; break;
    case 2: out_value->v_handle = (void *)model_b; break;
    default: out_type_code[0] = kTVMNullptr; return 0;
    }
    out_type_code[0] = kTVMOpaqueHandle;
    return 0;
}

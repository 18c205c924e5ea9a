/* model_aot.c - the example model as TVM >= 0.9's AOT executor emits it (relay.build with
 * executor "aot", interface-api "c", unpacked-api): tvmgen_default_run takes one struct of
 * input data pointers and one of outputs, and calls tvmgen_default___tvm_main__, which
 * runs the fused operators with the weights embedded as constants. Compiled against
 * objrt's TVM headers alone: cc -I$(INCDIR)/objrt. */
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/c_backend_api.h>
#include "model_ops.h"

struct tvmgen_default_inputs { void *x; };
struct tvmgen_default_outputs { void *output; };

TVM_DLL int32_t tvmgen_default_fused_nn_dense_add(float *p0, float *T_add)
{
    return fused_nn_dense_add_impl(p0, model_W, model_b, T_add);
}

TVM_DLL int32_t tvmgen_default_fused_nn_relu(float *p0, float *T_relu)
{
    return fused_nn_relu_impl(p0, T_relu);
}

TVM_DLL int32_t tvmgen_default___tvm_main__(float *x, float *output)
{
    float sid_1[MODEL_OUT];
    if (tvmgen_default_fused_nn_dense_add(x, sid_1) != 0)
        return -1;
    return tvmgen_default_fused_nn_relu(sid_1, output);
}

TVM_DLL int32_t tvmgen_default_run(struct tvmgen_default_inputs *inputs,
                                   struct tvmgen_default_outputs *outputs)
{
    return tvmgen_default___tvm_main__(inputs->x, outputs->output);
}

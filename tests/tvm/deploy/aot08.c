/* aot08.c - an AOT model in the shape TVM 0.8 emits (relay.build, executor "aot", target
 * "c", the default packed interface): tvmgen_default_run_model takes one raw data pointer
 * per input and output as positional arguments, and tvmgen_default_run is a *packed*
 * function that takes the same tensors as DLTensors and calls run_model with their data.
 *   model(a f32[4,16], b f32[4,16]) -> output f32[4,16]:  relu(a * b + a)
 * -DNO_MARKER removes run_model (the negative control: nothing tells the ABI). */
#include <stdint.h>
#include <objrt/tvm_backend.h>

#define N 64

static int32_t tvmgen_default_fused_multiply_add(float *p0, float *p1, float *out)
{
    for (int i = 0; i < N; i++)
        out[i] = p0[i] * p1[i] + p0[i];
    return 0;
}

static int32_t tvmgen_default_fused_nn_relu(float *p0, float *out)
{
    for (int i = 0; i < N; i++)
        out[i] = p0[i] > 0 ? p0[i] : 0;
    return 0;
}

#ifndef NO_MARKER
int32_t tvmgen_default_run_model(void *arg0, void *arg1, void *output0)
{
    float sid_1[N];
    if (tvmgen_default_fused_multiply_add(arg0, arg1, sid_1) != 0)
        return -1;
    return tvmgen_default_fused_nn_relu(sid_1, output0);
}
#else
static int32_t tvmgen_default_run_model(void *arg0, void *arg1, void *output0)
{
    float sid_1[N];
    tvmgen_default_fused_multiply_add(arg0, arg1, sid_1);
    return tvmgen_default_fused_nn_relu(sid_1, output0);
}
#endif

int32_t tvmgen_default_run(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                           int *out_type_code, void *resource_handle)
{
    (void)type_code, (void)out_value, (void)out_type_code, (void)resource_handle;
    if (num_args != 3) {
        TVMAPISetLastError("tvmgen_default_run: num_args should be 3");
        return -1;
    }
    return tvmgen_default_run_model(((DLTensor *)args[0].v_handle)->data,
                                    ((DLTensor *)args[1].v_handle)->data,
                                    ((DLTensor *)args[2].v_handle)->data);
}

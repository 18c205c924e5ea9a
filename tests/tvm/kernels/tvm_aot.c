/* tvm_aot.c - what TVM's AOT executor emits with the C interface and the unpacked API
 * (interface-api "c", use-unpacked-api 1, no USMP) for the model
 *     out = relu(a * b + a),  a, b, out: float32[4, 16]
 * tvmgen_default_run unpacks the input and output structs into __tvm_main__, which runs
 * three fused operators with intermediates in workspaces from TVMBackendAllocWorkspace. */
#include <objrt/tvm_backend.h>

#define N 64

struct tvmgen_default_inputs { void *a; void *b; };
struct tvmgen_default_outputs { void *output; };

int32_t tvmgen_default_fused_multiply(float *p0, float *p1, float *T_multiply)
{
    for (int i = 0; i < N; i++)
        T_multiply[i] = p0[i] * p1[i];
    return 0;
}

int32_t tvmgen_default_fused_add(float *p0, float *p1, float *T_add)
{
    for (int i = 0; i < N; i++)
        T_add[i] = p0[i] + p1[i];
    return 0;
}

int32_t tvmgen_default_fused_nn_relu(float *p0, float *T_relu)
{
    for (int i = 0; i < N; i++)
        T_relu[i] = p0[i] > 0 ? p0[i] : 0;
    return 0;
}

int32_t tvmgen_default___tvm_main__(float *a, float *b, float *output)
{
    float *sid_1 = TVMBackendAllocWorkspace(kDLCPU, 0, N * 4, kDLFloat, 32);
    float *sid_2 = TVMBackendAllocWorkspace(kDLCPU, 0, N * 4, kDLFloat, 32);
    if (!sid_1 || !sid_2)
        return -1;
    if (tvmgen_default_fused_multiply(a, b, sid_1) != 0 ||
        tvmgen_default_fused_add(sid_1, a, sid_2) != 0 ||
        tvmgen_default_fused_nn_relu(sid_2, output) != 0)
        return -1;
    if (TVMBackendFreeWorkspace(kDLCPU, 0, sid_2) != 0 ||
        TVMBackendFreeWorkspace(kDLCPU, 0, sid_1) != 0)
        return -1;
    return 0;
}

int32_t tvmgen_default_run(struct tvmgen_default_inputs *inputs,
                           struct tvmgen_default_outputs *outputs)
{
    return tvmgen_default___tvm_main__(inputs->a, inputs->b, outputs->output);
}

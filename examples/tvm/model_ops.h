/* model_ops.h - the fused operators of the example model, y = relu(x W + b), as TVM's C
 * codegen writes them (raw float pointers, loops over the compiled shapes), and its
 * weights, embedded as TVM embeds constants (AOT) or linked params (graph). */
#include <stdint.h>

#define MODEL_IN 8
#define MODEL_OUT 4

static const float model_W[MODEL_IN * MODEL_OUT] __attribute__((aligned(128))) = {
     0.000f, -0.125f, -0.250f, -0.375f,   0.125f,  0.000f, -0.125f, -0.250f,
     0.250f,  0.125f,  0.000f, -0.125f,   0.375f,  0.250f,  0.125f,  0.000f,
     0.500f,  0.375f,  0.250f,  0.125f,   0.625f,  0.500f,  0.375f,  0.250f,
     0.750f,  0.625f,  0.500f,  0.375f,   0.875f,  0.750f,  0.625f,  0.500f,
};
static const float model_b[MODEL_OUT] __attribute__((aligned(128))) = {-0.5f, -0.25f, 0.0f, 0.25f};

/* T_add[j] = sum_i x[i] W[i][j] + b[j] */
static int32_t fused_nn_dense_add_impl(const float *x, const float *W, const float *b, float *T_add)
{
    for (int j = 0; j < MODEL_OUT; j++) {
        float acc = 0.0f;
        for (int i = 0; i < MODEL_IN; i++)
            acc += x[i] * W[i * MODEL_OUT + j];
        T_add[j] = acc + b[j];
    }
    return 0;
}

static int32_t fused_nn_relu_impl(const float *p0, float *T_relu)
{
    for (int j = 0; j < MODEL_OUT; j++)
        T_relu[j] = p0[j] > 0.0f ? p0[j] : 0.0f;
    return 0;
}

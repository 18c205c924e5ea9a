/* seed_kernel.c - the seed bug, reproduced: a parallel lambda allocates a workspace on the
 * worker thread and writes it with aligned vector stores (the compiler is told the
 * alignment, as TVM's codegen tells LLVM). DSO mode: the runtime is reached through the
 * function-pointer slots the loader fills. Built with clang -O3 -mavx512f (or -mavx2). */
#include <objrt/tvm_backend.h>

void *__tvm_module_ctx;
void *__TVMBackendAllocWorkspace;
void *__TVMBackendFreeWorkspace;
void *__TVMBackendParallelLaunch;
void *__TVMAPISetLastError;
const char __tvm_main__[] = "seed_kernel";

typedef void *(*alloc_fn)(int, int, uint64_t, int, int);
typedef int (*free_fn)(int, int, void *);
typedef int (*launch_fn)(FTVMParallelLambda, void *, int);
typedef void (*seterr_fn)(const char *);

typedef struct {
    float *out;
    const float *in;
    int64_t rows, cols;
} closure;

/* row r of out: ws = 2*in + 1 (aligned stores into the workspace), out = ws + reverse(ws) */
static int __tvm_parallel_lambda(int task_id, TVMParallelGroupEnv *penv, void *cdata)
{
    const closure *c = cdata;
    int64_t chunk = (c->rows + penv->num_task - 1) / penv->num_task;
    int64_t end = (task_id + 1) * chunk < c->rows ? (task_id + 1) * chunk : c->rows;
    for (int64_t r = task_id * chunk; r < end; r++) {
        float *ws = ((alloc_fn)__TVMBackendAllocWorkspace)(kDLCPU, 0, (uint64_t)c->cols * 4, kDLFloat, 32);
        const float *in = c->in + r * c->cols;
        float *out = c->out + r * c->cols;
        if (!ws)
            return -1;
#ifndef SEED_NO_ALIGN_HINT  /* the suite's negative control for its disassembly check */
        ws = __builtin_assume_aligned(ws, 64);
#endif
#ifdef PLANT_SEGV   /* planted fault (tests/suites/00-harness.sh): a kernel that crashes */
        *(volatile float *)(uintptr_t)16 = 0.0f;
#endif
        for (int64_t i = 0; i < c->cols; i++)
            ws[i] = in[i] * 2.0f + 1.0f;
        for (int64_t i = 0; i < c->cols; i++)
            out[i] = ws[i] + ws[c->cols - 1 - i];
        if (((free_fn)__TVMBackendFreeWorkspace)(kDLCPU, 0, ws) != 0)
            return -1;
    }
    return 0;
}

int seed_kernel(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    const DLTensor *in, *out;
    closure c;
    (void)ret, (void)rcode, (void)res;
    if (nargs != 2 || codes[0] != kTVMDLTensorHandle || codes[1] != kTVMDLTensorHandle) {
        ((seterr_fn)__TVMAPISetLastError)("seed_kernel: expects two tensors");
        return -1;
    }
    in = args[0].v_handle;
    out = args[1].v_handle;
    c = (closure){out->data, in->data, in->shape[0], in->shape[1]};
    return ((launch_fn)__TVMBackendParallelLaunch)(__tvm_parallel_lambda, &c, 0);
}

/* Tensor data is assumed aligned too (kAllocAlignment): aligned stores into argument 0. */
int fill_kernel(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    const DLTensor *t = args[0].v_handle;
    float *d = __builtin_assume_aligned(t->data, 64);
    (void)codes, (void)nargs, (void)ret, (void)rcode, (void)res;
    for (int64_t i = 0; i < t->shape[0]; i++)
        d[i] = 3.0f;
    return 0;
}

/* int seed_selftest(void): the seed run 1000 times from inside the loaded object (for
 * `objrt run -e seed_selftest`); 0 when every result is right. */
enum { ROWS = 64, COLS = 1000 };
static _Alignas(64) float sin_[ROWS * COLS], sout[ROWS * COLS];

int seed_selftest(void)
{
    int64_t shape[2] = {ROWS, COLS};
    DLTensor a = {sin_, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, 0, 0}, b = a;
    TVMValue args[2] = {{.v_handle = &a}, {.v_handle = &b}};
    int codes[2] = {kTVMDLTensorHandle, kTVMDLTensorHandle};
    b.data = sout;
    for (int i = 0; i < ROWS * COLS; i++)
        sin_[i] = (float)(i % 101);
    for (int iter = 0; iter < 1000; iter++) {
        if (seed_kernel(args, codes, 2, 0, 0, 0) != 0)
            return 1;
        for (int r = 0; r < ROWS; r++)
            for (int i = 0; i < COLS; i++)
                if (sout[r * COLS + i] != sin_[r * COLS + i] * 2 + 1 + sin_[r * COLS + COLS - 1 - i] * 2 + 1)
                    return 2;
    }
    return 0;
}

/* dso_kernel.c - a DSO-mode module: it reaches the runtime only through the zero-initialised
 * slots the loader fills, and __tvm_main__ names its entry. dso_main(x, y, n) computes
 * y[i] = x[i] * (i % 7) + host_offset in parallel, and fails in task 1 when asked to. */
#include <objrt/tvm_backend.h>

void *__tvm_module_ctx;
void *__TVMFuncCall;
void *__TVMAPISetLastError;
void *__TVMBackendGetFuncFromEnv;
void *__TVMBackendParallelLaunch;
void *__TVMBackendParallelBarrier;
const char __tvm_main__[] = "dso_main";

typedef struct {
    const float *x;
    float *y;
    int64_t n;
    int fail;
} closure;

static int __tvm_parallel_lambda(int task_id, TVMParallelGroupEnv *penv, void *cdata)
{
    closure *c = cdata;
    int64_t chunk = (c->n + penv->num_task - 1) / penv->num_task;
    int64_t lo = task_id * chunk, hi = lo + chunk < c->n ? lo + chunk : c->n;
#ifdef PLANT_HANG   /* planted fault (tests/suites/00-harness.sh): a kernel that never returns */
    for (volatile int spin = 1; spin;) {}
#endif
    for (int64_t i = lo; i < hi; i++)
        c->y[i] = c->x[i] * (float)(i % 7);
    if (((int (*)(int, TVMParallelGroupEnv *))__TVMBackendParallelBarrier)(task_id, penv) != 0)
        return -1;
    if (c->fail && task_id == penv->num_task - 1) {
        ((void (*)(const char *))__TVMAPISetLastError)("dso_main: injected failure");
        return -1;
    }
    return 0;
}

int dso_main(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    const DLTensor *x = args[0].v_handle, *y = args[1].v_handle;
    closure c = {x->data, y->data, x->shape[0], nargs > 2 && args[2].v_int64 != 0};
    TVMFunctionHandle h;
    TVMValue pa[2], rv;
    int pc[2] = {kTVMDLTensorHandle, kTVMArgFloat}, rc;
    (void)codes, (void)ret, (void)rcode, (void)res;
    if (((int (*)(FTVMParallelLambda, void *, int))__TVMBackendParallelLaunch)(
            __tvm_parallel_lambda, &c, 0) != 0)
        return -1;
    if (((int (*)(void *, const char *, TVMFunctionHandle *))__TVMBackendGetFuncFromEnv)(
            __tvm_module_ctx, "host_offset", &h) != 0)
        return -1;
    pa[0].v_handle = (void *)y;
    pa[1].v_float64 = 1.0;
    return ((int (*)(TVMFunctionHandle, TVMValue *, int *, int, TVMValue *, int *))__TVMFuncCall)(
        h, pa, pc, 2, &rv, &rc);
}

/* syslib_kernel.c - written the way TVM's LLVM codegen lays out a system-lib module with
 * prefix "mylib_": direct calls to the runtime, a closure struct on the caller's stack,
 * ceil(n / num_task) chunking, a barrier between two phases, a packed call through
 * TVMBackendGetFuncFromEnv, and a constructor registering everything. */
#include <objrt/tvm_backend.h>

void *mylib___tvm_module_ctx;
static const char tvm_main[] = "two_phase";

typedef struct {
    const float *a;
    float *tmp, *b;
    int64_t n;
} closure;

/* phase 1: tmp = a*a on my chunk; barrier; phase 2: b = tmp + mirror(tmp), which reads
 * the chunks of other tasks and is only right if the barrier orders the phases. */
static int __tvm_parallel_lambda(int task_id, TVMParallelGroupEnv *penv, void *cdata)
{
    closure *c = cdata;
    int64_t chunk = (c->n + penv->num_task - 1) / penv->num_task;
    int64_t lo = task_id * chunk, hi = lo + chunk < c->n ? lo + chunk : c->n;
    for (int64_t i = lo; i < hi; i++)
        c->tmp[i] = c->a[i] * c->a[i];
    if (TVMBackendParallelBarrier(task_id, penv) != 0)
        return -1;
    for (int64_t i = lo; i < hi; i++)
        c->b[i] = c->tmp[i] + c->tmp[c->n - 1 - i];
    return 0;
}

/* helper_scale(tensor, factor): t *= factor */
int mylib_helper_scale(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    const DLTensor *t = args[0].v_handle;
    float *d = t->data;
    (void)codes, (void)nargs, (void)ret, (void)rcode, (void)res;
    for (int64_t i = 0; i < t->shape[0]; i++)
        d[i] *= (float)args[1].v_float64;
    return 0;
}

/* generated code caches each handle in a static, as here */
static TVMFunctionHandle helper_scale_h, host_offset_h;

static int call_packed(TVMFunctionHandle *h, const char *name, TVMValue *args, int *codes, int n)
{
    TVMValue rv;
    int rc;
    if (!*h && TVMBackendGetFuncFromEnv(mylib___tvm_module_ctx, name, h) != 0)
        return -1;
    return TVMFuncCall(*h, args, codes, n, &rv, &rc);
}

/* two_phase(a, b): b = a^2 + mirror(a^2); b *= 0.5 (unit function); b += 1 (host function) */
int mylib_two_phase(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    const DLTensor *a, *b;
    closure c;
    TVMValue pa[2];
    int pc[2] = {kTVMDLTensorHandle, kTVMArgFloat};
    int rc;
    (void)ret, (void)rcode, (void)res;
    if (nargs != 2 || codes[0] != kTVMDLTensorHandle || codes[1] != kTVMDLTensorHandle) {
        TVMAPISetLastError("two_phase: expects two tensors");
        return -1;
    }
    a = args[0].v_handle;
    b = args[1].v_handle;
    c = (closure){a->data, NULL, b->data, a->shape[0]};
    c.tmp = TVMBackendAllocWorkspace(kDLCPU, 0, (uint64_t)c.n * 4, kDLFloat, 32);
    if (!c.tmp)
        return -1;
    rc = TVMBackendParallelLaunch(__tvm_parallel_lambda, &c, 0);
    if (TVMBackendFreeWorkspace(kDLCPU, 0, c.tmp) != 0 || rc != 0)
        return -1;
    pa[0].v_handle = (void *)b;
    pa[1].v_float64 = 0.5;
    if (call_packed(&helper_scale_h, "helper_scale", pa, pc, 2) != 0)
        return -1;
    pa[1].v_float64 = 1.0;
    return call_packed(&host_offset_h, "host_offset", pa, pc, 2);
}

__attribute__((constructor)) static void __tvm_module_startup(void)
{
    TVMBackendRegisterSystemLibSymbol("mylib_two_phase", (void *)mylib_two_phase);
    TVMBackendRegisterSystemLibSymbol("mylib_helper_scale", (void *)mylib_helper_scale);
    TVMBackendRegisterSystemLibSymbol("mylib___tvm_main__", (void *)tvm_main);
    TVMBackendRegisterSystemLibSymbol("mylib___tvm_module_ctx", &mylib___tvm_module_ctx);
}

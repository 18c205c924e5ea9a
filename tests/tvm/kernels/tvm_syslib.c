/* tvm_syslib.c - a system-lib module laid out as TVM's LLVM codegen emits one (no prefix):
 * packed functions that check their arguments first, parallel loops as a lambda plus a
 * closure on the caller's stack, a workspace from TVMBackendAllocWorkspace, and a
 * constructor registering every function, __tvm_main__ and the module context.
 *   add(A f32[n], B f32[n], C f32[n]):            C = A + B
 *   matmul(A f32[m,k], B f32[k,n], C f32[m,n]):    C = A @ B (B transposed into a workspace)
 */
#define KERNEL_SET_ERROR(msg) TVMAPISetLastError(msg)
#include "tvm_args.h"

void *__tvm_module_ctx;
static const char tvm_main[] = "add";

typedef struct { const float *a, *b; float *c; int64_t n; } add_closure;

static int add_lambda(int task_id, TVMParallelGroupEnv *penv, void *cdata)
{
    add_closure *c = cdata;
    int64_t chunk = (c->n + penv->num_task - 1) / penv->num_task;
    int64_t lo = task_id * chunk, hi = lo + chunk < c->n ? lo + chunk : c->n;
    for (int64_t i = lo; i < hi; i++)
        c->c[i] = c->a[i] + c->b[i];
    return 0;
}

int add(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)ret, (void)rcode, (void)res;
    if (check_nargs("add", nargs, 3) != 0 ||
        check_tensor("add", "A", args, codes, 0, kDLFloat, 32, 1, (int64_t[]){-1}) != 0)
        return -1;
    int64_t n = ((DLTensor *)args[0].v_handle)->shape[0];
    if (check_tensor("add", "B", args, codes, 1, kDLFloat, 32, 1, &n) != 0 ||
        check_tensor("add", "C", args, codes, 2, kDLFloat, 32, 1, &n) != 0)
        return -1;
    add_closure c = {((DLTensor *)args[0].v_handle)->data, ((DLTensor *)args[1].v_handle)->data,
                     ((DLTensor *)args[2].v_handle)->data, n};
    return TVMBackendParallelLaunch(add_lambda, &c, 0);
}

typedef struct { const float *a, *bt; float *c; int64_t m, k, n; } mm_closure;

static int mm_lambda(int task_id, TVMParallelGroupEnv *penv, void *cdata)
{
    mm_closure *c = cdata;
    int64_t chunk = (c->m + penv->num_task - 1) / penv->num_task;
    int64_t lo = task_id * chunk, hi = lo + chunk < c->m ? lo + chunk : c->m;
    for (int64_t i = lo; i < hi; i++)
        for (int64_t j = 0; j < c->n; j++) {
            float s = 0;
            for (int64_t p = 0; p < c->k; p++)
                s += c->a[i * c->k + p] * c->bt[j * c->k + p];
            c->c[i * c->n + j] = s;
        }
    return 0;
}

int matmul(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)ret, (void)rcode, (void)res;
    if (check_nargs("matmul", nargs, 3) != 0 ||
        check_tensor("matmul", "A", args, codes, 0, kDLFloat, 32, 2, (int64_t[]){-1, -1}) != 0)
        return -1;
    const DLTensor *A = args[0].v_handle;
    int64_t m = A->shape[0], k = A->shape[1];
    if (check_tensor("matmul", "B", args, codes, 1, kDLFloat, 32, 2, (int64_t[]){k, -1}) != 0)
        return -1;
    int64_t n = ((DLTensor *)args[1].v_handle)->shape[1];
    if (check_tensor("matmul", "C", args, codes, 2, kDLFloat, 32, 2, (int64_t[]){m, n}) != 0)
        return -1;
    const float *b = ((DLTensor *)args[1].v_handle)->data;
    float *bt = TVMBackendAllocWorkspace(kDLCPU, 0, (uint64_t)(k * n * 4), kDLFloat, 32);
    if (!bt)
        return -1;
    for (int64_t p = 0; p < k; p++)
        for (int64_t j = 0; j < n; j++)
            bt[j * k + p] = b[p * n + j];
    mm_closure c = {A->data, bt, ((DLTensor *)args[2].v_handle)->data, m, k, n};
    int rc = TVMBackendParallelLaunch(mm_lambda, &c, 0);
    if (TVMBackendFreeWorkspace(kDLCPU, 0, bt) != 0)
        return -1;
    return rc;
}

__attribute__((constructor)) static void __tvm_module_startup(void)
{
    TVMBackendRegisterSystemLibSymbol("add", (void *)add);
    TVMBackendRegisterSystemLibSymbol("matmul", (void *)matmul);
    TVMBackendRegisterSystemLibSymbol("__tvm_main__", (void *)tvm_main);
    TVMBackendRegisterSystemLibSymbol("__tvm_module_ctx", &__tvm_module_ctx);
}

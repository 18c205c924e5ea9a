/* tvm_dso.c - a DSO-mode module as TVM's LLVM codegen emits one for export_library: it
 * reaches the runtime only through zero-initialised slots the loader fills, and
 * __tvm_main__ names its entry.
 *   affine_i32(X i32[n], Y i32[n]):             Y = 3 X - 7 (parallel)
 *   mask_f64(X f64[n], M bool[n], Y f64[n]):    Y = M ? -X : X / 2 (workspace, parallel)
 *   copy_bytes(X, Y):                           Y's bytes = X's (any dtype, same size)
 *   always_fails(X):                            fails with its own error text
 */
#define KERNEL_SET_ERROR(msg) ((void (*)(const char *))__TVMAPISetLastError)(msg)
void *__TVMAPISetLastError;
#include "tvm_args.h"

void *__tvm_module_ctx;
void *__TVMBackendParallelLaunch;
void *__TVMBackendAllocWorkspace;
void *__TVMBackendFreeWorkspace;
const char __tvm_main__[] = "affine_i32";

#define LAUNCH(f, c) ((int (*)(FTVMParallelLambda, void *, int))__TVMBackendParallelLaunch)(f, c, 0)

typedef struct { const int32_t *x; int32_t *y; int64_t n; } affine_closure;

static int affine_lambda(int task_id, TVMParallelGroupEnv *penv, void *cdata)
{
    affine_closure *c = cdata;
    int64_t chunk = (c->n + penv->num_task - 1) / penv->num_task;
    int64_t lo = task_id * chunk, hi = lo + chunk < c->n ? lo + chunk : c->n;
    for (int64_t i = lo; i < hi; i++)
        c->y[i] = 3 * c->x[i] - 7;
    return 0;
}

int affine_i32(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)ret, (void)rcode, (void)res;
    if (check_nargs("affine_i32", nargs, 2) != 0 ||
        check_tensor("affine_i32", "X", args, codes, 0, kDLInt, 32, 1, (int64_t[]){-1}) != 0)
        return -1;
    int64_t n = ((DLTensor *)args[0].v_handle)->shape[0];
    if (check_tensor("affine_i32", "Y", args, codes, 1, kDLInt, 32, 1, &n) != 0)
        return -1;
    affine_closure c = {((DLTensor *)args[0].v_handle)->data, ((DLTensor *)args[1].v_handle)->data, n};
    return LAUNCH(affine_lambda, &c);
}

typedef struct { const double *x; const uint8_t *m; double *tmp; int64_t n; } mask_closure;

static int mask_lambda(int task_id, TVMParallelGroupEnv *penv, void *cdata)
{
    mask_closure *c = cdata;
    int64_t chunk = (c->n + penv->num_task - 1) / penv->num_task;
    int64_t lo = task_id * chunk, hi = lo + chunk < c->n ? lo + chunk : c->n;
    for (int64_t i = lo; i < hi; i++)
        c->tmp[i] = c->m[i] ? -c->x[i] : c->x[i] / 2;
    return 0;
}

int mask_f64(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)ret, (void)rcode, (void)res;
    if (check_nargs("mask_f64", nargs, 3) != 0 ||
        check_tensor("mask_f64", "X", args, codes, 0, kDLFloat, 64, 1, (int64_t[]){-1}) != 0)
        return -1;
    int64_t n = ((DLTensor *)args[0].v_handle)->shape[0];
    if (check_tensor("mask_f64", "M", args, codes, 1, kDLUInt, 1, 1, &n) != 0 ||
        check_tensor("mask_f64", "Y", args, codes, 2, kDLFloat, 64, 1, &n) != 0)
        return -1;
    double *tmp = ((void *(*)(int, int, uint64_t, int, int))__TVMBackendAllocWorkspace)(
        kDLCPU, 0, (uint64_t)n * 8, kDLFloat, 64);
    if (!tmp)
        return -1;
    mask_closure c = {((DLTensor *)args[0].v_handle)->data, ((DLTensor *)args[1].v_handle)->data,
                      tmp, n};
    int rc = LAUNCH(mask_lambda, &c);
    double *y = ((DLTensor *)args[2].v_handle)->data;
    for (int64_t i = 0; rc == 0 && i < n; i++)
        y[i] = tmp[i];
    if (((int (*)(int, int, void *))__TVMBackendFreeWorkspace)(kDLCPU, 0, tmp) != 0)
        return -1;
    return rc;
}

static int64_t nbytes(const DLTensor *t)
{
    int64_t n = (t->dtype.bits * t->dtype.lanes + 7) / 8;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

int copy_bytes(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)codes, (void)ret, (void)rcode, (void)res;
    if (check_nargs("copy_bytes", nargs, 2) != 0)
        return -1;
    const DLTensor *x = args[0].v_handle, *y = args[1].v_handle;
    if (nbytes(x) != nbytes(y))
        return kernel_error("copy_bytes: X has %lld bytes, Y %lld", (long long)nbytes(x),
                            (long long)nbytes(y));
    for (int64_t i = 0; i < nbytes(x); i++)
        ((char *)y->data)[i] = ((const char *)x->data)[i];
    return 0;
}

int always_fails(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    (void)args, (void)codes, (void)nargs, (void)ret, (void)rcode, (void)res;
    return kernel_error("always_fails: the kernel's own message (%d)", 42);
}

/* kernel.c - a kernel in the shape of TVM-FFI codegen output (TVM 0.21-0.26), one source
 * for every release and mode:
 *   -DTVM=21|22|24|26   the release whose codegen this mimics (22 stands for 0.22-0.23,
 *                       24 for 0.24-0.25)
 *   -DSYSLIB=PREFIX     system-lib mode with that prefix (functions called directly,
 *                       registered by a constructor); otherwise DSO mode (context slots)
 * Functions (the packed wrapper checks its arguments with TVM's messages, then calls an
 * inner function, as codegen does):
 *   add(A: Tensor([n], float32), B: Tensor([n], float32), C: Tensor([n], float32))
 *   par(X: Tensor([n], float32), Y: Tensor([n], float32), T: Tensor([1], int32)):
 *       a parallel closure; each task takes a 128-byte aligned workspace, stores into it
 *       with aligned vector stores, meets the others at a barrier, then writes its chunk:
 *       Y = X * 2 + T[0] where T[0] = num_task
 *   callg(a: int, b: int) -> int: host.mul(a, b) + 1, found from the library context
 *   miss() -> raises: a packed function nobody defines
 *   nokind() -> raises an error with a NULL kind (shown as RuntimeError, as tvm-ffi's Python
 *       side maps an unknown kind)
 *   unfilled() (DSO mode): calls through a slot no runtime fills (__TVMFFIEnvGetStream):
 *       a NULL call, as under TVM
 *   notfn: a data object named like a function (objrt refuses to call it)
 *   main: the entry (add) */
#include <stdint.h>
#include <string.h>
#include "objrt/tvm_ffi.h"
#include "objrt/tvm_backend.h"

#ifndef TVM
#error "define TVM (21, 22, 24 or 26)"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)
#ifdef SYSLIB
#define PFX STR(SYSLIB)
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#else
#define PFX ""
#endif

/* 0.21: NDArray (72) with the DLTensor at +16; 0.22+: Tensor (70) at +24 */
#if TVM == 21
#define TENSOR_INDEX 72
#define TENSOR_OFF 16
#else
#define TENSOR_INDEX 70
#define TENSOR_OFF 24
#endif

/* The names each release gives the symbols. */
#if TVM == 21
#define FN(n) n
#else
#define FN(n) __tvm_ffi_##n
#endif

/* ---- what the unit calls: slots in DSO mode, the functions in system-lib mode ---- */
#ifdef SYSLIB
#define CALL_RAISE TVMFFIErrorSetRaisedFromCStr
#define CALL_FUNC TVMFFIFunctionCall
#define CALL_LAUNCH TVMBackendParallelLaunch
#define CALL_BARRIER TVMBackendParallelBarrier
#define CALL_ALLOC TVMBackendAllocWorkspace
#define CALL_FREE TVMBackendFreeWorkspace
#define CALL_GETFUNC TVMBackendGetFuncFromEnv
#define CALL_LOOKUP TVMFFIEnvModLookupFromImports
#define CALL_INITONCE TVMFFIHandleInitOnce
#if TVM == 21
static void *CAT(SYSLIB, __tvm_ffi_library_ctx);
#define LIBCTX CAT(SYSLIB, __tvm_ffi_library_ctx)
#else
static void *CAT(SYSLIB, __tvm_ffi__library_ctx);
#define LIBCTX CAT(SYSLIB, __tvm_ffi__library_ctx)
#endif
#else
#define SLOT(ret, name, ...) __attribute__((weak)) ret (*__##name)(__VA_ARGS__) = 0
SLOT(void, TVMFFIErrorSetRaisedFromCStr, const char *, const char *);
SLOT(int, TVMFFIFunctionCall, TVMFFIObjectHandle, TVMFFIAny *, int32_t, TVMFFIAny *);
SLOT(int, TVMBackendParallelLaunch, FTVMParallelLambda, void *, int);
SLOT(int, TVMBackendParallelBarrier, int, TVMParallelGroupEnv *);
SLOT(void *, TVMBackendAllocWorkspace, int, int, uint64_t, int, int);
SLOT(int, TVMBackendFreeWorkspace, int, int, void *);
#if TVM == 26
SLOT(int, TVMFFIEnvModLookupFromImports, void *, const char *, TVMFFIObjectHandle *);
SLOT(int, TVMFFIHandleInitOnce, void **, int (*)(void **));
#else
SLOT(int, TVMBackendGetFuncFromEnv, void *, const char *, void **);
#endif
#define CALL_RAISE (*__TVMFFIErrorSetRaisedFromCStr)
#define CALL_FUNC (*__TVMFFIFunctionCall)
#define CALL_LAUNCH (*__TVMBackendParallelLaunch)
#define CALL_BARRIER (*__TVMBackendParallelBarrier)
#define CALL_ALLOC (*__TVMBackendAllocWorkspace)
#define CALL_FREE (*__TVMBackendFreeWorkspace)
#define CALL_GETFUNC (*__TVMBackendGetFuncFromEnv)
#define CALL_LOOKUP (*__TVMFFIEnvModLookupFromImports)
#define CALL_INITONCE (*__TVMFFIHandleInitOnce)
#if TVM == 21
__attribute__((weak)) void *__tvm_ffi_library_ctx = 0;
#define LIBCTX __tvm_ffi_library_ctx
#else
__attribute__((weak)) void *__tvm_ffi__library_ctx = 0;
#define LIBCTX __tvm_ffi__library_ctx
#endif
#endif

/* ---- errors: 0.21-0.23 one string, RuntimeError; 0.24+ parts through a noinline helper,
 * called directly even in DSO mode ---- */
#if TVM >= 24
__attribute__((noinline)) static void __tvm_set_raised_3(const char *kind, const char *a,
                                                         const char *b, const char *c)
{
    const char *parts[3] = { a, b, c };
    TVMFFIErrorSetRaisedFromCStrParts(kind, parts, 3);
}
#define SIG_ADD "`add(A: Tensor([n], float32), B: Tensor([n], float32), C: Tensor([n], float32))`"
#define SIG_PAR "`par(X: Tensor([n], float32), Y: Tensor([n], float32), T: Tensor([1], int32))`"
#define FAIL(kind, old, new_a, new_b) \
    do { __tvm_set_raised_3(kind, new_a, " when calling:\n  ", new_b); return -1; } while (0)
#else
#define FAIL(kind, old, new_a, new_b) \
    do { CALL_RAISE("RuntimeError", old); return -1; } while (0)
#endif

/* arg i as a DLTensor, or NULL when its type index is not a pointer TVM accepts */
static DLTensor *tensor_arg(const TVMFFIAny *a)
{
    if (a->type_index == kTVMFFIDLTensorPtr || a->type_index == kTVMFFIOpaquePtr)
        return a->v_ptr;
    if (a->type_index == TENSOR_INDEX)
        return (DLTensor *)((char *)a->v_ptr + TENSOR_OFF);
    return NULL;
}

static int is_f32_vec(const DLTensor *t) { return t->dtype.code == kDLFloat && t->dtype.bits == 32 && t->dtype.lanes == 1; }

static void add_compute(const float *a, const float *b, float *c, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

int FN(add)(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result)
{
    DLTensor *t[3];
    (void)self;
    if (num_args != 3)
        FAIL("TypeError", "add: num_args should be 3", "Expected 3 arguments", SIG_ADD);
    for (int i = 0; i < 3; i++)
        if (!(t[i] = tensor_arg(&args[i])))
            FAIL("TypeError", i == 0 ? "add: Expect arg[0] to be pointer" : i == 1 ?
                 "add: Expect arg[1] to be pointer" : "add: Expect arg[2] to be pointer",
                 i == 0 ? "Mismatched type on argument #0" : i == 1 ?
                 "Mismatched type on argument #1" : "Mismatched type on argument #2",
                 SIG_ADD ", expected Tensor");
    for (int i = 0; i < 3; i++) {
        if (t[i]->ndim != 1)
            FAIL("ValueError", "add.A.ndim is expected to equal 1", "Mismatched A.ndim on argument #0", SIG_ADD ", expected 1");
        if (!is_f32_vec(t[i]))
            FAIL("TypeError", "add.A.dtype is expected to be float32", "Mismatched A.dtype on argument #0", SIG_ADD ", expected float32");
    }
    if (t[1]->shape[0] != t[0]->shape[0])
        FAIL("ValueError", "Argument add.B.shape[0] has an unsatisfied constraint: n == B.shape[0]",
             "Mismatched B.shape[0] on argument #1", SIG_ADD ", expected to match A.shape[0]");
    if (t[2]->shape[0] != t[0]->shape[0])
        FAIL("ValueError", "Argument add.C.shape[0] has an unsatisfied constraint: n == C.shape[0]",
             "Mismatched C.shape[0] on argument #2", SIG_ADD ", expected to match A.shape[0]");
    add_compute(t[0]->data, t[1]->data, t[2]->data, t[0]->shape[0]);
    result->type_index = kTVMFFINone;
    return 0;
}

/* ---- the parallel closure with a workspace and a barrier ---- */
typedef struct { const float *x; float *y; int64_t n; int32_t *nt; } par_closure;
typedef float v8f __attribute__((vector_size(32)));

static int __tvm_parallel_lambda(int task_id, TVMParallelGroupEnv *penv, void *cdata)
{
    par_closure *c = cdata;
    int32_t nt = penv->num_task;
    int64_t chunk = (c->n + nt - 1) / nt, lo = task_id * chunk, hi = lo + chunk < c->n ? lo + chunk : c->n;
    float *ws = CALL_ALLOC(kDLCPU, 0, 512, kDLFloat, 32);
    if (!ws)
        return -1;
    if ((uintptr_t)ws % 128) {                /* what the stores below are compiled to assume */
        CALL_FREE(kDLCPU, 0, ws);
        CALL_RAISE("RuntimeError", "par: workspace is not 128-byte aligned");
        return -1;
    }
    v8f *w = __builtin_assume_aligned(ws, 128);
    for (int i = 0; i < 16; i++)              /* aligned stores; a misaligned pointer faults */
        w[i] = (v8f){ 2, 2, 2, 2, 2, 2, 2, 2 };
    if (CALL_BARRIER(task_id, penv) != 0)
        return -1;
    for (int64_t i = lo; i < hi; i++)
        c->y[i] = c->x[i] * ((float *)w)[i % 128] + (float)nt;
    if (task_id == 0)
        c->nt[0] = nt;
    return CALL_FREE(kDLCPU, 0, ws);
}

int FN(par)(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result)
{
    DLTensor *t[3];
    (void)self;
    if (num_args != 3)
        FAIL("TypeError", "par: num_args should be 3", "Expected 3 arguments", SIG_PAR);
    for (int i = 0; i < 3; i++)
        if (!(t[i] = tensor_arg(&args[i])))
            FAIL("TypeError", "par: Expect arg to be pointer", "Mismatched type on argument", SIG_PAR ", expected Tensor");
    if (t[0]->shape[0] != t[1]->shape[0])
        FAIL("ValueError", "Argument par.Y.shape[0] has an unsatisfied constraint",
             "Mismatched Y.shape[0] on argument #1", SIG_PAR ", expected to match X.shape[0]");
    par_closure c = { t[0]->data, t[1]->data, t[0]->shape[0], t[2]->data };
    if (CALL_LAUNCH(__tvm_parallel_lambda, &c, 0) != 0)
        return -1;
    result->type_index = kTVMFFINone;
    return 0;
}

/* ---- packed calls into the environment ---- */
#if TVM == 26
static void *h_mul, *h_miss;
static int init_mul(void **out) { return CALL_LOOKUP(LIBCTX, "host.mul", out); }
static int init_miss(void **out) { return CALL_LOOKUP(LIBCTX, "no.such.function", out); }
#define GET(h, init, name) (CALL_INITONCE(&h, init) == 0 ? 0 : -1)
#else
static void *h_mul, *h_miss;
#define GET(h, init, name) (h || CALL_GETFUNC(LIBCTX, name, &h) == 0 ? 0 : -1)
#endif

int FN(callg)(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result)
{
    TVMFFIAny a[2], r;
    (void)self;
    if (num_args != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt)
        FAIL("TypeError", "callg: expects two ints", "Mismatched type on argument #0", "`callg(a: int, b: int)`, expected int");
    if (GET(h_mul, init_mul, "host.mul") != 0)
        return -1;
    a[0] = args[0];
    a[1] = args[1];
    r.type_index = kTVMFFINone;
    if (CALL_FUNC(h_mul, a, 2, &r) != 0)
        return -1;
    result->type_index = kTVMFFIInt;
    result->zero_padding = 0;
    result->v_int64 = r.v_int64 + 1;
    return 0;
}

int FN(miss)(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result)
{
    (void)self, (void)args, (void)num_args, (void)result;
    return GET(h_miss, init_miss, "no.such.function");
}

int FN(nokind)(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result)
{
    (void)self, (void)args, (void)num_args, (void)result;
    TVMFFIErrorSetRaisedFromCStr(NULL, "an error without a kind");
    return -1;
}

#ifndef SYSLIB
__attribute__((weak)) void *(*__TVMFFIEnvGetStream)(int32_t, int32_t) = 0;
int FN(unfilled)(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result)
{
    (void)self, (void)args, (void)num_args;
    result->type_index = kTVMFFIOpaquePtr;
    result->v_ptr = (*__TVMFFIEnvGetStream)(kDLCPU, 0);
    return 0;
}
#endif

int FN(notfn)[4] = { 1, 2, 3, 4 };

/* ---- the entry ---- */
#if TVM == 21
__attribute__((weak)) const char __tvm_main__[] = "add";
#else
__attribute__((weak)) int __tvm_ffi_main(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *r)
{
    return __tvm_ffi_add(self, args, n, r);
}
#endif

/* ---- system-lib registration, from the startup constructor ---- */
#ifdef SYSLIB
__attribute__((constructor(65535))) static void __tvm_module_startup(void)
{
#if TVM == 21
    TVMBackendRegisterSystemLibSymbol(PFX "add", (void *)add);
    TVMBackendRegisterSystemLibSymbol(PFX "par", (void *)par);
    TVMBackendRegisterSystemLibSymbol(PFX "callg", (void *)callg);
    TVMBackendRegisterSystemLibSymbol(PFX "miss", (void *)miss);
    TVMBackendRegisterSystemLibSymbol("__tvm_main__", (void *)__tvm_main__);
    TVMBackendRegisterSystemLibSymbol(PFX "__tvm_ffi_library_ctx", &LIBCTX);
#else
    TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_" PFX "add", (void *)__tvm_ffi_add);
    TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_" PFX "par", (void *)__tvm_ffi_par);
    TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_" PFX "callg", (void *)__tvm_ffi_callg);
    TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_" PFX "miss", (void *)__tvm_ffi_miss);
    TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_" PFX "main", (void *)__tvm_ffi_main);
    TVMFFIEnvModRegisterSystemLibSymbol(PFX "__tvm_ffi__library_ctx", &LIBCTX);
#endif
}
#endif

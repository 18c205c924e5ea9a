/*
 * objrt/tvm_backend.h - the kernel runtime: TVM's C backend ABI, and objrt's native API
 *
 * SYNOPSIS
 *     #include <objrt/tvm_backend.h>
 *
 * DESCRIPTION
 *     Compiled TVM CPU kernels (and any code written to the same ABI) call the TVM* functions
 *     below. libobjrt exports them with TVM's exact signatures and layouts, and binds them
 *     automatically into code objrt loads (see objrt.h). Types come from the reference
 *     <dlpack/dlpack.h>.
 *
 *     Workspaces: TVMBackendAllocWorkspace returns memory aligned to OBJRT_WS_ALIGN (128,
 *     correct for every TVM release) from a pool private to the calling thread. Frees are
 *     fastest in LIFO order but any order is accepted; a workspace must be freed by the
 *     thread that allocated it. A pool's memory goes back to the system when its thread
 *     exits (or on objrt_ws_trim()).
 *
 *     Parallel launch: a lazily created pool of TVM_NUM_THREADS, else OMP_NUM_THREADS, else
 *     usable-core threads (the caller counts as one and runs task 0). num_task == 0 means
 *     all threads, more are clamped; penv->num_task holds the real count. A launch from
 *     inside a task runs serially with num_task = 1. Launches from several threads are
 *     served one at a time. Idle workers spin OBJRT_SPIN_US microseconds (default 200),
 *     then sleep. Workers are pinned only when TVM_BIND_THREADS=1 (one core each) or
 *     OBJRT_CPUS lists cores ("0,2-3"). After fork() the child builds a fresh pool.
 *
 *     Diagnostics: with OBJRT_CHECK_ALIGN=1 every workspace pointer and every DLTensor data
 *     pointer passed through TVMFuncCall is checked against the alignment the ABI promises
 *     (OBJRT_WS_ALIGN, OBJRT_TENSOR_ALIGN); a violation is reported on stderr naming the
 *     kernel and argument, and the call fails with -1 instead of faulting.
 *
 * RETURN VALUE
 *     TVM functions return 0 on success, -1 on failure with TVMGetLastError() describing it;
 *     TVMBackendAllocWorkspace returns NULL on failure (out of memory included).
 */
#ifndef OBJRT_TVM_BACKEND_H
#define OBJRT_TVM_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <dlpack/dlpack.h>

#include "../objrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- TVM ABI types (include/tvm/runtime/c_runtime_api.h, c_backend_api.h) ---- */

typedef union {
    int64_t v_int64;
    double v_float64;
    void *v_handle;
    const char *v_str;
    DLDataType v_type;
    DLDevice v_device;
} TVMValue;

/* Type codes of packed-call arguments. 0..2 are DLPack's kDLInt, kDLUInt, kDLFloat. */
typedef enum {
    kTVMArgInt = kDLInt,
    kTVMArgFloat = kDLFloat,
    kTVMOpaqueHandle = 3U,
    kTVMNullptr = 4U,
    kTVMDataType = 5U,
    kDLDevice = 6U,
    kTVMDLTensorHandle = 7U,
    kTVMObjectHandle = 8U,
    kTVMModuleHandle = 9U,
    kTVMPackedFuncHandle = 10U,
    kTVMStr = 11U,
    kTVMBytes = 12U,
    kTVMNDArrayHandle = 13U,
} TVMArgTypeCode;

typedef void *TVMFunctionHandle;

typedef struct {
    void *sync_handle;
    int32_t num_task;
} TVMParallelGroupEnv;

typedef int (*FTVMParallelLambda)(int task_id, TVMParallelGroupEnv *penv, void *cdata);

/* The signature of every compiled kernel. */
typedef int (*TVMBackendPackedCFunc)(TVMValue *args, int *type_codes, int num_args,
                                     TVMValue *out_ret_value, int *out_ret_tcode,
                                     void *resource_handle);

/* ---- TVM ABI functions ---- */

void *TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint);
int TVMBackendFreeWorkspace(int device_type, int device_id, void *ptr);
int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void *cdata, int num_task);
int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv *penv);
void TVMAPISetLastError(const char *msg);
const char *TVMGetLastError(void);
int TVMBackendGetFuncFromEnv(void *mod_node, const char *func_name, TVMFunctionHandle *out);
int TVMFuncCall(TVMFunctionHandle func, TVMValue *arg_values, int *type_codes, int num_args,
                TVMValue *ret_val, int *ret_type_code);
int TVMBackendRegisterSystemLibSymbol(const char *name, void *ptr);
int TVMBackendRunOnce(void **handle, int (*f)(void *), void *cdata, int nbytes);

/* ---- objrt native API for the same services ---- */

#define OBJRT_WS_ALIGN 128     /* every workspace pointer (TVM v0.7-v0.9 kTempAllocaAlignment) */
#define OBJRT_TENSOR_ALIGN 64  /* DLTensor data (TVM kAllocAlignment) */

/* Workspaces of the calling thread's pool (same rules as the TVM calls). */
void *objrt_ws_alloc(size_t nbytes);
int objrt_ws_free(void *ptr);
/* Return the calling thread's cached (free) workspace memory to the system. */
void objrt_ws_trim(void);
/* Bytes currently obtained from the system by all workspace pools of the process. */
size_t objrt_ws_reserved_bytes(void);

/* Parallel launch and barrier, as TVMBackendParallelLaunch / TVMBackendParallelBarrier. */
int objrt_parallel_launch(FTVMParallelLambda fn, void *cdata, int num_task);
int objrt_parallel_barrier(int task_id, TVMParallelGroupEnv *penv);
/* Threads a launch of num_task == 0 uses (creates nothing). */
int objrt_num_threads(void);
/* Use n threads from the next launch on (n <= 0: back to the environment's choice).
 * Joins the current workers; must not be called from inside a task. Returns 0 or -1. */
int objrt_set_num_threads(int n);

/* Thread-local last error, printf-style setter (TVMAPISetLastError sets it verbatim). */
void objrt_set_last_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *objrt_last_error(void);

/* Packed functions. A host registers its own so that loaded kernels find them through
 * TVMBackendGetFuncFromEnv (a unit's own functions come first). Returns 0 or -1. */
int objrt_register_packed(const char *name, TVMBackendPackedCFunc fn);
/* A callable handle (for TVMFuncCall) of packed function `name` of `unit`, or NULL. */
TVMFunctionHandle objrt_tvm_func(objrt_unit *unit, const char *name);
/* The handle of the function named by the unit's __tvm_main__ string, or NULL. */
TVMFunctionHandle objrt_tvm_main(objrt_unit *unit);
/* The kernel a handle calls, and its name ("" when unknown). */
TVMBackendPackedCFunc objrt_tvm_func_ptr(TVMFunctionHandle f);
const char *objrt_tvm_func_name(TVMFunctionHandle f);

#ifdef __cplusplus
}
#endif
#endif /* OBJRT_TVM_BACKEND_H */

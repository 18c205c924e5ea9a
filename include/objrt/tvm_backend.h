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
 *     served one at a time. Task ids 0..num_task-1 each run exactly once, but task i > 0
 *     need not run on worker i: a task no thread has started yet is run by a thread that
 *     is in no task of the launch (the caller after task 0, an idle worker), so the caller
 *     never waits for a worker that has no CPU. Tasks that call the barrier always run at
 *     the same time on distinct threads. OBJRT_STEAL=0 turns this off (diagnostics).
 *     A waiting thread spins while the launch makes progress, then for up to
 *     OBJRT_SPIN_US microseconds (default 200, at most 1000000; a value that is not a
 *     number means the default) unless another runtime thread shares its core and the
 *     core is wanted, then sleeps. As in TVM, workers are pinned by default, one usable
 *     core each (the caller's core last), when the threads fit the cores;
 *     TVM_BIND_THREADS=0 turns that off and OBJRT_CPUS lists the cores ("0,2-3"). The
 *     calling thread is never pinned. After fork() the child builds a fresh pool.
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

#pragma GCC visibility push(default)     /* the public API (objrt.h) */

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

/* ---- TVM C host API (include/tvm/runtime/c_runtime_api.h) ----
 *
 * What a host program written against TVM's C runtime API calls; such a program runs on
 * objrt by relinking with libobjrt. Tensors are CPU only (device_type kDLCPU, device_id 0).
 *
 * TVMArrayAlloc allocates a DLTensor with C-order shape and no strides; its data is
 * aligned to OBJRT_TENSOR_ALIGN (TVM's kAllocAlignment) and zero-filled. dtype_bits must
 * be 1 (bool) or a multiple of 8; an element takes (bits * lanes + 7) / 8 bytes. The
 * handle is the DLTensor itself (as in TVM), freed with TVMArrayFree. CopyFromBytes /
 * CopyToBytes copy exactly the tensor's size: nbytes must equal it.
 *
 * TVMFuncGetGlobal finds a host function registered with objrt_register_packed and the
 * built-in "runtime.SystemLib". Calling that one (with no argument, or a kTVMStr prefix)
 * returns, as kTVMModuleHandle, the system library: every system-lib registration made by
 * constructors of the host program itself and of loaded units (a unit's own prefix
 * honoured), searched as "<prefix>name" then "name", host first, then units latest first.
 * objrt_tvm_module(unit) is the module handle of one loaded unit, the same pointer its
 * __tvm_module_ctx holds. TVMModGetFunction looks a name up in a module (registrations,
 * then the unit's exported symbols, then host functions; "__tvm_main__" means the function
 * that string names) and sets *out to NULL, returning 0, when it is absent.
 *
 * Lifetimes: module and function handles belong to their unit and stay valid until
 * objrt_unload(); the system library and host functions live as long as the process.
 * TVMFuncFree and TVMModFree therefore release nothing; they accept any handle objrt
 * returned (and NULL) and return 0.
 */
typedef int64_t tvm_index_t;
typedef DLTensor *TVMArrayHandle;
typedef void *TVMModuleHandle;

int TVMArrayAlloc(const tvm_index_t *shape, int ndim, int dtype_code, int dtype_bits,
                  int dtype_lanes, int device_type, int device_id, TVMArrayHandle *out);
int TVMArrayFree(TVMArrayHandle handle);
int TVMArrayCopyFromBytes(TVMArrayHandle handle, void *data, size_t nbytes);
int TVMArrayCopyToBytes(TVMArrayHandle handle, void *data, size_t nbytes);
int TVMFuncGetGlobal(const char *name, TVMFunctionHandle *out);
int TVMModGetFunction(TVMModuleHandle mod, const char *func_name, int query_imports,
                      TVMFunctionHandle *out);
int TVMFuncFree(TVMFunctionHandle func);
int TVMModFree(TVMModuleHandle mod);

/* The objrt_* functions below given a unit are calls on its context (objrt.h, "Threads"):
 * objrt_free() waits for them, and refuses them once it has begun; a unit no longer loaded
 * gets their failure value and "unit 0x...: not a loaded unit" as the last error, unread.
 * The module handle of a loaded unit (NULL, last error set, for a unit objrt does not know). */
TVMModuleHandle objrt_tvm_module(objrt_unit *unit);

/* Bytes of a CPU tensor's data (elements * element size), or -1 when the shape or dtype is
 * invalid or the product overflows. */
int64_t objrt_tensor_nbytes(const DLTensor *t);

/* ---- AOT entry points (TVM's AOT executor, C interface, "unpacked" API) ----
 *
 * TVM emits int32_t tvmgen_<name>_run(struct tvmgen_<name>_inputs *, struct
 * tvmgen_<name>_outputs *), each struct being one void * data pointer per tensor, in the
 * order of the model's inputs and outputs. objrt_aot_run calls entry `name` (a symbol or
 * system-lib registration of `unit`) with those pointers taken from the given tensors.
 * Raw pointers carry no shape: the caller must pass tensors of the sizes the model was
 * compiled for. Returns the entry's result (0 on success), or -1 with the last error set
 * when the entry is missing or an argument is NULL; on a nonzero result the last error is
 * the kernel's. Entries taking workspace-pool or device structs are not supported. A
 * TVM 0.8 unit's tvmgen_<name>_run (packed; the unit defines tvmgen_<name>_run_model and
 * no tvmgen_<name>___tvm_main__) is refused with -1 rather than miscalled. */
int objrt_aot_run(objrt_unit *unit, const char *name, DLTensor *const *inputs, int ninputs,
                  DLTensor *const *outputs, int noutputs);

/* TVM 0.8's AOT model function, int32_t tvmgen_<name>_run_model(void *in0, ..., void *out0):
 * one raw data pointer per input then per output, as positional arguments (at most
 * OBJRT_AOT_MAX_POSITIONAL in all). In 0.8, tvmgen_<name>_run is instead a packed function
 * taking the same tensors as DLTensors: call it with TVMFuncCall. Returns and errors as
 * objrt_aot_run. */
#define OBJRT_AOT_MAX_POSITIONAL 16
int objrt_aot_run_unpacked(objrt_unit *unit, const char *name, DLTensor *const *inputs,
                           int ninputs, DLTensor *const *outputs, int noutputs);

/* ---- Graph executor (TVM's graph JSON + params, functions from a module) ----
 *
 * objrt_graph_create parses a graph JSON as relay.build writes it (nodes, arg_nodes, heads,
 * node_row_ptr, attrs dltype/shape/storage_id; JSON by Jansson) and looks every node's
 * func_name up in `mod` (objrt_tvm_module(unit) or the system library): each storage id
 * gets one 128-byte aligned block as large as its largest entry. Every field is validated
 * (ranges, node references only to earlier nodes, row pointers against num_outputs, size
 * overflow); a bad graph or a missing function gives NULL with the last error set.
 * objrt_graph_load_params copies a runtime.save_param_dict blob into the inputs it names;
 * objrt_graph_set_input copies one tensor. Both check dtype, shape and size against the
 * graph. Params a module links in (link-params: it defines _lookup_linked_param) are
 * fetched by storage id at create, as TVM's graph executor does; a later set_input or
 * load_params still replaces them. objrt_graph_run refuses, naming it, an input that
 * nothing set (it would run on zeros); it calls the nodes in order; a failing node is reported as
 * "graph: node N ('name', func) failed: <the kernel's message>". objrt_graph_output gives
 * output i (a view into the graph's storage, valid until the next run or free).
 * CPU only; the graph does not own `mod`. All return 0, or -1 with TVMGetLastError set. */
typedef struct objrt_graph objrt_graph;
objrt_graph *objrt_graph_create(const char *json, size_t len, TVMModuleHandle mod);
int objrt_graph_load_params(objrt_graph *g, const void *bytes, size_t n);
int objrt_graph_set_input(objrt_graph *g, const char *name, const DLTensor *t);
int objrt_graph_run(objrt_graph *g);
int objrt_graph_num_outputs(const objrt_graph *g);
const DLTensor *objrt_graph_output(const objrt_graph *g, int i);
void objrt_graph_free(objrt_graph *g);

/* ---- objrt native API for the same services ---- */

#define OBJRT_WS_ALIGN 128     /* every workspace pointer (TVM v0.7-v0.9 kTempAllocaAlignment) */
#define OBJRT_TENSOR_ALIGN 128 /* DLTensor data (TVM kAllocAlignment: 128 in v0.7-v0.9, 64 since) */

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
/* Threads a launch of num_task == 0 uses (creates nothing): the running pool's, fewer than
 * asked when some could not start (1: the caller alone); before the first launch, the
 * number it will ask for (objrt_set_num_threads, else TVM_NUM_THREADS / the cores). */
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
/* Calls fn(data, name) for every name the unit registered as a system library
 * (TVMBackendRegisterSystemLibSymbol, module contexts left out), latest first; stops at the
 * first non-zero return of fn and returns it (0 when all were visited, -1 when the unit is
 * not one objrt loaded). fn must not load or unload units. */
int objrt_tvm_foreach_registered(objrt_unit *unit, int (*fn)(void *data, const char *name),
                                 void *data);
/* The kernel a handle calls, and its name ("" when unknown). */
TVMBackendPackedCFunc objrt_tvm_func_ptr(TVMFunctionHandle f);
const char *objrt_tvm_func_name(TVMFunctionHandle f);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* OBJRT_TVM_BACKEND_H */

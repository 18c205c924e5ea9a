/*
 * objrt/tvm_ffi.h - the TVM-FFI C ABI (TVM 0.21-0.26), as libobjrt provides it
 *
 * SYNOPSIS
 *     #include <objrt/tvm_ffi.h>
 *     cc host.c -lobjrt            (in place of -ltvm_ffi, for the functions below)
 *
 * DESCRIPTION
 *     Since 0.21, TVM generates host code for tvm-ffi's ABI: every argument and result is a
 *     16-byte TVMFFIAny, every exported function has the TVMFFISafeCallType signature and is
 *     named __tvm_ffi_<name> (0.21: <name>, its entry named by the string __tvm_main__),
 *     errors are raised into thread-local state, and packed calls go through
 *     TVMFFIFunctionCall. The names, signatures and layouts below are tvm-ffi's
 *     (include/tvm/ffi/c_api.h and extra/c_env_api.h); a host written against those headers
 *     for these functions links with libobjrt instead of libtvm_ffi.
 *
 *     Objects start with the 24-byte TVMFFIObject header (strong count in the low 32 bits of
 *     combined_ref_count, weak count in the high 32). A new object has one strong and one
 *     weak reference; when the strong count drops to 0 the deleter is called with
 *     kTVMFFIObjectDeleterFlagBitMaskBoth if no other weak reference exists. objrt creates
 *     Str (65), Error (67), Function (68) and Module (73) objects; the cells after the
 *     header are tvm-ffi's (an Error's kind at +24, message at +40).
 *
 *     Errors: TVMFFIErrorSetRaisedFromCStr[Parts] replace the calling thread's raised
 *     error; a NULL kind is recorded as "RuntimeError" (tvm-ffi's Python side maps an
 *     unknown kind to RuntimeError), NULL parts are skipped, a NULL message is "".
 *     TVMFFIErrorMoveFromRaised hands the error (a strong reference, or NULL) to the caller
 *     and clears it; TVMFFIErrorSetRaised takes over the reference it is given.
 *
 *     Global functions: TVMFFIFunctionSetGlobal keeps a strong reference; it fails with a
 *     RuntimeError when the name exists and `override` is 0. TVMFFIFunctionGetGlobal gives
 *     a new strong reference, or NULL (returning 0) for an unknown name. Two are built in:
 *         ffi.SystemLib([prefix: str]) -> Module
 *             every __tvm_ffi_<prefix><name> registered with
 *             TVMFFIEnvModRegisterSystemLibSymbol, by the host program and by the
 *             constructors of loaded units; its lookup tries __tvm_ffi_<prefix><name>, then
 *             __tvm_ffi_<name>; host first, then units latest first.
 *         ffi.ModuleGetFunction(mod: Module, name: str, query_imports: bool) -> Function
 *             the module's function, or None.
 *
 *     Loaded units. A unit defining __tvm_ffi__library_ctx (0.22+) or __tvm_ffi_library_ctx
 *     (0.21), or registering <prefix>__tvm_ffi__library_ctx from a constructor, speaks
 *     TVM-FFI. objrt gives it a Module and writes the handle into that context pointer,
 *     after checking (as for the old __tvm_module_ctx) that it is an aligned, writable
 *     pointer-sized place inside the unit. Every DSO-mode slot the unit defines is filled
 *     under the same check: __TVMFFIFunctionCall, __TVMFFIErrorSetRaisedFromCStr,
 *     __TVMFFIEnvModLookupFromImports, __TVMFFIHandleInitOnce, the four __TVMBackend*
 *     (workspace and thread pool, see <objrt/tvm_backend.h>), __TVMBackendGetFuncFromEnv
 *     (which, given a TVM-FFI module, returns a TVM-FFI Function), and any name the host
 *     registered with TVMFFIEnvModRegisterContextSymbol (a registration replaces objrt's
 *     own value of the same slot). Registrations a unit's constructors make are the
 *     unit's: objrt_unload() drops them, and the unit's Functions (their code is gone).
 *
 *     TVMFFIEnvModLookupFromImports(ctx, name, out): in the module `ctx` (a unit's, or a
 *     system library's), then among the global functions; else it raises RuntimeError
 *     "Cannot find function <name> in the imported modules or global registry". *out is a
 *     borrowed reference owned by the module (valid until its unit is unloaded).
 *
 *     One TVM-FFI per process: when another library of the process (libtvm_ffi, or tvm-ffi's
 *     Python package) exports TVMFFIFunctionCreate, TVMFFIErrorSetRaisedFromCStr,
 *     TVMFFIErrorMoveFromRaised and TVMFFIFunctionGetGlobal (found with dlsym outside
 *     libobjrt, checked once, at the first use of TVM-FFI), objrt binds every loaded unit's
 *     references to those names, and to the other core functions that library has
 *     (TVMFFIFunctionCall, TVMFFIObjectIncRef/DecRef, TVMFFIErrorSetRaised*,
 *     TVMFFIFunctionSetGlobal, TVMFFIHandleInitOnce/DeinitOnce), to that library, and makes
 *     its own Functions and errors there: objrt's raised-error state and global table are
 *     then not used. Modules, context slots and system-lib registrations stay objrt's (the
 *     loader's part). OBJRT_TVM_FFI=own in the environment keeps objrt's own throughout.
 *
 *     objrt as tvm-ffi's loader of object files (objrt_tvm_ffi_loader(), declared in
 *     <objrt.h> so that a host compiled against tvm-ffi's own headers can call it) registers, in the
 *     process's tvm-ffi (it must be the real one), the global functions
 *     ffi.Module.load_from_file.o, .a and .tar, which tvm-ffi's Module::LoadFromFile (and
 *     Python's tvm_ffi.load_module) calls for a path of that extension. Each loads the file
 *     as one unit of a context of its own (an archive: every member; a tar file, as TVM's
 *     export_library writes it: every member named *.o) and returns a tvm-ffi Module of
 *     kind "objrt": GetFunction(name) finds __tvm_ffi_<name> as objrt_ffi_func does (None
 *     when the unit has none), GetFunctionDoc/Metadata call __tvm_ffi__doc_<name> /
 *     __tvm_ffi__metadata_<name>. Each Function holds a reference to its Module; when the
 *     last reference to the Module goes, the unit is unloaded (Python's load_module keeps
 *     the Module for the life of the process unless keep_module_alive=False). A name
 *     another loader registered first (tvm-ffi-orcjit's) is left to it. The Module itself
 *     is a C++ object of tvm-ffi's (its methods are virtual): libobjrt opens
 *     libobjrt_tvm_ffi.so for it, the one part of objrt built against tvm-ffi's headers
 *     (make tvm-ffi-module), found by the path in OBJRT_TVM_FFI_MODULE, beside libobjrt,
 *     or on the library search path; a host may link it instead. Python's objrt package
 *     calls objrt_tvm_ffi_loader() itself when tvm_ffi is imported (before or after objrt).
 *
 * RETURN VALUE
 *     Functions returning int return 0 on success and -1 on failure, with the error raised
 *     (TVMFFIErrorMoveFromRaised gets it).
 */
#ifndef OBJRT_TVM_FFI_H
#define OBJRT_TVM_FFI_H

#include <stddef.h>
#include <stdint.h>
#include <dlpack/dlpack.h>

#include "../objrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)     /* the public API (objrt.h) */

/* ---- Layouts (tvm-ffi include/tvm/ffi/c_api.h) ---- */

/* Type indices of tvm-ffi v0.1 (TVM 0.22+). TVM 0.21 numbered Array 69, Map 70, Shape 71,
 * NDArray 72 (DLTensor at +16) and had no small strings. */
typedef enum {
    kTVMFFINone = 0,
    kTVMFFIInt = 1,
    kTVMFFIBool = 2,
    kTVMFFIFloat = 3,
    kTVMFFIOpaquePtr = 4,
    kTVMFFIDataType = 5,
    kTVMFFIDevice = 6,
    kTVMFFIDLTensorPtr = 7,
    kTVMFFIRawStr = 8,
    kTVMFFIByteArrayPtr = 9,
    kTVMFFIObjectRValueRef = 10,
    kTVMFFISmallStr = 11,
    kTVMFFISmallBytes = 12,
    kTVMFFIStaticObjectBegin = 64,
    kTVMFFIObject = 64,
    kTVMFFIStr = 65,
    kTVMFFIBytes = 66,
    kTVMFFIError = 67,
    kTVMFFIFunction = 68,
    kTVMFFIShape = 69,
    kTVMFFITensor = 70,
    kTVMFFIArray = 71,
    kTVMFFIMap = 72,
    kTVMFFIModule = 73,
    kTVMFFIDynObjectBegin = 128
} TVMFFITypeIndex;

typedef void *TVMFFIObjectHandle;

typedef enum {
    kTVMFFIObjectDeleterFlagBitMaskStrong = 1 << 0,   /* destroy the contents */
    kTVMFFIObjectDeleterFlagBitMaskWeak = 1 << 1,     /* free the memory */
    kTVMFFIObjectDeleterFlagBitMaskBoth = 3
} TVMFFIObjectDeleterFlagBitMask;

typedef struct {                     /* 24 bytes, before every object's cell */
    uint64_t combined_ref_count;     /* strong: low 32 bits; weak: high 32 bits */
    int32_t type_index;
    uint32_t __padding;
    union {
        void (*deleter)(void *self, int flags);
        int64_t __ensure_align;
    };
} TVMFFIObject;

/* tvm-ffi 0.1.13+: placed immediately before every object body; delete_space, when not
 * NULL, reclaims the allocation. Every object objrt allocates has one (NULL). */
typedef struct {
    void (*delete_space)(void *ptr);
} TVMFFIObjectAllocHeader;

typedef struct {                     /* 16 bytes: every argument and result */
    int32_t type_index;
    union {
        uint32_t zero_padding;       /* 0 except for a small string */
        uint32_t small_str_len;
    };
    union {
        int64_t v_int64;
        double v_float64;
        void *v_ptr;
        const char *v_c_str;
        TVMFFIObject *v_obj;
        DLDataType v_dtype;
        DLDevice v_device;
        char v_bytes[8];
        uint64_t v_uint64;
    };
} TVMFFIAny;

typedef struct {                     /* the cell of Str and Bytes, and error texts */
    const char *data;
    size_t size;
} TVMFFIByteArray;

typedef struct {                     /* after the header of an Error (67) */
    TVMFFIByteArray kind;
    TVMFFIByteArray message;
    TVMFFIByteArray backtrace;
    void (*update_backtrace)(TVMFFIObjectHandle self, const TVMFFIByteArray *backtrace,
                             int32_t update_mode);
    TVMFFIObjectHandle cause_chain;      /* tvm-ffi 0.1.9+; objrt: NULL */
    TVMFFIObjectHandle extra_context;    /* tvm-ffi 0.1.9+; objrt: NULL */
} TVMFFIErrorCell;

/* Every function: 0 on success, -1 with the error raised. The caller sets
 * result->type_index to kTVMFFINone before the call. */
typedef int (*TVMFFISafeCallType)(void *handle, const TVMFFIAny *args, int32_t num_args,
                                  TVMFFIAny *result);

typedef struct {                     /* after the header of a Function (68) */
    TVMFFISafeCallType safe_call;    /* called with the Function itself as handle */
    void *cpp_call;                  /* NULL: not a C++ function */
} TVMFFIFunctionCell;

/* ---- Objects and functions (c_api.h) ---- */

int TVMFFIObjectIncRef(TVMFFIObjectHandle obj);
int TVMFFIObjectDecRef(TVMFFIObjectHandle obj);
/* A Function calling safe_call(self, ...); deleter(self) runs when it is freed. */
int TVMFFIFunctionCreate(void *self, TVMFFISafeCallType safe_call, void (*deleter)(void *self),
                         TVMFFIObjectHandle *out);
int TVMFFIFunctionGetGlobal(const TVMFFIByteArray *name, TVMFFIObjectHandle *out);
int TVMFFIFunctionSetGlobal(const TVMFFIByteArray *name, TVMFFIObjectHandle f, int override);
int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny *args, int32_t num_args,
                       TVMFFIAny *result);

/* ---- Errors (thread-local; c_api.h) ---- */

void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle *result);
void TVMFFIErrorSetRaised(TVMFFIObjectHandle error);
void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message);
void TVMFFIErrorSetRaisedFromCStrParts(const char *kind, const char **message_parts,
                                       int32_t num_parts);

/* ---- Once-only handles (c_api.h) ----
 * InitOnce: if *handle_addr is NULL, calls init_func(&h) under a lock and publishes h
 * (release store; readers load with acquire). A nonzero result is returned as is; a NULL
 * h raises RuntimeError "init_func must return a non-NULL handle". DeinitOnce exchanges
 * *handle_addr with NULL and calls deinit_func on a non-NULL old value. */
int TVMFFIHandleInitOnce(void **handle_addr, int (*init_func)(void **result));
int TVMFFIHandleDeinitOnce(void **handle_addr, int (*deinit_func)(void *handle));

/* ---- The module environment (extra/c_env_api.h) ---- */

int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char *func_name,
                                  TVMFFIObjectHandle *out);
/* The value to write into slot `name` of every unit loaded afterwards. */
int TVMFFIEnvModRegisterContextSymbol(const char *name, void *symbol);
/* From a system-lib unit's constructor: the unit's registration (outside a load: the
 * host's, for the life of the process). */
int TVMFFIEnvModRegisterSystemLibSymbol(const char *name, void *symbol);

/* TVM's Relax VM in compiled mode (0.22+) keeps its registers in an "anylist", an array of
 * TVMFFIAny that owns its objects. SetPackedArg copies list[index] into args[arg_offset]
 * (borrowed for the call); ResetItem sets list[index] to None, releasing its object;
 * MoveFromPackedReturn moves args[ret_offset] (a call's result) into list[index], releasing
 * the old value and leaving None behind. 0, or -1 with a ValueError for a NULL list. */
int TVMBackendAnyListSetPackedArg(void *anylist, int index, TVMFFIAny *args, int arg_offset);
int TVMBackendAnyListResetItem(void *anylist, int index);
int TVMBackendAnyListMoveFromPackedReturn(void *anylist, int index, TVMFFIAny *args,
                                          int ret_offset);

/* ---- objrt's own ---- */

/* Each given a unit is a call on its context, as in <objrt/tvm_backend.h> (objrt.h,
 * "Threads": a unit no longer loaded fails unread, a closing context refuses). */

/* The Module of a loaded TVM-FFI unit (a borrowed handle: the value of its library
 * context), or NULL with the old last error (objrt_last_error) set. */
TVMFFIObjectHandle objrt_ffi_module(objrt_unit *unit);
/* Function `name` of a loaded unit as a TVM-FFI Function. A TVM-FFI unit's is
 * __tvm_ffi_<name> (0.21: <name>), registered or defined, a system-lib prefix optional;
 * NULL for name means the entry (__tvm_ffi_main, 0.21: the function __tvm_main__ names).
 * An old-ABI unit's packed function (objrt_tvm_func; NULL: objrt_tvm_main) is adapted:
 * arguments None, Int, Bool, Float, OpaquePtr, DataType, Device, DLTensorPtr, RawStr and
 * Tensor (its DLTensor) become TVMValues with their type codes (at most 64), an int or
 * float result comes back as Int or Float, a failure raises RuntimeError with the old last
 * error. *out gets a new strong reference (release it with TVMFFIObjectDecRef; call it
 * only before objrt_unload of the unit). Returns 0, or -1 with *out NULL and a
 * RuntimeError raised ("Cannot find function ..."; why a symbol of that name is not a
 * function). */
int objrt_ffi_func(objrt_unit *unit, const char *name, TVMFFIObjectHandle *out);
/* 1 when the unit speaks TVM-FFI, 0 when not (or unknown). */
int objrt_ffi_unit(objrt_unit *unit);
/* 1 when the process's TVM-FFI is another library's (see DESCRIPTION), else 0. */
int objrt_ffi_external(void);
/* The raised error's "kind: message" into buf (consuming it); "" when none is raised.
 * Returns the kind's length (0 without an error). */
size_t objrt_ffi_error_text(char *buf, size_t len);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* OBJRT_TVM_FFI_H */

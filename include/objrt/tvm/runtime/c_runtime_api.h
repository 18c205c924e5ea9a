/* tvm/runtime/c_runtime_api.h - objrt's stand-in for TVM's header of that name, so C code
 * TVM generated (every release from 0.6 on) compiles with only objrt installed:
 *
 *     cc -I$(pkg-config --variable=includedir objrt)/objrt -c model.c
 *
 * (with the default prefix, -I/usr/local/include/objrt). It declares what generated code
 * uses: the packed-call types and codes, the C host API and the backend functions (all
 * from <objrt/tvm_backend.h>, which objrt implements), TVM_DLL, and the names releases
 * before 0.7 used: TVMArray with DLPack's old `ctx` field, TVMContext and DLContext.
 * Written from the ABI facts of TVM's headers, not copied from them. */
#ifndef OBJRT_TVM_RUNTIME_C_RUNTIME_API_H
#define OBJRT_TVM_RUNTIME_C_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#include "../../tvm_backend.h"

#ifndef TVM_DLL
#define TVM_DLL __attribute__((visibility("default")))
#endif

#ifndef TVM_VERSION
#define TVM_VERSION "0.20.0 (objrt)"    /* the last release with this packed ABI */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* DLPack before 0.6 called a device a context, and the tensor's field `ctx`: the layout
 * is the same as DLDevice's and DLTensor's (checked below). */
typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLContext;
typedef DLContext TVMContext;

/* Pre-0.7 generated code declares its arguments as TVMArray and reads ->ctx. */
typedef struct {
    void *data;
    DLContext ctx;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} TVMArray;

#ifndef __cplusplus
_Static_assert(sizeof(TVMArray) == sizeof(DLTensor), "TVMArray is DLTensor's layout");
_Static_assert(offsetof(TVMArray, ctx) == offsetof(DLTensor, device), "ctx is device");
_Static_assert(offsetof(TVMArray, byte_offset) == offsetof(DLTensor, byte_offset), "layout");
#endif

typedef int32_t TVMDeviceExtType;
typedef void *TVMStreamHandle;
typedef void *TVMObjectHandle;
typedef void *TVMRetValueHandle;

/* a byte array argument (kTVMBytes) */
typedef struct {
    const char *data;
    size_t size;
} TVMByteArray;

#ifdef __cplusplus
}
#endif
#endif

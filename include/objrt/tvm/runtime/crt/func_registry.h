/* tvm/runtime/crt/func_registry.h - objrt's stand-in for TVM's header of that name: the
 * function table of a microTVM CRT system library. objrt reads it (bounds-checked) when
 * a unit defines TVMSystemLibEntryPoint.
 *
 * `names` is a count, then every function's name with its NUL, then one more NUL. The
 * count is a little-endian uint16_t in TVM 0.8 and later (TVMFuncRegistry_GetNumFuncs),
 * one byte in 0.7; objrt takes whichever matches the names that follow. */
#ifndef OBJRT_TVM_RUNTIME_CRT_FUNC_REGISTRY_H
#define OBJRT_TVM_RUNTIME_CRT_FUNC_REGISTRY_H

#include "../c_backend_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint16_t tvm_function_index_t;
typedef uint16_t tvm_module_index_t;

typedef struct TVMFuncRegistry {
    const char *names;
    const TVMBackendPackedCFunc *funcs;     /* in the order of `names` */
} TVMFuncRegistry;

#ifdef __cplusplus
}
#endif
#endif

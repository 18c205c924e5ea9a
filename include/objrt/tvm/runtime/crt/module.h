/* tvm/runtime/crt/module.h - objrt's stand-in for TVM's header of that name: a CRT
 * module is its function registry, and a system library hands its module out through
 * `const TVMModule *TVMSystemLibEntryPoint(void)`, which objrt calls after the unit's
 * constructors ran, registering every function as TVMBackendRegisterSystemLibSymbol
 * would (so -f NAME, runtime.SystemLib and objrt_tvm_func find them). */
#ifndef OBJRT_TVM_RUNTIME_CRT_MODULE_H
#define OBJRT_TVM_RUNTIME_CRT_MODULE_H

#include "func_registry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TVMModule {
    const TVMFuncRegistry *registry;
} TVMModule;

const TVMModule *TVMSystemLibEntryPoint(void);

#ifdef __cplusplus
}
#endif
#endif

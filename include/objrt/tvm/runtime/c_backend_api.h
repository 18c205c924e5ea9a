/* tvm/runtime/c_backend_api.h - objrt's stand-in for TVM's header of that name: the
 * functions compiled kernels call (TVMBackendAllocWorkspace, TVMBackendParallelLaunch,
 * TVMBackendGetFuncFromEnv, TVMAPISetLastError, ...) and TVMBackendPackedCFunc, all
 * declared by <objrt/tvm_backend.h> and implemented by libobjrt. See c_runtime_api.h for
 * the -I that makes generated code find it. */
#ifndef OBJRT_TVM_RUNTIME_C_BACKEND_API_H
#define OBJRT_TVM_RUNTIME_C_BACKEND_API_H

#include "c_runtime_api.h"

#endif

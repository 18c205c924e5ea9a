/* abi_check.c - compile-time proof that our types have TVM's layout (LP64). */
#include <stddef.h>
#include "rt_internal.h"

_Static_assert(sizeof(TVMValue) == 8, "TVMValue is 8 bytes");
_Static_assert(sizeof(TVMParallelGroupEnv) == 16, "TVMParallelGroupEnv is 16 bytes");
_Static_assert(offsetof(TVMParallelGroupEnv, num_task) == 8, "num_task at offset 8");
_Static_assert(sizeof(DLDevice) == 8 && sizeof(DLDataType) == 4, "DLPack scalars");
_Static_assert(sizeof(DLTensor) == 48, "DLTensor is 48 bytes");
_Static_assert(offsetof(DLTensor, ndim) == 16 && offsetof(DLTensor, dtype) == 20 &&
               offsetof(DLTensor, shape) == 24 && offsetof(DLTensor, strides) == 32 &&
               offsetof(DLTensor, byte_offset) == 40, "DLTensor field offsets");
_Static_assert(kTVMDLTensorHandle == 7 && kTVMNDArrayHandle == 13 && kTVMStr == 11,
               "type codes");

/* funcs.c - a C unit of TVM-FFI packed functions, as a TVM user writes them against
 * tvm-ffi's C API: test_add(a, b) -> a + b; anything but two ints raises TypeError
 * through TVMFFIErrorSetRaisedFromCStr (so the raised error shows which library the
 * unit's reference bound to). Built with -DREAL_TVM_FFI against tvm-ffi's own header in
 * the sid root, else against objrt's declarations of the same ABI. */
#include <stdint.h>
#ifdef REAL_TVM_FFI
#include <tvm/ffi/c_api.h>
#else
#include "objrt/tvm_ffi.h"
#endif

int __tvm_ffi_test_add(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret)
{
    (void)self;
    if (n != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
        TVMFFIErrorSetRaisedFromCStr("TypeError", "test_add expects two ints");
        return -1;
    }
    ret->type_index = kTVMFFIInt;
    ret->zero_padding = 0;
    ret->v_int64 = args[0].v_int64 + args[1].v_int64;
    return 0;
}

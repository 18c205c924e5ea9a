/* bad_slot.c - a TVM-FFI unit whose context slot the loader must refuse to write:
 *   -DRO_CTX   __tvm_ffi__library_ctx is read-only (in .rodata)
 *   -DRO_SLOT  __TVMFFIFunctionCall is read-only
 *   -DREG_RO   a system-lib constructor registers a read-only library context
 *   neither    both writable: the load succeeds (the control)
 * f() returns 7 through the slot. */
#include "objrt/tvm_ffi.h"

#ifdef RO_CTX
#define CTX_CONST const
#else
#define CTX_CONST
#endif
#ifdef RO_SLOT
#define SLOT_CONST const
#else
#define SLOT_CONST
#endif

__attribute__((weak)) void *CTX_CONST __tvm_ffi__library_ctx = 0;
__attribute__((weak)) int (*SLOT_CONST __TVMFFIFunctionCall)(TVMFFIObjectHandle, TVMFFIAny *, int32_t, TVMFFIAny *) = 0;

int __tvm_ffi_f(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n;
    r->type_index = kTVMFFIInt;
    r->v_int64 = __TVMFFIFunctionCall && __tvm_ffi__library_ctx ? 7 : -1;
    return 0;
}

#ifdef REG_RO
static void *const ro_ctx = 0;
__attribute__((constructor)) static void startup(void)
{
    TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi__library_ctx", (void *)&ro_ctx);
}
#endif

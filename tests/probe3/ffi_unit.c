/* ffi_unit.c - a TVM-FFI unit (DSO mode: it defines the library context) exporting two
 * functions whose names share their first 610 bytes, and a registration of read-only data
 * under a function's name (called, it would be jumped into). */
#include "objrt/tvm_ffi.h"
#include "long_names.h"

void *__tvm_ffi__library_ctx;

static int answer(TVMFFIAny *r, int v)
{
    r->type_index = kTVMFFIInt;
    r->zero_padding = 0;
    r->v_int64 = v;
    return 0;
}

int fa(void *s, const TVMFFIAny *a, int32_t n, TVMFFIAny *r) __asm__("__tvm_ffi_" LONG600 "_a");
int fb(void *s, const TVMFFIAny *a, int32_t n, TVMFFIAny *r) __asm__("__tvm_ffi_" LONG600 "_b");
int fa(void *s, const TVMFFIAny *a, int32_t n, TVMFFIAny *r) { (void)s; (void)a; (void)n; return answer(r, 1); }
int fb(void *s, const TVMFFIAny *a, int32_t n, TVMFFIAny *r) { (void)s; (void)a; (void)n; return answer(r, 2); }

static const char not_code[16] = "not code";

__attribute__((constructor)) static void register_data(void)
{
    TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_not_code", (void *)not_code);
}

/* pure.c - TVM-FFI functions written by hand in C, as tvm-ffi-orcjit's tests write them
 * (no library context, no slots: the core functions are called directly):
 *   add_int(a, b) -> int, mul_float(a, b) -> float, bump() -> None (counts), count() -> int,
 *   err_parts() raises ValueError from parts with a NULL among them,
 *   call_global(x) -> host.mul(x, 3) through TVMFFIFunctionGetGlobal, missing_global() -> 1
 *   when a name nobody registered gives NULL, ctor_log() -> str: the order constructors ran
 *   in (.init_array priorities, plain .init_array, .ctors.N, .ctors), set_flag(ptr): a
 *   destructor writes 42 there, str_len(s: str) -> int. */
#include <stdint.h>
#include <string.h>
#include "objrt/tvm_ffi.h"

static char log_[16];
static int nlog, bumps;
static int *flag;
static void note(char c) { if (nlog < 15) log_[nlog++] = c; }

__attribute__((constructor(101))) static void ctor_101(void) { note('a'); }
__attribute__((constructor(200))) static void ctor_200(void) { note('b'); }
__attribute__((constructor)) static void ctor_plain(void) { note('c'); }
static void ctor_old_1(void) { note('d'); }
static void ctor_old_2(void) { note('e'); }
static void ctor_old_prio(void) { note('f'); }
__attribute__((section(".ctors"), used, aligned(sizeof(void *)))) static void (*old_ctors[])(void) = { ctor_old_1, ctor_old_2 };
__attribute__((section(".ctors.65400"), used, aligned(sizeof(void *)))) static void (*old_prio[])(void) = { ctor_old_prio };
__attribute__((destructor)) static void dtor(void) { if (flag) *flag = 42; }

#define RET_INT(r, v) ((r)->type_index = kTVMFFIInt, (r)->zero_padding = 0, (r)->v_int64 = (v))

int __tvm_ffi_add_int(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    if (n != 2 || a[0].type_index != kTVMFFIInt || a[1].type_index != kTVMFFIInt) {
        TVMFFIErrorSetRaisedFromCStr("TypeError", "add_int expects two ints");
        return -1;
    }
    RET_INT(r, a[0].v_int64 + a[1].v_int64);
    return 0;
}

int __tvm_ffi_mul_float(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)n;
    r->type_index = kTVMFFIFloat;
    r->zero_padding = 0;
    r->v_float64 = a[0].v_float64 * a[1].v_float64;
    return 0;
}

int __tvm_ffi_bump(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n;
    bumps++;
    r->type_index = kTVMFFINone;
    return 0;
}

int __tvm_ffi_count(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n;
    RET_INT(r, bumps);
    return 0;
}

int __tvm_ffi_err_parts(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    const char *parts[4] = { "first, ", NULL, "then second", NULL };
    (void)self, (void)a, (void)n, (void)r;
    TVMFFIErrorSetRaisedFromCStrParts("ValueError", parts, 4);
    return -1;
}

int __tvm_ffi_call_global(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    TVMFFIByteArray name = { "host.mul", 8 };
    TVMFFIObjectHandle f = NULL;
    TVMFFIAny args[2] = { a[0], { .type_index = kTVMFFIInt, .v_int64 = 3 } };
    int rc;
    (void)self, (void)n;
    if (TVMFFIFunctionGetGlobal(&name, &f) != 0)
        return -1;
    if (!f) {
        TVMFFIErrorSetRaisedFromCStr("RuntimeError", "host.mul is not registered");
        return -1;
    }
    r->type_index = kTVMFFINone;
    rc = TVMFFIFunctionCall(f, args, 2, r);
    TVMFFIObjectDecRef(f);
    return rc;
}

int __tvm_ffi_missing_global(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    TVMFFIByteArray name = { "no.such.global", 14 };
    TVMFFIObjectHandle f = (void *)1;
    (void)self, (void)a, (void)n;
    if (TVMFFIFunctionGetGlobal(&name, &f) != 0)
        return -1;
    RET_INT(r, f == NULL);
    return 0;
}

int __tvm_ffi_ctor_log(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n;
    r->type_index = kTVMFFIRawStr;
    r->zero_padding = 0;
    r->v_c_str = log_;
    return 0;
}

int __tvm_ffi_set_flag(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)n;
    flag = a[0].v_ptr;
    r->type_index = kTVMFFINone;
    return 0;
}

int __tvm_ffi_str_len(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    if (n != 1 || a[0].type_index != kTVMFFIRawStr) {
        TVMFFIErrorSetRaisedFromCStr("TypeError", "str_len expects a str");
        return -1;
    }
    RET_INT(r, (int64_t)strlen(a[0].v_c_str));
    return 0;
}

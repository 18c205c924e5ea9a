/* capi.c - TVM-FFI functions written in C against tvm-ffi's own <tvm/ffi/c_api.h>, the
 * cases of tvm-ffi-orcjit's test_basic.py that apply to an object loader. Built as .o (objrt)
 * and .so (tvm-ffi's own loader) from the same source, and compared:
 *   add_int(a, b), sum4(a, b, c, d), mul_float(a, b), zero() -> 7, bump() -> None (counts),
 *   count() -> int, fail() raises ValueError, fail_parts() raises through
 *   TVMFFIErrorSetRaisedFromCStrParts, call_global(name, x) calls a global function,
 *   ctor_log() -> str (constructor order), set_flag(addr) (a destructor writes 42 there),
 *   ctx_set() -> whether the loader wrote __tvm_ffi__library_ctx. */
#include <stdint.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#ifdef TVM_FFI_DLL_EXPORT
#undef TVM_FFI_DLL_EXPORT
#endif
#define EXPORT __attribute__((visibility("default")))

EXPORT void *__tvm_ffi__library_ctx;

static char log_[16];
static int nlog, bumps;
static int64_t *flag;
static void note(char c) { if (nlog < 15) log_[nlog++] = c; }

__attribute__((constructor(101))) static void ctor_101(void) { note('a'); }
__attribute__((constructor(200))) static void ctor_200(void) { note('b'); }
__attribute__((constructor)) static void ctor_plain(void) { note('c'); }
static void ctor_old_1(void) { note('d'); }
static void ctor_old_2(void) { note('e'); }
__attribute__((section(".ctors"), used, aligned(sizeof(void *)))) static void (*old_ctors[])(void) = { ctor_old_1, ctor_old_2 };
__attribute__((destructor)) static void dtor(void) { if (flag) *flag = 42; }

#define RET_INT(r, v) ((r)->type_index = kTVMFFIInt, (r)->zero_padding = 0, (r)->v_int64 = (v))
#define NEED(cond, what) \
    if (!(cond)) { TVMFFIErrorSetRaisedFromCStr("TypeError", what); return -1; }

EXPORT int __tvm_ffi_add_int(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    NEED(n == 2 && a[0].type_index == kTVMFFIInt && a[1].type_index == kTVMFFIInt,
         "add_int expects two ints");
    RET_INT(r, a[0].v_int64 + a[1].v_int64);
    return 0;
}

EXPORT int __tvm_ffi_sum4(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    NEED(n == 4, "sum4 expects four ints");
    RET_INT(r, a[0].v_int64 + 10 * a[1].v_int64 + 100 * a[2].v_int64 + 1000 * a[3].v_int64);
    return 0;
}

EXPORT int __tvm_ffi_mul_float(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    NEED(n == 2 && a[0].type_index == kTVMFFIFloat && a[1].type_index == kTVMFFIFloat,
         "mul_float expects two floats");
    r->type_index = kTVMFFIFloat;
    r->v_float64 = a[0].v_float64 * a[1].v_float64;
    return 0;
}

EXPORT int __tvm_ffi_zero(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a;
    NEED(n == 0, "zero takes no argument");
    RET_INT(r, 7);
    return 0;
}

EXPORT int __tvm_ffi_bump(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n;
    bumps++;
    r->type_index = kTVMFFINone;
    return 0;
}

EXPORT int __tvm_ffi_count(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n;
    RET_INT(r, bumps);
    return 0;
}

EXPORT int __tvm_ffi_fail(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n, (void)r;
    TVMFFIErrorSetRaisedFromCStr("ValueError", "fail: raised from C");
    return -1;
}

EXPORT int __tvm_ffi_fail_parts(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    const char *parts[] = { "fail_parts: ", "one", NULL, ", two" };
    (void)self, (void)a, (void)n, (void)r;
    TVMFFIErrorSetRaisedFromCStrParts("IndexError", parts, 4);
    return -1;
}

/* call_global(name: str, x: int): the global function `name` called with x. */
EXPORT int __tvm_ffi_call_global(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    TVMFFIByteArray name;
    TVMFFIObjectHandle f = NULL;
    int rc;
    (void)self;
    NEED(n == 2 && (a[0].type_index == kTVMFFIStr || a[0].type_index == kTVMFFISmallStr),
         "call_global expects (str, int)");
    if (a[0].type_index == kTVMFFIStr)
        name = *(const TVMFFIByteArray *)((const char *)a[0].v_obj + sizeof(TVMFFIObject));
    else
        name = (TVMFFIByteArray){ (const char *)a[0].v_bytes, a[0].small_str_len };
    if (TVMFFIFunctionGetGlobal(&name, &f) != 0)
        return -1;
    if (!f) {
        TVMFFIErrorSetRaisedFromCStr("RuntimeError", "call_global: no such global");
        return -1;
    }
    r->type_index = kTVMFFINone;
    rc = TVMFFIFunctionCall(f, (TVMFFIAny *)&a[1], 1, r);
    TVMFFIObjectDecRef(f);
    return rc;
}

EXPORT int __tvm_ffi_ctor_log(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    TVMFFIByteArray s = { log_, (size_t)nlog };
    (void)self, (void)a, (void)n;
    return TVMFFIStringFromByteArray(&s, r);
}

EXPORT int __tvm_ffi_set_flag(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    NEED(n == 1 && a[0].type_index == kTVMFFIInt, "set_flag expects an address");
    flag = (int64_t *)(intptr_t)a[0].v_int64;
    r->type_index = kTVMFFINone;
    return 0;
}

EXPORT int __tvm_ffi_ctx_set(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n;
    r->type_index = kTVMFFIBool;
    r->zero_padding = 0;
    r->v_int64 = __tvm_ffi__library_ctx != NULL;
    return 0;
}

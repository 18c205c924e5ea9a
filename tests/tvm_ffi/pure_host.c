/* pure_host.c - the host of tests/tvm_ffi/pure.c, built like host.c: -DNATIVE links pure.o
 * and the reference ref_ffi.c; otherwise libobjrt loads the object given. One line per
 * case; the last case (objrt only) unloads the unit and shows what its destructor did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objrt/tvm_ffi.h"

#ifdef NATIVE
void *ref_code(const char *name, const char *pfx);
#else
static objrt_unit *unit;
#endif

static TVMFFIObjectHandle get(const char *name)
{
    TVMFFIObjectHandle f = NULL;
#ifdef NATIVE
    void *code = ref_code(name, "");
    if (code)
        TVMFFIFunctionCreate(NULL, (TVMFFISafeCallType)code, NULL, &f);
#else
    objrt_ffi_func(unit, name, &f);
#endif
    if (!f) {
        printf("host: no function %s\n", name);
        exit(2);
    }
    return f;
}

/* Call name with n args; prints "name: <result>" or "name: kind: message". */
static void show(const char *name, TVMFFIAny *a, int n)
{
    TVMFFIAny r = { .type_index = kTVMFFINone };
    TVMFFIObjectHandle e = NULL;
    if (TVMFFIFunctionCall(get(name), a, n, &r) != 0) {
        TVMFFIErrorMoveFromRaised(&e);
        const TVMFFIErrorCell *c = (const void *)((char *)e + sizeof(TVMFFIObject));
        printf("%s: %.*s: %.*s\n", name, (int)c->kind.size, c->kind.data, (int)c->message.size, c->message.data);
        TVMFFIObjectDecRef(e);
        return;
    }
    switch (r.type_index) {
    case kTVMFFINone: printf("%s: None\n", name); break;
    case kTVMFFIInt: printf("%s: int %lld\n", name, (long long)r.v_int64); break;
    case kTVMFFIFloat: printf("%s: float %g\n", name, r.v_float64); break;
    case kTVMFFIRawStr: printf("%s: str %s\n", name, r.v_c_str); break;
    default: printf("%s: type %d\n", name, r.type_index);
    }
}

static int host_mul(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)n;
    r->type_index = kTVMFFIInt;
    r->v_int64 = a[0].v_int64 * a[1].v_int64;
    return 0;
}

int main(int argc, char **argv)
{
    TVMFFIObjectHandle mul = NULL;
    TVMFFIByteArray name = { "host.mul", 8 };
    TVMFFIAny ints[2] = { { .type_index = kTVMFFIInt, .v_int64 = 40 }, { .type_index = kTVMFFIInt, .v_int64 = 2 } };
    TVMFFIAny floats[2] = { { .type_index = kTVMFFIFloat, .v_float64 = 1.5 }, { .type_index = kTVMFFIFloat, .v_float64 = 4 } };
    static int flag;
    TVMFFIAny p = { .type_index = kTVMFFIOpaquePtr, .v_ptr = &flag };
#ifndef NATIVE
    objrt_ctx *ctx = objrt_new();
    if (argc < 2 || !(unit = objrt_load(ctx, (const char *const *)argv + 1, (size_t)(argc - 1)))) {
        printf("host: %s\n", objrt_error(ctx));
        return 2;
    }
#else
    (void)argc, (void)argv;
#endif
    TVMFFIFunctionCreate(NULL, host_mul, NULL, &mul);
    TVMFFIFunctionSetGlobal(&name, mul, 0);
    show("add_int", ints, 2);
    show("add_int", floats, 2);
    show("mul_float", floats, 2);
    show("bump", NULL, 0);
    show("bump", NULL, 0);
    show("count", NULL, 0);
    show("err_parts", NULL, 0);
    show("call_global", ints, 1);
    show("missing_global", NULL, 0);
    show("ctor_log", NULL, 0);
    show("set_flag", &p, 1);
#ifndef NATIVE
    printf("dtor before unload: %d\n", flag);
    objrt_unload(unit);
    printf("dtor after unload: %d\n", flag);
    objrt_free(ctx);
#endif
    return 0;
}

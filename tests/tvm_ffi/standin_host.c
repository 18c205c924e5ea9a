/* standin_host.c - one TVM-FFI per process: a host linked with another TVM-FFI (the
 * stand-in libstandin.so, ref_ffi.c built as a shared library) and with libobjrt. The unit
 * it loads must bind to the stand-in: its packed call and its errors go there (ref_calls
 * grows), and objrt reports the core as external. With OBJRT_TVM_FFI=own the same run uses
 * objrt's own (the negative control: ref_calls does not grow).
 * usage: standin_host KERNEL.o   (a TVM 0.26 DSO-mode kernel of tests/tvm_ffi/kernel.c) */
#include <stdio.h>
#include "objrt/tvm_ffi.h"

extern int ref_calls;                       /* libstandin.so */

static int host_mul(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)n;
    r->type_index = kTVMFFIInt;
    r->v_int64 = a[0].v_int64 * a[1].v_int64;
    return 0;
}

int main(int argc, char **argv)
{
    TVMFFIObjectHandle mul = NULL, cg = NULL, miss = NULL;
    TVMFFIByteArray name = { "host.mul", 8 };
    TVMFFIAny args[2] = { { .type_index = kTVMFFIInt, .v_int64 = 6 },
                          { .type_index = kTVMFFIInt, .v_int64 = 7 } }, r;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u;
    char err[512];
    if (argc != 2 || !(u = objrt_load(ctx, (const char *const *)argv + 1, 1))) {
        printf("load failed: %s\n", objrt_error(ctx));
        return 2;
    }
    printf("external %d\n", objrt_ffi_external());
    TVMFFIFunctionCreate(NULL, host_mul, NULL, &mul);
    TVMFFIFunctionSetGlobal(&name, mul, 0);
    if (objrt_ffi_func(u, "callg", &cg) || objrt_ffi_func(u, "miss", &miss)) {
        printf("no function\n");
        return 2;
    }
    int before = ref_calls;
    r.type_index = kTVMFFINone;
    if (TVMFFIFunctionCall(cg, args, 2, &r) == 0)
        printf("callg %lld\n", (long long)r.v_int64);
    printf("standin used %s\n", ref_calls > before ? "yes" : "no");
    r.type_index = kTVMFFINone;
    if (TVMFFIFunctionCall(miss, NULL, 0, &r) != 0) {
        objrt_ffi_error_text(err, sizeof err);
        printf("miss %s\n", err);
    }
    objrt_free(ctx);
    return 0;
}

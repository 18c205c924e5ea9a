/* host.c FUNCS.O [late] - a C host that loads a TVM-FFI unit with objrt and calls its
 * test_add(10, 20), then test_add(1.5, 2) for the raised error; it prints which TVM-FFI
 * objrt chose (objrt_ffi_external), the result and the error text. Linked against
 * libobjrt.so with whatever else the case puts before or after it (-ltvm_ffi, a
 * library defining libobjrt's names). "late": objrt's first use of TVM-FFI comes before
 * the process dlopens libtvm_ffi (RTLD_GLOBAL), and the load and calls after it. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "objrt.h"
#include "objrt/tvm_backend.h"
#include "objrt/tvm_ffi.h"

static int call(TVMFFIObjectHandle f, TVMFFIAny a, TVMFFIAny b)
{
    TVMFFIAny args[2] = { a, b }, ret = { 0 };
    char err[256];
    if (TVMFFIFunctionCall(f, args, 2, &ret) != 0) {
        objrt_ffi_error_text(err, sizeof err);
        printf("error %s\n", err);
        return 1;
    }
    printf("test_add %lld\n", (long long)ret.v_int64);
    return 0;
}

int main(int argc, char **argv)
{
    int late = argc > 2 && strcmp(argv[2], "late") == 0;
    TVMFFIAny i10 = { .type_index = kTVMFFIInt, .v_int64 = 10 };
    TVMFFIAny i20 = { .type_index = kTVMFFIInt, .v_int64 = 20 };
    TVMFFIAny f15 = { .type_index = kTVMFFIFloat, .v_float64 = 1.5 };
    TVMFFIObjectHandle f = NULL;
    objrt_ctx *ctx;
    objrt_unit *u;
    if (late) {
        printf("external before dlopen %d\n", objrt_ffi_external());
        if (!dlopen("libtvm_ffi.so", RTLD_NOW | RTLD_GLOBAL)) {
            printf("dlopen: %s\n", dlerror());
            return 2;
        }
    }
    /* an old-ABI error, reported through objrt_set_last_error inside libobjrt */
    TVMFuncCall(NULL, NULL, NULL, 0, NULL, NULL);
    printf("old-abi error: %s\n", TVMGetLastError());
    if (!(ctx = objrt_new()) || !(u = objrt_load(ctx, (const char *const *)&argv[1], 1))) {
        printf("load: %s\n", ctx ? objrt_error(ctx) : "objrt_new failed");
        return 2;
    }
    if (objrt_ffi_func(u, "test_add", &f) != 0) {
        char err[256];
        objrt_ffi_error_text(err, sizeof err);
        printf("objrt_ffi_func: %s\n", err);
        return 2;
    }
    printf("external %d\n", objrt_ffi_external());
    call(f, i10, i20);
    call(f, f15, i20);
    TVMFFIObjectDecRef(f);
    objrt_unload(u);
    objrt_free(ctx);
    return 0;
}

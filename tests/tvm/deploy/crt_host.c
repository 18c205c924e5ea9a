/* crt_host.c - a C host finds a CRT system library's functions through runtime.SystemLib,
 * as TVM's C runtime API does: load the unit with objrt, call the global
 * "runtime.SystemLib" for the module, TVMModGetFunction(mod, NAME), call it on 16 floats
 * (x = i / 4, y = -x: z = 3x + y = 2x). Prints "ok z0 z15", or "failed: ..." (exit 1).
 *   crt_host UNIT.o NAME */
#include <stdio.h>
#include <objrt.h>
#include <objrt/tvm_backend.h>

int main(int argc, char **argv)
{
    static float x[16] __attribute__((aligned(128))), y[16] __attribute__((aligned(128)));
    static float z[16] __attribute__((aligned(128)));
    int64_t shape[1] = {16};
    const char *files[] = {argv[1]};
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = argc > 2 && ctx ? objrt_load(ctx, files, 1) : NULL;
    TVMFunctionHandle syslib = NULL, f = NULL;
    TVMValue ret, v[3];
    int rcode, codes[3];
    if (!u) {
        printf("failed: load: %s\n", ctx ? objrt_error(ctx) : "no context");
        return 1;
    }
    if (TVMFuncGetGlobal("runtime.SystemLib", &syslib) != 0 || !syslib ||
        TVMFuncCall(syslib, NULL, NULL, 0, &ret, &rcode) != 0 || rcode != kTVMModuleHandle ||
        TVMModGetFunction(ret.v_handle, argv[2], 0, &f) != 0 || !f) {
        printf("failed: runtime.SystemLib has no '%s': %s\n", argv[2], TVMGetLastError());
        return 1;
    }
    for (int i = 0; i < 16; i++)
        x[i] = (float)i / 4, y[i] = -x[i];
    DLTensor t[3];
    float *data[3] = {x, y, z};
    for (int i = 0; i < 3; i++) {
        t[i] = (DLTensor){ .data = data[i], .device = {kDLCPU, 0}, .ndim = 1,
                           .dtype = {kDLFloat, 32, 1}, .shape = shape };
        v[i].v_handle = &t[i];
        codes[i] = kTVMDLTensorHandle;
    }
    if (TVMFuncCall(f, v, codes, 3, &ret, &rcode) != 0) {
        printf("failed: %s\n", TVMGetLastError());
        return 1;
    }
    printf("ok %g %g\n", z[0], z[15]);
    objrt_free(ctx);
    return 0;
}

/* align_host.c - OBJRT_CHECK_ALIGN with tensors 64 mod 128: a C host loads
 * align_kernel.o with objrt and calls it through TVMFuncCall with data at OFFSET bytes
 * past a 128-byte boundary. Prints "ok", or "failed: <last error>" (exit 1).
 *   align_host KERNEL.o OFFSET */
#include <stdio.h>
#include <stdlib.h>
#include <objrt.h>
#include <objrt/tvm_backend.h>

int main(int argc, char **argv)
{
    static float buf[2][64 + 64] __attribute__((aligned(128)));
    int64_t shape[1] = {16};
    long off = argc > 2 ? atol(argv[2]) : 0;
    objrt_ctx *ctx = objrt_new();
    const char *files[] = {argv[1]};
    objrt_unit *u = ctx ? objrt_load(ctx, files, 1) : NULL;
    TVMFunctionHandle f = u ? objrt_tvm_func(u, "add_one_aligned128") : NULL;
    if (!f) {
        printf("failed: load: %s\n", ctx ? objrt_error(ctx) : "no context");
        return 2;
    }
    DLTensor t[2];
    TVMValue v[2], ret;
    int codes[2], rcode;
    for (int i = 0; i < 2; i++) {
        t[i] = (DLTensor){ .data = (char *)buf[i] + off, .device = {kDLCPU, 0}, .ndim = 1,
                           .dtype = {kDLFloat, 32, 1}, .shape = shape };
        v[i].v_handle = &t[i];
        codes[i] = kTVMDLTensorHandle;
    }
    int rc = TVMFuncCall(f, v, codes, 2, &ret, &rcode);
    printf(rc == 0 ? "ok\n" : "failed: %s\n", TVMGetLastError());
    objrt_free(ctx);
    return rc == 0 ? 0 : 1;
}

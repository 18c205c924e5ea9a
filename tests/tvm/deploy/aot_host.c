/* aot_host.c - the C API on a TVM 0.8 AOT unit: objrt_aot_run on its packed
 * tvmgen_default_run must refuse (not return 0 with zeros), objrt_aot_run_unpacked on
 * tvmgen_default_run_model must compute relu(a * b + a) (a = 1, b = i - 32).
 * Prints "refused: <error>" and "ok" lines; exit 0 when both hold.  aot_host AOT08.o */
#include <stdio.h>
#include <objrt.h>
#include <objrt/tvm_backend.h>

int main(int argc, char **argv)
{
    static float a[64] __attribute__((aligned(128))), b[64] __attribute__((aligned(128)));
    static float o[64] __attribute__((aligned(128)));
    int64_t shape[2] = {4, 16};
    const char *files[] = {argv[argc - 1]};
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = argc > 1 && ctx ? objrt_load(ctx, files, 1) : NULL;
    if (!u) {
        printf("failed: load: %s\n", ctx ? objrt_error(ctx) : "no context");
        return 1;
    }
    DLTensor t[3];
    float *d[3] = {a, b, o};
    for (int i = 0; i < 64; i++)
        a[i] = 1, b[i] = (float)(i - 32);
    for (int i = 0; i < 3; i++)
        t[i] = (DLTensor){ .data = d[i], .device = {kDLCPU, 0}, .ndim = 2,
                           .dtype = {kDLFloat, 32, 1}, .shape = shape };
    DLTensor *in[2] = {&t[0], &t[1]}, *out[1] = {&t[2]};
    int bad = 0;
    if (objrt_aot_run(u, "tvmgen_default_run", in, 2, out, 1) == 0) {
        printf("failed: objrt_aot_run accepted 0.8's packed run\n");
        bad = 1;
    } else {
        printf("refused: %s\n", TVMGetLastError());
    }
    if (objrt_aot_run_unpacked(u, "tvmgen_default_run_model", in, 2, out, 1) != 0) {
        printf("failed: objrt_aot_run_unpacked: %s\n", TVMGetLastError());
        bad = 1;
    }
    for (int i = 0; i < 64 && !bad; i++)
        if (o[i] != (a[i] * b[i] + a[i] > 0 ? a[i] * b[i] + a[i] : 0)) {
            printf("failed: output %d is %g\n", i, o[i]);
            bad = 1;
        }
    if (!bad)
        printf("ok\n");
    objrt_free(ctx);
    return bad;
}

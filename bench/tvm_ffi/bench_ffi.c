/* bench_ffi.c - what a TVM-FFI call and load cost on objrt, against the old ABI.
 *
 *   bench_ffi calls OLD.o FFI.o CALLS   "<variant> <ns per call>" for a 1-element float32
 *       add: direct (the plain C loop), funccall (TVMFuncCall on the old packed function),
 *       ffi (TVMFFIFunctionCall on the TVM 0.26 kernel's add, from objrt_ffi_func); the
 *       variants alternate in slices of 1000 calls, CALLS each, median slice printed.
 *   bench_ffi load OLD.o FFI.o N        "load-old <us>", "load-ffi <us>": median of N
 *       objrt_load + objrt_unload cycles of each, alternating. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <objrt.h>
#include <objrt/tvm_backend.h>
#include <objrt/tvm_ffi.h>

#include "cli/timing.h"        /* the clock objrt call --repeat times itself with */

#define SLICE 1000

static double median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static objrt_unit *load(objrt_ctx *ctx, const char *path)
{
    objrt_unit *u = objrt_load(ctx, &path, 1);
    if (!u) {
        fprintf(stderr, "bench_ffi: %s\n", objrt_error(ctx));
        exit(1);
    }
    return u;
}

static int calls(const char *old, const char *ffi, long n)
{
    objrt_ctx *ctx = objrt_new();
    objrt_unit *uo = load(ctx, old), *uf = load(ctx, ffi);
    void (*direct)(const float *, const float *, float *, int64_t) =
        (void (*)(const float *, const float *, float *, int64_t))objrt_unit_sym(uo, "add_direct");
    TVMFunctionHandle h = objrt_tvm_func(uo, "add_packed");
    TVMFFIObjectHandle f = NULL;
    static float a[16], b[16], c[16];
    int64_t one = 1;
    DLTensor t[3];
    TVMValue vals[3], rv;
    int codes[3], rc;
    TVMFFIAny args[3], r;
    if (!direct || !h || objrt_ffi_func(uf, "add", &f) != 0) {
        fprintf(stderr, "bench_ffi: kernels not found\n");
        return 1;
    }
    float *data[3] = { a, b, c };
    for (int i = 0; i < 3; i++) {
        t[i] = (DLTensor){ .data = data[i], .device = { kDLCPU, 0 }, .ndim = 1,
                           .dtype = { kDLFloat, 32, 1 }, .shape = &one };
        vals[i].v_handle = &t[i];
        codes[i] = kTVMDLTensorHandle;
        args[i] = (TVMFFIAny){ .type_index = kTVMFFIDLTensorPtr, .v_ptr = &t[i] };
    }
    long slices = n / SLICE;
    double *s[3];
    for (int v = 0; v < 3; v++)
        s[v] = calloc((size_t)slices, sizeof(double));
    for (long k = 0; k < slices; k++)
        for (int v = 0; v < 3; v++) {
            long t0 = now_ns();
            for (int i = 0; i < SLICE; i++) {
                if (v == 0)
                    direct(a, b, c, 1);
                else if (v == 1)
                    TVMFuncCall(h, vals, codes, 3, &rv, &rc);
                else {
                    r.type_index = kTVMFFINone;
                    TVMFFIFunctionCall(f, args, 3, &r);
                }
                __asm__ volatile("" ::: "memory");
            }
            s[v][k] = (double)(now_ns() - t0) / SLICE;
        }
    printf("direct %.2f\nfunccall %.2f\nffi %.2f\n", median(s[0], slices), median(s[1], slices),
           median(s[2], slices));
    TVMFFIObjectDecRef(f);
    objrt_free(ctx);
    return 0;
}

static int loads(const char *old, const char *ffi, long n)
{
    objrt_ctx *ctx = objrt_new();
    double *s[2] = { calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double)) };
    for (long k = 0; k < n; k++)
        for (int v = 0; v < 2; v++) {
            long t0 = now_ns();
            objrt_unload(load(ctx, v ? ffi : old));
            s[v][k] = (double)(now_ns() - t0) / 1e3;
        }
    printf("load-old %.2f\nload-ffi %.2f\n", median(s[0], n), median(s[1], n));
    objrt_free(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "calls") == 0)
        return calls(argv[2], argv[3], atol(argv[4]));
    if (argc == 5 && strcmp(argv[1], "load") == 0)
        return loads(argv[2], argv[3], atol(argv[4]));
    fprintf(stderr, "usage: bench_ffi calls|load OLD.o FFI.o N\n");
    return 2;
}

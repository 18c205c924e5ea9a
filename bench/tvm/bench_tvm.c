/* bench_tvm.c - cost of calling a TVM kernel through objrt's host API.
 *
 *   bench_tvm overhead KERNEL.o CALLS   one line per variant: "<variant> <ns per call>" for
 *       a 1-element float32 add: direct (plain C call), packed (the packed function called
 *       by pointer) and funccall (TVMFuncCall on a TVMModGetFunction handle); the variants
 *       alternate in slices of 1000 calls (short enough that most are not preempted on a
 *       loaded machine), CALLS calls each, and the median slice is printed.
 *   bench_tvm repeat KERNEL.o N REPEAT  "c <us per call>": add_packed on float32[N] through
 *       TVMFuncCall, timed exactly as `objrt call --repeat` times it (up to 1001 batches,
 *       median per-call time of the batches). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <objrt.h>
#include <objrt/tvm_backend.h>

#include "cli/timing.h"

#define SLICE_CALLS 1000
#define MAX_SAMPLES 1001

typedef void (*direct_fn)(const float *, const float *, float *, int64_t);

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

typedef struct setup {
    TVMFunctionHandle h;
    TVMBackendPackedCFunc packed;
    direct_fn direct;
    TVMArrayHandle t[3];
    TVMValue vals[3];
    int codes[3];
} setup;

static void load(const char *obj, int64_t n, setup *s)
{
    objrt_ctx *ctx = objrt_new();
    const char *files[] = {obj};
    objrt_unit *u = objrt_load(ctx, files, 1);
    if (!u || TVMModGetFunction(objrt_tvm_module(u), "add_packed", 0, &s->h) != 0 || !s->h) {
        fprintf(stderr, "bench_tvm: %s\n", u ? TVMGetLastError() : objrt_error(ctx));
        exit(1);
    }
    s->packed = objrt_tvm_func_ptr(s->h);
    s->direct = (direct_fn)objrt_unit_sym(u, "add_direct");
    for (int i = 0; i < 3; i++) {
        if (TVMArrayAlloc(&n, 1, kDLFloat, 32, 1, kDLCPU, 0, &s->t[i]) != 0)
            exit(1);
        for (int64_t j = 0; j < n; j++)
            ((float *)s->t[i]->data)[j] = (float)(i + j);
        s->vals[i].v_handle = s->t[i];
        s->codes[i] = kTVMDLTensorHandle;
    }
}

static double slice(const setup *s, int variant, long calls)
{
    TVMValue ret;
    int rcode;
    float *a = s->t[0]->data, *b = s->t[1]->data, *c = s->t[2]->data;
    long t0 = now_ns();
    for (long i = 0; i < calls; i++) {
        if (variant == 0)
            s->direct(a, b, c, 1);
        else if (variant == 1)
            s->packed((TVMValue *)s->vals, (int *)s->codes, 3, &ret, &rcode, NULL);
        else if (TVMFuncCall(s->h, (TVMValue *)s->vals, (int *)s->codes, 3, &ret, &rcode) != 0)
            exit(1);
        __asm__ volatile("" ::: "memory");
    }
    return (double)(now_ns() - t0) / (double)calls;
}

int main(int argc, char **argv)
{
    setup s;
    if (argc == 4 && strcmp(argv[1], "overhead") == 0) {
        static const char *names[] = {"direct", "packed", "funccall"};
        long slices = atol(argv[3]) / SLICE_CALLS;
        double *ns[3];
        if (slices < 1)
            slices = 1;
        load(argv[2], 1, &s);
        for (int v = 0; v < 3; v++)
            if (!(ns[v] = malloc((size_t)slices * sizeof(double))))
                return 1;
        for (long r = 0; r < slices; r++)
            for (int v = 0; v < 3; v++)
                ns[v][r] = slice(&s, v, SLICE_CALLS);
        for (int v = 0; v < 3; v++)
            printf("%s %.2f\n", names[v], median(ns[v], (int)slices));
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "repeat") == 0) {
        static double per_call[MAX_SAMPLES];
        long n = atol(argv[4]), samples = n < MAX_SAMPLES ? n : MAX_SAMPLES;
        TVMValue ret;
        int rcode;
        load(argv[2], atol(argv[3]), &s);
        for (long k = 0; k < samples; k++) {
            long batch = n / samples + (k < n % samples), t0 = now_ns();
            for (long i = 0; i < batch; i++)
                if (TVMFuncCall(s.h, s.vals, s.codes, 3, &ret, &rcode) != 0)
                    return 1;
            per_call[k] = (double)(now_ns() - t0) / (double)batch;
        }
        printf("c %.3f\n", median(per_call, (int)samples) / 1e3);
        return 0;
    }
    fprintf(stderr, "usage: bench_tvm overhead KERNEL.o CALLS | repeat KERNEL.o N REPEAT\n");
    return 2;
}

/*
 * The demo host: loads the kernel objects with objrt, calls them, and checks every
 * result against the same computation done here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <objrt.h>

typedef float (*dot_fn)(const float *, const float *, size_t);
typedef void (*saxpy_fn)(float, const float *, float *, size_t);
typedef void (*matmul_fn)(const float *, const float *, float *, size_t, size_t, size_t);
typedef long (*hist_fn)(const unsigned char *, size_t, unsigned *);
typedef int (*median_fn)(const int *, size_t);

static int failures;

/* A kernel the unit must define: a missing one is a failed demo, not a crash. */
static void *sym(objrt_unit *u, const char *name)
{
    void *p = objrt_unit_sym(u, name);
    if (!p) {
        printf("  %-10s FAIL the unit does not define it\n", name);
        exit(1);
    }
    return p;
}

static void report(const char *what, int ok, const char *detail)
{
    printf("  %-10s %-4s %s\n", what, ok ? "ok" : "FAIL", detail);
    failures += !ok;
}

static void check_blas(objrt_unit *u)
{
    enum { N = 1000, M = 64, K = 48, P = 40 };
    static float a[N], b[N], y[N], ref[N], ma[M * K], mb[K * P], mc[M * P];
    char msg[128];
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 17) * 0.25f;
        b[i] = (float)(i % 5) - 2.0f;
        y[i] = ref[i] = (float)i;
    }
    double dot = 0;
    for (int i = 0; i < N; i++)
        dot += (double)a[i] * b[i];
    float got = ((dot_fn)sym(u, "kernel_dot"))(a, b, N);
    snprintf(msg, sizeof msg, "dot = %.2f (expected %.2f)", got, dot);
    report("dot", fabs(got - dot) < 1e-2, msg);

    ((saxpy_fn)sym(u, "kernel_saxpy"))(3.0f, a, y, N);
    int same = 1;
    for (int i = 0; i < N; i++)
        same &= fabsf(y[i] - (3.0f * a[i] + ref[i])) < 1e-4f;
    report("saxpy", same, "y = 3x + y over 1000 elements");

    for (int i = 0; i < M * K; i++)
        ma[i] = (float)((i * 7) % 11) - 5.0f;
    for (int i = 0; i < K * P; i++)
        mb[i] = (float)((i * 3) % 13) * 0.5f;
    ((matmul_fn)sym(u, "kernel_matmul"))(ma, mb, mc, M, P, K);
    double maxerr = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < P; j++) {
            double s = 0;
            for (int p = 0; p < K; p++)
                s += (double)ma[i * K + p] * mb[p * P + j];
            double e = fabs(s - mc[i * P + j]);
            maxerr = e > maxerr ? e : maxerr;
        }
    snprintf(msg, sizeof msg, "64x48 * 48x40, max error %.2g", maxerr);
    report("matmul", maxerr < 1e-3, msg);
}

static void check_misc(objrt_unit *u)
{
    enum { N = 4096 };
    static unsigned char data[N];
    static unsigned hist[256];
    static int v[101];
    char msg[128];
    long bits = 0;
    for (int i = 0; i < N; i++) {
        data[i] = (unsigned char)(i * 131 + 7);
        bits += __builtin_popcount(data[i]);
    }
    long got = ((hist_fn)sym(u, "kernel_histogram"))(data, N, hist);
    snprintf(msg, sizeof msg, "%ld set bits (expected %ld), hist[7] = %u", got, bits, hist[7]);
    report("histogram", got == bits && hist[7] == 16, msg);

    for (int i = 0; i < 101; i++)
        v[i] = (i * 37) % 101;
    int med = ((median_fn)sym(u, "kernel_median"))(v, 101);
    snprintf(msg, sizeof msg, "median of a permutation of 0..100 = %d", med);
    report("median", med == 50, msg);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s KERNEL.o|KERNELS.a...\n", argv[0]);
        return 2;
    }
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load(ctx, (const char *const *)argv + 1, (size_t)argc - 1);
    if (!u) {
        fprintf(stderr, "demo: %s\n", objrt_error(ctx));
        return 1;
    }
    objrt_stats st;
    objrt_unit_stats(u, &st);
    printf("linked %zu objects, %zu relocations in %.0f us; %zu bytes reserved, %zu used, "
           "%zu GOT slots, %zu stubs\n", st.objects, st.relocations, st.link_us,
           st.reserved_bytes, st.used_bytes, st.got_slots, st.stubs);
    check_blas(u);
    check_misc(u);
    objrt_unload(u);
    objrt_free(ctx);
    return failures ? 1 : 0;
}

/* host.c - a C host of TVM-FFI kernels, built two ways whose outputs must be equal:
 *   -DNATIVE: linked with the kernel objects and tests/tvm_ffi/ref_ffi.c (the reference)
 *   default:  linked with libobjrt, loading the kernel objects given on the command line
 * usage: host TVM PREFIX [KERNEL.o...]   (TVM: 21, 22, 24 or 26; PREFIX: the system-lib
 * prefix or "-"). Prints one "case: result" line per case; a kernel error prints as
 * "kind: message". HOST_CASE=NAME in the environment calls only function NAME. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objrt/tvm_ffi.h"
#include "objrt/tvm_backend.h"

#ifdef NATIVE
void *ref_code(const char *name, const char *pfx);
void ref_native_load(void);
#else
static objrt_unit *unit;
#endif
static int tvm;
static const char *pfx = "";

static TVMFFIObjectHandle get(const char *name)
{
    TVMFFIObjectHandle f = NULL;
#ifdef NATIVE
    void *code;
    if (!name)
        name = tvm == 21 ? (const char *)ref_code("__tvm_main__", "") : "main";
    if ((code = ref_code(name, pfx)))
        TVMFFIFunctionCreate(NULL, (TVMFFISafeCallType)code, NULL, &f);
#else
    objrt_ffi_func(unit, name, &f);
#endif
    if (!f) {
        printf("host: no function %s\n", name ? name : "(entry)");
        exit(2);
    }
    return f;
}

static void error_line(const char *c)
{
    TVMFFIObjectHandle e = NULL;
    TVMFFIErrorMoveFromRaised(&e);
    if (!e) {
        printf("%s: failed, no error raised\n", c);
        return;
    }
    const TVMFFIErrorCell *cell = (const void *)((char *)e + sizeof(TVMFFIObject));
    printf("%s: %.*s: %.*s\n", c, (int)cell->kind.size, cell->kind.data, (int)cell->message.size,
           cell->message.data);
    TVMFFIObjectDecRef(e);
}

static int call(const char *c, TVMFFIObjectHandle f, TVMFFIAny *a, int n, TVMFFIAny *r)
{
    r->type_index = kTVMFFINone;
    r->v_int64 = 0;
    if (TVMFFIFunctionCall(f, a, n, r) == 0)
        return 0;
    error_line(c);
    return -1;
}

static DLTensor vec(void *data, int64_t *shape, uint8_t code, uint8_t bits)
{
    return (DLTensor){ .data = data, .device = { kDLCPU, 0 }, .ndim = 1, .dtype = { code, bits, 1 },
                       .shape = shape };
}

static TVMFFIAny ptr(DLTensor *t) { return (TVMFFIAny){ .type_index = kTVMFFIDLTensorPtr, .v_ptr = t }; }

static int host_mul(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    if (n != 2) {
        TVMFFIErrorSetRaisedFromCStr("TypeError", "host.mul takes 2 arguments");
        return -1;
    }
    r->type_index = kTVMFFIInt;
    r->v_int64 = a[0].v_int64 * a[1].v_int64;
    return 0;
}

/* A host's context symbol: the workspace allocator a DSO-mode unit's slot gets. */
static int ctx_allocs, misalign;              /* HOST_MISALIGN=1: 64 bytes off (a control) */
static void *counting_alloc(int dt, int di, uint64_t n, int code, int bits)
{
    char *p;
    __atomic_fetch_add(&ctx_allocs, 1, __ATOMIC_RELAXED);
    p = TVMBackendAllocWorkspace(dt, di, n + 64, code, bits);
    return p && misalign ? p + 64 : p;
}

static int offset_free(int dt, int di, void *p)
{
    return TVMBackendFreeWorkspace(dt, di, misalign ? (char *)p - 64 : p);
}

static void print_floats(const char *c, const float *v, int n)
{
    printf("%s:", c);
    for (int i = 0; i < n; i++)
        printf(" %g", v[i]);
    printf("\n");
}

static void syslib(TVMFFIAny *args);

/* HOST_CASE=race: 8 threads make the unit's first callg at once (its handle initialised
 * once: TVMFFIHandleInitOnce in 0.26); every one must get 43. */
#define RACERS 8
static pthread_barrier_t race_start;
static TVMFFIObjectHandle race_fn;
static void *racer(void *out)
{
    TVMFFIAny a[2] = { { .type_index = kTVMFFIInt, .v_int64 = 6 }, { .type_index = kTVMFFIInt, .v_int64 = 7 } };
    TVMFFIAny r = { .type_index = kTVMFFINone };
    pthread_barrier_wait(&race_start);
    *(int64_t *)out = TVMFFIFunctionCall(race_fn, a, 2, &r) == 0 ? r.v_int64 : -1;
    return NULL;
}

static void race(void)
{
    pthread_t t[RACERS];
    int64_t got[RACERS];
    int ok = 1;
    race_fn = get("callg");
    pthread_barrier_init(&race_start, NULL, RACERS);
    for (int i = 0; i < RACERS; i++)
        pthread_create(&t[i], NULL, racer, &got[i]);
    for (int i = 0; i < RACERS; i++) {
        pthread_join(t[i], NULL);
        ok &= got[i] == 43;
    }
    printf("race: %d threads, first calls %s\n", RACERS, ok ? "all 43" : "wrong");
}

static void cases(void)
{
    static _Alignas(64) float a[8], b[8], c[8], x[100], y[100];
    int32_t nt[1] = { 0 }, ia[8] = { 0 };
    int64_t n8[1] = { 8 }, n7[1] = { 7 }, n100[1] = { 100 }, n1[1] = { 1 };
    TVMFFIObjectHandle add = get("add"), entry = get(NULL), par = get("par"), cg = get("callg"),
                       miss = get("miss");
    TVMFFIAny r;
    for (int i = 0; i < 8; i++)
        a[i] = (float)i + 1, b[i] = 10.0f * ((float)i + 1);
    DLTensor A = vec(a, n8, kDLFloat, 32), B = vec(b, n8, kDLFloat, 32), C = vec(c, n8, kDLFloat, 32);
    TVMFFIAny args[3] = { ptr(&A), ptr(&B), ptr(&C) };
    if (call("add", add, args, 3, &r) == 0)
        print_floats("add", c, 8);
    memset(c, 0, sizeof c);
    if (call("main", entry, args, 3, &r) == 0)
        print_floats("main", c, 8);
    /* a Tensor object: the header (0.21: 16 bytes, 0.22+: 24), then the DLTensor */
    struct { char hdr[24]; DLTensor t; } obj24 = { .t = vec(a, n8, kDLFloat, 32) };
    struct { char hdr[16]; DLTensor t; } obj16 = { .t = vec(a, n8, kDLFloat, 32) };
    TVMFFIAny targs[3] = { { .type_index = tvm == 21 ? 72 : kTVMFFITensor,
                             .v_ptr = tvm == 21 ? (void *)&obj16 : (void *)&obj24 }, ptr(&B), ptr(&C) };
    memset(c, 0, sizeof c);
    if (call("add-tensor-object", add, targs, 3, &r) == 0)
        print_floats("add-tensor-object", c, 8);
    DLTensor Ai = vec(ia, n8, kDLInt, 32), B7 = vec(b, n7, kDLFloat, 32);
    TVMFFIAny bad_dtype[3] = { ptr(&Ai), ptr(&B), ptr(&C) }, bad_shape[3] = { ptr(&A), ptr(&B7), ptr(&C) },
              bad_type[3] = { { .type_index = kTVMFFIInt, .v_int64 = 1 }, ptr(&B), ptr(&C) };
    call("add-wrong-dtype", add, bad_dtype, 3, &r);
    call("add-wrong-shape", add, bad_shape, 3, &r);
    call("add-wrong-type-index", add, bad_type, 3, &r);
    call("add-num-args", add, args, 2, &r);
    for (int i = 0; i < 100; i++)
        x[i] = (float)i;
    DLTensor X = vec(x, n100, kDLFloat, 32), Y = vec(y, n100, kDLFloat, 32), T = vec(nt, n1, kDLInt, 32);
    TVMFFIAny pargs[3] = { ptr(&X), ptr(&Y), ptr(&T) };
    if (call("par", par, pargs, 3, &r) == 0) {
        double s = 0;
        for (int i = 0; i < 100; i++)
            s += y[i];
        printf("par: num_task %d sum %g\n", nt[0], s);
        printf("ctx-alloc: the host's allocator %s\n", ctx_allocs ? "used" : "not used");
    }
    TVMFFIAny ints[2] = { { .type_index = kTVMFFIInt, .v_int64 = 6 }, { .type_index = kTVMFFIInt, .v_int64 = 7 } };
    if (call("callg", cg, ints, 2, &r) == 0)
        printf("callg: type %d value %lld\n", r.type_index, (long long)r.v_int64);
    call("miss", miss, NULL, 0, &r);
    call("nokind", get("nokind"), NULL, 0, &r);
    syslib(args);
}

/* ffi.SystemLib(prefix) and ffi.ModuleGetFunction(mod, "add", true), then add. */
static void syslib(TVMFFIAny *args)
{
    TVMFFIByteArray n1 = { "ffi.SystemLib", 13 }, n2 = { "ffi.ModuleGetFunction", 21 };
    TVMFFIObjectHandle sl = NULL, gf = NULL;
    TVMFFIAny r, m, q[3];
    float *c = ((DLTensor *)args[2].v_ptr)->data;
    if (TVMFFIFunctionGetGlobal(&n1, &sl) || !sl || TVMFFIFunctionGetGlobal(&n2, &gf) || !gf) {
        printf("syslib-add: no ffi.SystemLib or ffi.ModuleGetFunction\n");
        return;
    }
    TVMFFIAny p = { .type_index = kTVMFFIRawStr, .v_c_str = pfx };
    if (call("syslib-add", sl, &p, 1, &m) != 0)
        return;
    q[0] = m;
    q[1] = (TVMFFIAny){ .type_index = kTVMFFIRawStr, .v_c_str = "add" };
    q[2] = (TVMFFIAny){ .type_index = kTVMFFIBool, .v_int64 = 1 };
    if (call("syslib-add", gf, q, 3, &r) != 0)
        return;
    if (r.type_index != kTVMFFIFunction) {
        printf("syslib-add: ModuleGetFunction gave type %d\n", r.type_index);
        return;
    }
    memset(c, 0, 8 * sizeof *c);
    TVMFFIAny out;
    if (call("syslib-add", r.v_ptr, args, 3, &out) == 0)
        print_floats("syslib-add", c, 8);
}

#ifndef NATIVE
/* After objrt_unload, the system library no longer has the unit's add. */
static void syslib_after_unload(void)
{
    TVMFFIByteArray n1 = { "ffi.SystemLib", 13 }, n2 = { "ffi.ModuleGetFunction", 21 };
    TVMFFIObjectHandle sl = NULL, gf = NULL;
    TVMFFIAny m, r, p = { .type_index = kTVMFFIRawStr, .v_c_str = pfx }, q[3];
    TVMFFIFunctionGetGlobal(&n1, &sl);
    TVMFFIFunctionGetGlobal(&n2, &gf);
    if (call("objrt-only after-unload", sl, &p, 1, &m) != 0)
        return;
    q[0] = m;
    q[1] = (TVMFFIAny){ .type_index = kTVMFFIRawStr, .v_c_str = "add" };
    q[2] = (TVMFFIAny){ .type_index = kTVMFFIBool, .v_int64 = 1 };
    if (call("objrt-only after-unload", gf, q, 3, &r) == 0)
        printf("objrt-only after-unload: add is %s\n", r.type_index == kTVMFFINone ? "gone" : "still there");
}

/* What a lookup through mod gave: "found", "refused" (mod is no handle objrt holds: the
 * known-handle check both ABIs share, src/runtime/model.h) or "missing" (another error). */
static const char *outcome(int rc, const char *error, const char *refusal)
{
    return rc == 0 ? "found" : strstr(error, refusal) ? "refused" : "missing";
}

static void known(const char *when, void *mod)
{
    TVMFFIObjectHandle f = NULL, e = NULL;
    TVMFunctionHandle h = NULL;
    char msg[256] = "";
    int rc = TVMFFIEnvModLookupFromImports(mod, "add", &f);
    TVMFFIErrorMoveFromRaised(&e);
    if (e) {
        const TVMFFIErrorCell *cell = (const void *)((char *)e + sizeof(TVMFFIObject));
        snprintf(msg, sizeof msg, "%.*s", (int)cell->message.size, cell->message.data);
        TVMFFIObjectDecRef(e);
    }
    const char *ffi = outcome(rc || !f, msg, "is not a library context of objrt");
    TVMAPISetLastError("");
    rc = TVMBackendGetFuncFromEnv(mod, "add", &h);
    TVMFFIErrorMoveFromRaised(&e);          /* a TVM-FFI module's refusal raises: dropped */
    if (e)
        TVMFFIObjectDecRef(e);
    printf("objrt-only known-handle %s: ffi %s env %s\n", when, ffi,
           outcome(rc || !h, TVMGetLastError(), "is not a module context of objrt"));
}
#endif

int main(int argc, char **argv)
{
    TVMFFIObjectHandle mul = NULL;
    if (argc < 3) {
        fprintf(stderr, "usage: host TVM PREFIX [KERNEL.o...]\n");
        return 2;
    }
    tvm = atoi(argv[1]);
    pfx = strcmp(argv[2], "-") ? argv[2] : "";
    TVMFFIFunctionCreate(NULL, host_mul, NULL, &mul);
    TVMFFIByteArray name = { "host.mul", 8 };
    TVMFFIFunctionSetGlobal(&name, mul, 0);
    misalign = getenv("HOST_MISALIGN") != NULL;
    TVMFFIEnvModRegisterContextSymbol("__TVMBackendAllocWorkspace", (void *)counting_alloc);
    TVMFFIEnvModRegisterContextSymbol("__TVMBackendFreeWorkspace", (void *)offset_free);
#ifdef NATIVE
    ref_native_load();
#else
    objrt_ctx *ctx = objrt_new();
    if (!(unit = objrt_load(ctx, (const char *const *)argv + 3, (size_t)(argc - 3)))) {
        printf("host: %s\n", objrt_error(ctx));
        return 2;
    }
#endif
    if (getenv("HOST_CASE") && strcmp(getenv("HOST_CASE"), "race") == 0)
        race();
    else if (getenv("HOST_CASE")) {             /* one function, no arguments: the negative controls */
        TVMFFIAny r;
        fflush(stdout);
        if (call(getenv("HOST_CASE"), get(getenv("HOST_CASE")), NULL, 0, &r) == 0)
            printf("%s: returned type %d\n", getenv("HOST_CASE"), r.type_index);
    } else
        cases();
    fflush(stdout);
#ifndef NATIVE
    if (!getenv("HOST_CASE")) {             /* objrt only: unload drops the registrations */
        void *mod = objrt_ffi_module(unit);
        int foreign;
        known("unit loaded", mod);
        known("foreign address", &foreign);
        objrt_unload(unit);
        known("unit unloaded", mod);        /* compared, never read: it may be freed */
        syslib_after_unload();
    }
    objrt_free(ctx);
#endif
    return 0;
}

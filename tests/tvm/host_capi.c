/* host_capi.c - a host program written against TVM's C runtime API, run on objrt.
 *
 *   host_capi syslib DIR          system-lib kernels linked into this program (tvm_syslib.o)
 *   host_capi unit DIR FILE...    the same kernels loaded by objrt (module: objrt_tvm_module)
 *   host_capi aot DIR FILE...     TVM's AOT C interface through objrt_aot_run
 *
 * Inputs are raw float32 files written by numpy in DIR (a.bin, b.bin: [1000]; ma.bin [33,17],
 * mb.bin [17,9]; aa.bin, ab.bin [4,16]); outputs go next to them (c.bin, mc.bin, ao.bin) for
 * the suite to compare with numpy. API checks print PASS/FAIL lines (tests/lib.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <objrt.h>
#include <objrt/tvm_backend.h>

/* TVM's declarations (c_runtime_api.h, v0.20), verbatim: conflicting types with objrt's
 * header are a compile error, so a program built against TVM's header links against objrt. */
int TVMArrayAlloc(const tvm_index_t* shape, int ndim, int dtype_code, int dtype_bits,
                  int dtype_lanes, int device_type, int device_id, TVMArrayHandle* out);
int TVMArrayFree(TVMArrayHandle handle);
int TVMArrayCopyFromBytes(TVMArrayHandle handle, void* data, size_t nbytes);
int TVMArrayCopyToBytes(TVMArrayHandle handle, void* data, size_t nbytes);
int TVMFuncGetGlobal(const char* name, TVMFunctionHandle* out);
int TVMModGetFunction(TVMModuleHandle mod, const char* func_name, int query_imports,
                      TVMFunctionHandle* out);
int TVMFuncFree(TVMFunctionHandle func);
int TVMModFree(TVMModuleHandle mod);
int TVMFuncCall(TVMFunctionHandle func, TVMValue* arg_values, int* type_codes, int num_args,
                TVMValue* ret_val, int* ret_type_code);
const char* TVMGetLastError(void);

static const char *dir;
static int failures;

static void check(const char *name, int ok, const char *why)
{
    if (ok)
        printf("PASS capi-%s\n", name);
    else
        printf("FAIL capi-%s: %s (last error: %s)\n", name, why, TVMGetLastError());
    failures += !ok;
}

static void *read_file(const char *name, size_t n)
{
    char path[4096];
    void *buf = malloc(n);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f || !buf || fread(buf, 1, n, f) != n) {
        fprintf(stderr, "host_capi: cannot read %zu bytes of %s\n", n, path);
        exit(2);
    }
    fclose(f);
    return buf;
}

static void write_file(const char *name, const void *buf, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "host_capi: cannot write %s\n", path);
        exit(2);
    }
}

/* A float32 tensor of `shape`, filled from DIR/file (NULL: zeros). */
static TVMArrayHandle tensor(const char *file, int ndim, const int64_t *shape)
{
    TVMArrayHandle t;
    size_t n = 4;
    for (int i = 0; i < ndim; i++)
        n *= (size_t)shape[i];
    if (TVMArrayAlloc(shape, ndim, kDLFloat, 32, 1, kDLCPU, 0, &t) != 0) {
        fprintf(stderr, "host_capi: TVMArrayAlloc: %s\n", TVMGetLastError());
        exit(2);
    }
    if (file) {
        void *buf = read_file(file, n);
        if (TVMArrayCopyFromBytes(t, buf, n) != 0) {
            fprintf(stderr, "host_capi: TVMArrayCopyFromBytes: %s\n", TVMGetLastError());
            exit(2);
        }
        free(buf);
    }
    return t;
}

static void save(const char *file, TVMArrayHandle t, size_t n)
{
    void *buf = malloc(n);
    check(file, buf && TVMArrayCopyToBytes(t, buf, n) == 0, "TVMArrayCopyToBytes failed");
    write_file(file, buf, n);
    free(buf);
}

static int call3(TVMFunctionHandle f, TVMArrayHandle a, TVMArrayHandle b, TVMArrayHandle c)
{
    TVMValue args[3] = {{.v_handle = a}, {.v_handle = b}, {.v_handle = c}}, ret;
    int codes[3] = {kTVMDLTensorHandle, kTVMDLTensorHandle, kTVMDLTensorHandle}, rcode;
    return TVMFuncCall(f, args, codes, 3, &ret, &rcode);
}

static void check_arrays(void)
{
    TVMArrayHandle t;
    int64_t shape[2] = {3, 5}, neg[1] = {-1}, huge[2] = {INT64_MAX / 2, 4};
    char small[8];
    check("array-alloc-aligned", TVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLCPU, 0, &t) == 0 &&
          (uintptr_t)t->data % 64 == 0 && t->ndim == 2 && t->shape[1] == 5 && !t->strides,
          "not a 64-byte aligned compact tensor");
    check("copy-wrong-size-refused", TVMArrayCopyFromBytes(t, small, sizeof small) == -1 &&
          strstr(TVMGetLastError(), "8 bytes given, the tensor has 60"), "accepted 8 bytes");
    TVMArrayFree(t);
    check("alloc-gpu-refused", TVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLCUDA, 0, &t) == -1,
          "accepted a CUDA device");
    check("alloc-negative-shape-refused",
          TVMArrayAlloc(neg, 1, kDLFloat, 32, 1, kDLCPU, 0, &t) == -1, "accepted shape -1");
    check("alloc-overflow-refused",
          TVMArrayAlloc(huge, 2, kDLFloat, 32, 1, kDLCPU, 0, &t) == -1, "accepted 2^63*4 elements");
    check("alloc-bits-refused", TVMArrayAlloc(shape, 2, kDLFloat, 12, 1, kDLCPU, 0, &t) == -1,
          "accepted 12-bit elements");
}

/* add and matmul of module `mod`, results to c.bin and mc.bin */
static void run_kernels(TVMModuleHandle mod)
{
    TVMFunctionHandle add = NULL, mm = NULL, none = (void *)1, entry = NULL;
    int64_t n[1] = {1000}, sa[2] = {33, 17}, sb[2] = {17, 9}, sc[2] = {33, 9};
    check("mod-get-function", TVMModGetFunction(mod, "add", 0, &add) == 0 && add &&
          TVMModGetFunction(mod, "matmul", 1, &mm) == 0 && mm, "add or matmul not found");
    check("mod-get-missing-is-null", TVMModGetFunction(mod, "no_such_fn", 0, &none) == 0 &&
          none == NULL, "a missing function must give 0 and NULL");
    check("mod-get-tvm-main", TVMModGetFunction(mod, "__tvm_main__", 0, &entry) == 0 && entry &&
          strcmp(objrt_tvm_func_name(entry), "add") == 0, "__tvm_main__ does not name add");
    TVMArrayHandle a = tensor("a.bin", 1, n), b = tensor("b.bin", 1, n), c = tensor(NULL, 1, n);
    check("call-add", call3(add, a, b, c) == 0, "add failed");
    save("c.bin", c, 4000);
    TVMArrayHandle ma = tensor("ma.bin", 2, sa), mb = tensor("mb.bin", 2, sb);
    TVMArrayHandle mc = tensor(NULL, 2, sc);
    check("call-matmul", call3(mm, ma, mb, mc) == 0, "matmul failed");
    save("mc.bin", mc, 33 * 9 * 4);
    /* the kernel's own argument check: its message comes back through TVMGetLastError */
    check("kernel-error-text", call3(mm, ma, ma, mc) == -1 &&
          strstr(TVMGetLastError(), "matmul.B.shape[0] has an unsatisfied constraint"),
          "a [33,17] B was accepted or the message lost");
    check("func-free", TVMFuncFree(add) == 0 && TVMFuncFree(mm) == 0, "TVMFuncFree failed");
    TVMArrayFree(a), TVMArrayFree(b), TVMArrayFree(c);
    TVMArrayFree(ma), TVMArrayFree(mb), TVMArrayFree(mc);
}

static TVMModuleHandle system_lib(void)
{
    TVMFunctionHandle f = NULL, none = (void *)1;
    TVMValue ret = {.v_handle = NULL};
    int rcode = -1;
    check("get-global-system-lib", TVMFuncGetGlobal("runtime.SystemLib", &f) == 0 && f &&
          TVMFuncCall(f, NULL, NULL, 0, &ret, &rcode) == 0 && rcode == kTVMModuleHandle &&
          ret.v_handle, "runtime.SystemLib did not return a module");
    check("get-global-missing-is-null", TVMFuncGetGlobal("no.such.global", &none) == 0 &&
          none == NULL, "an unknown global must give 0 and NULL");
    return ret.v_handle;
}

static objrt_unit *load(objrt_ctx *ctx, char **files, int n)
{
    objrt_unit *u = objrt_load(ctx, (const char *const *)files, (size_t)n);
    if (!u) {
        fprintf(stderr, "host_capi: %s\n", objrt_error(ctx));
        exit(2);
    }
    return u;
}

static void run_aot(objrt_unit *u)
{
    int64_t s[2] = {4, 16};
    TVMArrayHandle in[2] = {tensor("aa.bin", 2, s), tensor("ab.bin", 2, s)}, out = tensor(NULL, 2, s);
    check("aot-run", objrt_aot_run(u, "tvmgen_default_run", in, 2, &out, 1) == 0, "failed");
    save("ao.bin", out, 256);
    check("aot-missing-entry", objrt_aot_run(u, "tvmgen_other_run", in, 2, &out, 1) == -1 &&
          strstr(TVMGetLastError(), "tvmgen_other_run"), "a missing entry was called");
    check("aot-null-tensor", objrt_aot_run(u, "tvmgen_default_run", in, 2,
          (TVMArrayHandle[]){NULL}, 1) == -1, "a NULL output was passed on");
    TVMArrayFree(in[0]), TVMArrayFree(in[1]), TVMArrayFree(out);
}

int main(int argc, char **argv)
{
    objrt_ctx *ctx = NULL;
    if (argc < 3) {
        fprintf(stderr, "usage: host_capi syslib|unit|aot DIR [FILE...]\n");
        return 2;
    }
    dir = argv[2];
    if (strcmp(argv[1], "syslib") == 0) {
        TVMModuleHandle mod = system_lib();
        check_arrays();
        run_kernels(mod);
        check("mod-free", TVMModFree(mod) == 0, "TVMModFree failed");
    } else if (strcmp(argv[1], "unit") == 0 && argc > 3) {
        ctx = objrt_new();
        objrt_unit *u = load(ctx, argv + 3, argc - 3);
        TVMModuleHandle mod = objrt_tvm_module(u), sys = system_lib();
        TVMFunctionHandle f;
        check("module-of-unit", mod != NULL, "objrt_tvm_module gave NULL");
        check("bad-module-refused", TVMModGetFunction((void *)&f, "add", 0, &f) == -1 &&
              strstr(TVMGetLastError(), "not a module handle"), "a stack address was accepted");
        run_kernels(mod);
        /* the system library sees the unit's registrations too */
        check("system-lib-finds-unit", TVMModGetFunction(sys, "matmul", 0, &f) == 0 && f,
              "matmul not found through runtime.SystemLib");
    } else if (strcmp(argv[1], "aot") == 0 && argc > 3) {
        ctx = objrt_new();
        run_aot(load(ctx, argv + 3, argc - 3));
    } else {
        fprintf(stderr, "host_capi: unknown mode '%s'\n", argv[1]);
        return 2;
    }
    objrt_free(ctx);
    return failures ? 1 : 0;
}

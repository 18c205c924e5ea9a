/* rt_load.c - kernels loaded through objrt (objrt_load + the runtime hooks), checked
 * against serial references.
 *   rt_load seed OBJ | seed-offset16 OBJ | syslib OBJ | dso OBJ     PASS/FAIL lines
 *   rt_load diag OBJ      calls fill_kernel with tensor data off by 16: prints
 *                         "called" or "refused: <message>" (the suite sets OBJRT_CHECK_ALIGN) */
#include <objrt.h>
#include <objrt/tvm_backend.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report.h"

static char why[512];
#define CHECK(cond, ...) do { if (!(cond)) { snprintf(why, sizeof why, __VA_ARGS__); return 0; } } while (0)

static objrt_ctx *ctx;
static const char *g_obj;     /* the kernel object of this run */

static objrt_unit *load(const char *path)
{
    objrt_unit *u;
    ctx = objrt_new();
    u = objrt_load(ctx, &path, 1);
    if (!u)
        snprintf(why, sizeof why, "load %s: %s", path, objrt_error(ctx));
    return u;
}

static DLTensor tensor(float *data, int64_t *shape, int ndim)
{
    DLTensor t = {data, {kDLCPU, 0}, ndim, {kDLFloat, 32, 1}, shape, NULL, 0};
    return t;
}

static int call2(TVMFunctionHandle h, DLTensor *a, DLTensor *b, int64_t extra)
{
    TVMValue args[3] = {{.v_handle = a}, {.v_handle = b}, {.v_int64 = extra}};
    int codes[3] = {kTVMDLTensorHandle, kTVMDLTensorHandle, kTVMArgInt};
    return TVMFuncCall(h, args, codes, extra ? 3 : 2, NULL, NULL);
}

/* ---------------- the seed ---------------- */

enum { ROWS = 64, COLS = 1000 };

static int run_seed(TVMFunctionHandle h, int iters)
{
    static _Alignas(128) float in[ROWS * COLS], out[ROWS * COLS];
    int64_t shape[2] = {ROWS, COLS};
    DLTensor a = tensor(in, shape, 2), b = tensor(out, shape, 2);
    for (int i = 0; i < ROWS * COLS; i++)
        in[i] = (float)(i % 101);
    for (int it = 0; it < iters; it++) {
        memset(out, 0, sizeof out);
        CHECK(call2(h, &a, &b, 0) == 0, "run %d: %s", it, TVMGetLastError());
        for (int r = 0; r < ROWS; r++)
            for (int i = 0; i < COLS; i++) {
                float want = in[r * COLS + i] * 2 + 1 + in[r * COLS + COLS - 1 - i] * 2 + 1;
                CHECK(out[r * COLS + i] == want, "run %d: out[%d][%d] = %g, want %g", it, r, i,
                      out[r * COLS + i], want);
            }
    }
    return 1;
}

static int t_seed(void)
{
    const char *obj = g_obj;
    objrt_unit *u = load(obj);
    TVMFunctionHandle h, m;
    if (!u)
        return 0;
    h = objrt_tvm_func(u, "seed_kernel");
    m = objrt_tvm_main(u);
    CHECK(h && m, "handles: %s", TVMGetLastError());
    CHECK(objrt_tvm_func_ptr(m) == objrt_sym(ctx, "seed_kernel"), "__tvm_main__ not followed");
    CHECK(objrt_set_num_threads(0) == 0, "threads");
    return run_seed(h, 1000);
}

/* The same kernel fed workspaces 16 bytes off: its aligned stores must fault. */
static void *bad_alloc(int dt, int di, uint64_t n, int c, int b)
{
    char *p = TVMBackendAllocWorkspace(dt, di, n + 16, c, b);
    return p ? p + 16 : NULL;
}

static int bad_free(int dt, int di, void *p) { return TVMBackendFreeWorkspace(dt, di, (char *)p - 16); }

static int t_seed_offset16(void)
{
    const char *obj = g_obj;
    objrt_unit *u = load(obj);
    void **slot_a, **slot_f;
    pid_t pid;
    int st;
    if (!u)
        return 0;
    slot_a = objrt_unit_sym(u, "__TVMBackendAllocWorkspace");
    slot_f = objrt_unit_sym(u, "__TVMBackendFreeWorkspace");
    CHECK(slot_a && slot_f && *slot_a == (void *)TVMBackendAllocWorkspace, "DSO slots not filled");
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        *slot_a = (void *)bad_alloc;
        *slot_f = (void *)bad_free;
        alarm(60);
        run_seed(objrt_tvm_func(u, "seed_kernel"), 1000);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && (WTERMSIG(st) == SIGSEGV || WTERMSIG(st) == SIGBUS),
          "misaligned workspace did not fault (status %#x)", st);
    return 1;
}

/* ---------------- TVM-style modules ---------------- */

static int host_offset(TVMValue *args, int *codes, int n, TVMValue *ret, int *rcode, void *res)
{
    const DLTensor *t = args[0].v_handle;
    (void)codes, (void)n, (void)ret, (void)rcode, (void)res;
    for (int64_t i = 0; i < t->shape[0]; i++)
        ((float *)t->data)[i] += (float)args[1].v_float64;
    return 0;
}

/* A TVM-style module: the host's packed function host_offset registered, then loaded. */
static objrt_unit *load_module(void)
{
    if (objrt_register_packed("host_offset", host_offset) != 0) {
        snprintf(why, sizeof why, "objrt_register_packed(host_offset) failed");
        return NULL;
    }
    return load(g_obj);
}

static int t_syslib(void)
{
    enum { N = 1001 };
    static _Alignas(128) float a[N], b[N];
    int64_t shape[1] = {N};
    DLTensor ta = tensor(a, shape, 1), tb = tensor(b, shape, 1);
    objrt_unit *u = load_module();
    TVMFunctionHandle h;
    void **ctxp;
    if (!u)
        return 0;
    ctxp = objrt_unit_sym(u, "mylib___tvm_module_ctx");
    CHECK(ctxp && *ctxp, "module context not written into mylib___tvm_module_ctx");
    h = objrt_tvm_main(u);
    CHECK(h && strcmp(objrt_tvm_func_name(h), "two_phase") == 0, "main: %s", TVMGetLastError());
    CHECK(objrt_tvm_func_ptr(h) == objrt_sym(ctx, "mylib_two_phase"), "prefix not honoured");
    for (int i = 0; i < N; i++)
        a[i] = (float)(i % 13) - 6;
    for (int threads = 1; threads <= 4; threads++) {
        objrt_set_num_threads(threads);
        for (int it = 0; it < 200; it++) {
            CHECK(call2(h, &ta, &tb, 0) == 0, "%d threads: %s", threads, TVMGetLastError());
            for (int i = 0; i < N; i++) {
                float want = (a[i] * a[i] + a[N - 1 - i] * a[N - 1 - i]) * 0.5f + 1.0f;
                CHECK(b[i] == want, "%d threads: b[%d] = %g, want %g", threads, i, b[i], want);
            }
        }
    }
    objrt_set_num_threads(0);
    /* a second copy in the same context: its registrations are its own */
    {
        objrt_unit *u2 = objrt_load(ctx, &g_obj, 1);
        void **ctx2p = u2 ? objrt_unit_sym(u2, "mylib___tvm_module_ctx") : NULL;
        TVMFunctionHandle h2 = u2 ? objrt_tvm_main(u2) : NULL;
        CHECK(u2 && ctx2p && ctx2p != ctxp && *ctx2p && *ctx2p != *ctxp, "second unit's context");
        CHECK(h2 && objrt_tvm_func_ptr(h2) == objrt_unit_sym(u2, "mylib_two_phase") &&
              objrt_tvm_func_ptr(h2) != objrt_tvm_func_ptr(h), "second unit's functions");
        CHECK(call2(h2, &ta, &tb, 0) == 0, "second unit: %s", TVMGetLastError());
        CHECK(objrt_unload(u2) == 0 && call2(h, &ta, &tb, 0) == 0, "first unit after unload");
    }
    return 1;
}

static int t_dso(void)
{
    enum { N = 777 };
    static _Alignas(128) float x[N], y[N];
    int64_t shape[1] = {N};
    DLTensor tx = tensor(x, shape, 1), ty = tensor(y, shape, 1);
    objrt_unit *u = load_module();
    TVMFunctionHandle h;
    void **slot;
    if (!u)
        return 0;
    slot = objrt_unit_sym(u, "__TVMFuncCall");
    CHECK(slot && *slot == (void *)TVMFuncCall, "__TVMFuncCall slot not filled");
    slot = objrt_unit_sym(u, "__TVMBackendParallelBarrier");
    CHECK(slot && *slot == (void *)TVMBackendParallelBarrier, "barrier slot not filled");
    slot = objrt_unit_sym(u, "__tvm_module_ctx");
    CHECK(slot && *slot, "__tvm_module_ctx not written");
    h = objrt_tvm_main(u);
    CHECK(h && strcmp(objrt_tvm_func_name(h), "dso_main") == 0, "main: %s", TVMGetLastError());
    {   /* the unit's own exported functions are packed functions of its module */
        TVMFunctionHandle own = NULL;
        CHECK(TVMBackendGetFuncFromEnv(*slot, "dso_main", &own) == 0 &&
              objrt_tvm_func_ptr(own) == objrt_sym(ctx, "dso_main"), "own function not found");
    }
    for (int i = 0; i < N; i++)
        x[i] = (float)i * 0.25f;
    objrt_set_num_threads(3);
    CHECK(call2(h, &tx, &ty, 0) == 0, "run: %s", TVMGetLastError());
    for (int i = 0; i < N; i++)
        CHECK(y[i] == x[i] * (float)(i % 7) + 1.0f, "y[%d] = %g", i, y[i]);
    CHECK(call2(h, &tx, &ty, 1) == -1, "injected failure not returned");
    CHECK(strcmp(TVMGetLastError(), "task 2: dso_main: injected failure") == 0, "error '%s'",
          TVMGetLastError());
    objrt_set_num_threads(0);
    return 1;
}

static int diag(const char *obj)
{
    static _Alignas(128) float buf[64];
    int64_t shape[1] = {32};
    DLTensor t = tensor(buf + 4, shape, 1);            /* 16 bytes off */
    TVMValue args[1] = {{.v_handle = &t}};
    int codes[1] = {kTVMDLTensorHandle};
    objrt_unit *u = load(obj);
    TVMFunctionHandle h = u ? objrt_tvm_func(u, "fill_kernel") : NULL;
    if (!h) {
        fprintf(stderr, "rt_load: %s %s\n", why, TVMGetLastError());
        return 2;
    }
    if (TVMFuncCall(h, args, codes, 1, NULL, NULL) == 0)
        printf("called\n");
    else
        printf("refused: %s\n", TVMGetLastError());
    return 0;
}

int main(int argc, char **argv)
{
    static const struct { const char *arg, *name; int (*run)(void); } cases[] = {
        {"seed", "loaded-seed-1000-runs", t_seed},
        {"seed-offset16", "loaded-seed-offset16-faults", t_seed_offset16},
        {"syslib", "loaded-syslib-two-phase", t_syslib},
        {"dso", "loaded-dso-slots-and-errors", t_dso},
    };
    if (argc != 3) {
        fprintf(stderr, "usage: rt_load seed|seed-offset16|syslib|dso|diag OBJ\n");
        return 2;
    }
    if (strcmp(argv[1], "diag") == 0)
        return diag(argv[2]);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].arg) != 0)
            continue;
        g_obj = argv[2];
        t_run(cases[i].name, cases[i].run, why);
        return t_exit_status();
    }
    fprintf(stderr, "rt_load: unknown case %s\n", argv[1]);
    return 2;
}

/* rt_test.c - kernel runtime tests that need no loader (linked directly).
 *   rt_test              run every case, one PASS/FAIL line each
 *   rt_test CASE...      run the named cases
 *   rt_test threads | affinity | spread | idle-state | busy-state | stolen   probes the suite runs under
 *                        different environments (they print values, not PASS/FAIL)
 *   rt_test sanitizer-control                a race and an overflow a sanitizer must report */
#include <objrt/tvm_backend.h>
#include <pthread.h>
#include <sched.h>
#include <dirent.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/provider.h"
#include "report.h"

static char why[512];
#define CHECK(cond, ...) do { if (!(cond)) { snprintf(why, sizeof why, __VA_ARGS__); return 0; } } while (0)

/* ---------------- workspaces ---------------- */

static int t_ws_align(void)
{
    static const size_t sizes[] = {0, 1, 63, 64, 65, 127, 128, 129, 1000, 4096, 65535, 65536,
                                   1 << 20, (4 << 20) + 3, 8 << 20};
    enum { N = sizeof sizes / sizeof sizes[0] };
    void *p[N];
    for (int i = 0; i < N; i++) {
        p[i] = TVMBackendAllocWorkspace(kDLCPU, 0, sizes[i], kDLFloat, 32);
        CHECK(p[i], "alloc %zu failed: %s", sizes[i], TVMGetLastError());
        CHECK((uintptr_t)p[i] % 128 == 0, "alloc %zu returned %p, not 128-aligned", sizes[i], p[i]);
        memset(p[i], 0xab, sizes[i]);
        for (int j = 0; j < i; j++)
            CHECK(p[i] != p[j], "alloc %zu returned a live pointer again", sizes[i]);
    }
    for (int i = N - 1; i >= 0; i--)
        CHECK(TVMBackendFreeWorkspace(kDLCPU, 0, p[i]) == 0, "free: %s", TVMGetLastError());
    return 1;
}

static int t_ws_reuse(void)
{
    void *p = objrt_ws_alloc(1000), *q;
    size_t before;
    CHECK(p && objrt_ws_free(p) == 0, "first alloc/free");
    before = objrt_ws_reserved_bytes();
    for (int i = 0; i < 1000; i++) {
        q = objrt_ws_alloc(1000);
        CHECK(q == p, "iteration %d got %p, not the cached %p", i, q, p);
        CHECK(objrt_ws_free(q) == 0, "free");
    }
    CHECK(objrt_ws_reserved_bytes() == before, "reserved bytes grew");
    return 1;
}

static int t_ws_any_order(void)
{
    enum { N = 64 };
    void *p[N];
    int order[N];
    for (int i = 0; i < N; i++) {
        p[i] = objrt_ws_alloc((size_t)(i * 977) % 70000);
        CHECK(p[i], "alloc %d", i);
        order[i] = i;
    }
    srand(7);
    for (int i = N - 1; i > 0; i--) {
        int j = rand() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < N; i++)
        CHECK(objrt_ws_free(p[order[i]]) == 0, "free #%d: %s", i, objrt_last_error());
    for (int i = 0; i < N; i++)
        CHECK(objrt_ws_free(p[i]) == -1, "second free of %p accepted", p[i]);
    return 1;
}

static int t_ws_bad_free(void)
{
    int x;
    char want[64];
    void *p = objrt_ws_alloc(256);
    CHECK(TVMBackendFreeWorkspace(kDLCPU, 0, &x) == -1, "unknown pointer accepted");
    snprintf(want, sizeof want, "%p", (void *)&x);
    CHECK(strstr(TVMGetLastError(), want), "message does not name %s: %s", want, TVMGetLastError());
    CHECK(objrt_ws_free(p) == 0, "free");
    CHECK(objrt_ws_free(p) == -1, "double free accepted");
    snprintf(want, sizeof want, "%p", p);
    CHECK(strstr(TVMGetLastError(), want) && strstr(TVMGetLastError(), "already freed"),
          "double-free message: %s", TVMGetLastError());
    return 1;
}

static int t_ws_oom(void)
{
    void *p = TVMBackendAllocWorkspace(kDLCPU, 0, UINT64_MAX / 2, kDLFloat, 32);
    CHECK(!p, "allocated 2^63 bytes");
    CHECK(strstr(TVMGetLastError(), "out of memory"), "last error: %s", TVMGetLastError());
    p = TVMBackendAllocWorkspace(kDLCPU, 0, 1ULL << 45, kDLFloat, 32);  /* 32 TiB: refused */
    if (p)
        return objrt_ws_free(p), snprintf(why, sizeof why, "32 TiB allocation succeeded"), 0;
    CHECK(strstr(TVMGetLastError(), "out of memory"), "last error: %s", TVMGetLastError());
    return 1;
}

/* Real exhaustion: in a child limited to a small address space (not under sanitizers,
 * which need huge mappings themselves). */
static int t_ws_oom_rlimit(void)
{
    pid_t pid = fork();
    int st;
    if (pid == 0) {
        struct rlimit rl = {512u << 20, 512u << 20};
        void *p;
        setrlimit(RLIMIT_AS, &rl);
        p = objrt_ws_alloc(1u << 30);
        _exit(p ? 2 : strstr(objrt_last_error(), "out of memory") ? 0 : 3);
    }
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x (2: allocated, 3: no message)", st);
    return 1;
}

static void *alloc_and_exit(void *arg)
{
    void *a = objrt_ws_alloc(4 << 20), *b = objrt_ws_alloc(1024);
    objrt_ws_free(b);
    objrt_ws_free(a);
    if (arg)
        objrt_ws_alloc(100000);        /* leaked on purpose: still returned at exit */
    return a;
}

static int t_ws_thread_exit(void)
{
    pthread_t t;
    size_t base = objrt_ws_reserved_bytes();
    for (int leak = 0; leak < 2; leak++) {
        pthread_create(&t, NULL, alloc_and_exit, leak ? &t : NULL);
        pthread_join(t, NULL);
        CHECK(objrt_ws_reserved_bytes() == base, "reserved %zu after thread exit, was %zu",
              objrt_ws_reserved_bytes(), base);
    }
    return 1;
}

static void *free_it(void *p) { return (void *)(intptr_t)objrt_ws_free(p); }

static int t_ws_other_thread_free(void)
{
    pthread_t t;
    void *p = objrt_ws_alloc(64), *rc;
    pthread_create(&t, NULL, free_it, p);
    pthread_join(t, &rc);
    CHECK((intptr_t)rc == -1, "a thread freed another thread's workspace");
    CHECK(objrt_ws_free(p) == 0, "owner could not free it");
    return 1;
}

/* ---------------- parallel launch ---------------- */

typedef struct {
    atomic_int ran[64];
    int seen_ntask;
    pthread_t caller;
    int task0_on_caller;
} count_job;

static int count_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    count_job *j = cdata;
    atomic_fetch_add(&j->ran[id], 1);
    if (id == 0) {
        j->seen_ntask = penv->num_task;
        j->task0_on_caller = pthread_equal(pthread_self(), j->caller);
    }
    return 0;
}

static int run_count(int ask, int expect)
{
    count_job j = {.caller = pthread_self()};
    CHECK(TVMBackendParallelLaunch(count_task, &j, ask) == 0, "launch(%d): %s", ask, TVMGetLastError());
    CHECK(j.seen_ntask == expect, "launch(%d): num_task %d, expected %d", ask, j.seen_ntask, expect);
    CHECK(j.task0_on_caller, "task 0 did not run on the caller");
    for (int i = 0; i < 64; i++)
        CHECK(atomic_load(&j.ran[i]) == (i < expect), "task %d ran %d times", i, atomic_load(&j.ran[i]));
    return 1;
}

static int t_launch_all(void)
{
    objrt_set_num_threads(4);
    return run_count(0, 4) && run_count(2, 2) && run_count(1, 1);
}

static int t_launch_clamp(void)
{
    objrt_set_num_threads(3);
    return run_count(1000, 3) && run_count(-5, 3);
}

static int fail_some(int id, TVMParallelGroupEnv *penv, void *cdata);

/* One thread: every launch runs on the caller, no thread is ever created. */
static int t_launch_serial(void)
{
    objrt_set_num_threads(1);
    if (!run_count(0, 1) || !run_count(8, 1))
        return 0;
    CHECK(TVMBackendParallelLaunch(fail_some, NULL, 0) == 0, "task 0 does not fail");
    return 1;
}

static int fail_some(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    char msg[32];
    (void)penv;
    (void)cdata;
    if (id < 2)
        return 0;
    snprintf(msg, sizeof msg, "boom %d", id);
    TVMAPISetLastError(msg);
    return -1;
}

/* Task 1 fails before the barrier the others wait at: the launch must end, not hang. */
static int fail_before_barrier(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    (void)cdata;
    if (id == 1)
        return TVMAPISetLastError("no workspace"), -1;
    for (int i = 0; i < 3; i++)
        if (TVMBackendParallelBarrier(id, penv) != 0)
            return -1;
    return 0;
}

static int t_launch_error(void)
{
    objrt_set_num_threads(4);
    CHECK(TVMBackendParallelLaunch(fail_some, NULL, 0) == -1, "failure not reported");
    CHECK(strcmp(TVMGetLastError(), "task 2: boom 2") == 0, "last error '%s'", TVMGetLastError());
    CHECK(TVMBackendParallelLaunch(fail_before_barrier, NULL, 0) == -1, "failure not reported");
    CHECK(strcmp(TVMGetLastError(), "task 1: no workspace") == 0, "last error '%s'", TVMGetLastError());
    return run_count(0, 4);
}

static int inner_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    int fail = *(int *)cdata;
    if (id != 0 || penv->num_task != 1 || TVMBackendParallelBarrier(id, penv) != 0)
        return TVMAPISetLastError("nested launch not serial"), -1;
    if (fail)
        TVMAPISetLastError("inner failed");
    return fail ? -1 : 0;
}

static int outer_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    (void)penv;
    int fail = *(int *)cdata && id == 1;
    return TVMBackendParallelLaunch(inner_task, &fail, 0);
}

static int t_launch_nested(void)
{
    int fail = 0;
    objrt_set_num_threads(4);
    CHECK(TVMBackendParallelLaunch(outer_task, &fail, 0) == 0, "nested: %s", TVMGetLastError());
    fail = 1;
    CHECK(TVMBackendParallelLaunch(outer_task, &fail, 0) == -1, "nested failure lost");
    CHECK(strcmp(TVMGetLastError(), "task 1: task 0: inner failed") == 0, "last error '%s'",
          TVMGetLastError());
    return 1;
}

enum { ROUNDS = 2000 };
typedef struct { atomic_int slot[64]; atomic_int bad; } barrier_job;

static int barrier_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    barrier_job *j = cdata;
    int n = penv->num_task;
    for (int r = 0; r < ROUNDS; r++) {
        /* relaxed on purpose: only the barrier's ordering makes the writes visible */
        atomic_store_explicit(&j->slot[id], r * 64 + id, memory_order_relaxed);
        TVMBackendParallelBarrier(id, penv);
        for (int k = 0; k < n; k++)
            if (atomic_load_explicit(&j->slot[k], memory_order_relaxed) != r * 64 + k)
                atomic_fetch_add(&j->bad, 1);
        TVMBackendParallelBarrier(id, penv);
    }
    return 0;
}

static int t_barrier(void)
{
    barrier_job j = {0};
    TVMParallelGroupEnv one = {NULL, 1};
    objrt_set_num_threads(4);
    CHECK(TVMBackendParallelLaunch(barrier_task, &j, 0) == 0, "launch");
    CHECK(atomic_load(&j.bad) == 0, "%d stale reads after a barrier", atomic_load(&j.bad));
    CHECK(TVMBackendParallelBarrier(0, &one) == 0, "one-task barrier");
    CHECK(TVMBackendParallelLaunch(barrier_task, &j, 1) == 0, "one-task launch");
    return 1;
}

static int sum_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    (void)penv;
    atomic_fetch_add((atomic_int *)cdata, id + 1);
    return 0;
}

static void *app_thread(void *arg)
{
    intptr_t bad = 0;
    (void)arg;
    for (int i = 0; i < 2000; i++) {
        atomic_int sum = 0;
        if (TVMBackendParallelLaunch(sum_task, &sum, 0) != 0 || atomic_load(&sum) != 4 * 5 / 2)
            bad++;
    }
    return (void *)bad;
}

static int t_concurrent(void)
{
    pthread_t t[4];
    void *bad;
    intptr_t total = 0;
    objrt_set_num_threads(4);
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, app_thread, NULL);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], &bad);
        total += (intptr_t)bad;
    }
    CHECK(total == 0, "%ld of 8000 concurrent launches wrong", (long)total);
    return 1;
}

static int t_fork(void)
{
    pid_t pid;
    int st;
    objrt_set_num_threads(3);
    if (!run_count(0, 3))
        return 0;
    pid = fork();
    if (pid == 0) {
        alarm(30);
        for (int i = 0; i < 200; i++)
            if (!run_count(0, 3))
                _exit(1);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
    return run_count(0, 3);
}

static int ws_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    void *a, *b, *c;
    (void)penv;
    (void)cdata;
    a = TVMBackendAllocWorkspace(kDLCPU, 0, 64, kDLFloat, 32);
    b = TVMBackendAllocWorkspace(kDLCPU, 0, 4096 + id, kDLFloat, 32);
    c = TVMBackendAllocWorkspace(kDLCPU, 0, 256 << 10, kDLFloat, 32);
    if (!a || !b || !c || ((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 128)
        return TVMAPISetLastError("bad workspace"), -1;
    ((char *)c)[id] = 1;
    return TVMBackendFreeWorkspace(kDLCPU, 0, b) | TVMBackendFreeWorkspace(kDLCPU, 0, c) |
           TVMBackendFreeWorkspace(kDLCPU, 0, a);
}

static long rss_kib(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%ld %ld", &pages, &rss) != 2)
        rss = 0;
    if (f)
        fclose(f);
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Tasks may run on any thread of the pool (unstarted ones are taken by free threads), so
 * every thread first caches the blocks of every task id: after that nothing may grow. A
 * barrier keeps the warm-up tasks on distinct threads. */
static int warm_all(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    int rc = TVMBackendParallelBarrier(id, penv);
    for (int k = 0; k < penv->num_task; k++)
        rc |= ws_task(k, penv, cdata);
    return rc;
}

/* Under ThreadSanitizer RSS also holds its shadow and history of whichever thread ran a
 * task (tasks move between threads): it grew ~1 MiB in 1 of 4 runs with nothing leaked. */
#ifdef __SANITIZE_THREAD__
#define RSS_SLACK_KIB 8192
#else
#define RSS_SLACK_KIB 1024
#endif

static int t_cycles(void)
{
    size_t reserved = 0;
    long rss = 0;
    objrt_set_num_threads(0);
    CHECK(TVMBackendParallelLaunch(warm_all, NULL, 0) == 0, "warm-up: %s", TVMGetLastError());
    for (int i = 0; i < 100000; i++) {
        CHECK(TVMBackendParallelLaunch(ws_task, NULL, 0) == 0, "cycle %d: %s", i, TVMGetLastError());
        if (i == 999) {
            reserved = objrt_ws_reserved_bytes();
            rss = rss_kib();
        }
    }
    CHECK(objrt_ws_reserved_bytes() == reserved, "workspace bytes %zu -> %zu", reserved,
          objrt_ws_reserved_bytes());
    CHECK(rss_kib() - rss < RSS_SLACK_KIB, "RSS grew from %ld to %ld KiB", rss, rss_kib());
    return 1;
}

/* ---------------- tasks taken by free threads (stealing) ---------------- */

/* Pin the calling thread to its first usable CPU and rebuild the pool there (workers
 * inherit the mask): every thread of the pool then competes for one CPU, the case where
 * a worker has no CPU when its task is posted. Returns the previous mask in *old. */
static int pin_one_cpu(cpu_set_t *old, int threads)
{
    cpu_set_t one;
    int c = 0;
    if (sched_getaffinity(0, sizeof *old, old) != 0)
        return 0;
    while (!CPU_ISSET(c, old))
        c++;
    CPU_ZERO(&one);
    CPU_SET(c, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return 0;
    objrt_set_num_threads(threads);
    return 1;
}

static void unpin(const cpu_set_t *old)
{
    sched_setaffinity(0, sizeof *old, old);
    objrt_set_num_threads(0);
}

typedef struct {
    atomic_int ran[8];
    atomic_int on_caller;              /* tasks > 0 the caller ran itself */
    pthread_t caller;
} steal_job;

static int steal_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    steal_job *j = cdata;
    (void)penv;
    atomic_fetch_add(&j->ran[id], 1);
    if (id > 0 && pthread_equal(pthread_self(), j->caller))
        atomic_fetch_add(&j->on_caller, 1);
    return 0;
}

/* Launches of n tasks; returns how many tasks > 0 ran on the caller, -1 if some task of
 * some launch did not run exactly once. */
static int count_stolen(int n, int launches)
{
    int stolen = 0;
    for (int l = 0; l < launches; l++) {
        steal_job j = {.caller = pthread_self()};
        if (TVMBackendParallelLaunch(steal_task, &j, n) != 0)
            return -1;
        for (int i = 0; i < 8; i++)
            if (atomic_load(&j.ran[i]) != (i < n))
                return -1;
        stolen += atomic_load(&j.on_caller);
    }
    return stolen;
}

/* Every task id runs exactly once however tasks are taken: 4 threads on one CPU (workers
 * mostly without a CPU when posted) and on all CPUs. */
static int t_steal_exactly_once(void)
{
    cpu_set_t old;
    int one_cpu, all;
    CHECK(pin_one_cpu(&old, 4), "cannot pin to one CPU");
    one_cpu = count_stolen(4, 5000);
    unpin(&old);
    objrt_set_num_threads(4);
    all = count_stolen(4, 20000);
    CHECK(one_cpu >= 0, "one CPU: a task did not run exactly once");
    CHECK(all >= 0, "all CPUs: a task did not run exactly once");
    return 1;
}

typedef struct { atomic_int slot[64]; atomic_int bad; pthread_t thread[8]; } conc_job;

/* Tasks that use the barrier must run at once, each on its own thread: none may be taken
 * by a thread that is inside another task. */
static int conc_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    conc_job *j = cdata;
    j->thread[id] = pthread_self();
    for (int r = 0; r < 20; r++) {
        atomic_store_explicit(&j->slot[id], r * 64 + id, memory_order_relaxed);
        if (TVMBackendParallelBarrier(id, penv) != 0)
            return -1;
        for (int k = 0; k < penv->num_task; k++)
            if (atomic_load_explicit(&j->slot[k], memory_order_relaxed) != r * 64 + k)
                atomic_fetch_add(&j->bad, 1);
        if (TVMBackendParallelBarrier(id, penv) != 0)
            return -1;
    }
    return 0;
}

static int t_barrier_one_cpu(void)
{
    cpu_set_t old;
    int ok = 1, distinct = 1, bad = 0;
    CHECK(pin_one_cpu(&old, 4), "cannot pin to one CPU");
    for (int l = 0; l < 200 && ok && distinct; l++) {
        conc_job j = {0};
        ok = TVMBackendParallelLaunch(conc_task, &j, 4) == 0;
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < a; b++)
                distinct &= !pthread_equal(j.thread[a], j.thread[b]);
        bad += atomic_load(&j.bad);
    }
    unpin(&old);
    CHECK(ok, "launch failed: %s", TVMGetLastError());
    CHECK(distinct, "two barrier tasks ran on one thread");
    CHECK(bad == 0, "%d stale reads after a barrier", bad);
    return 1;
}

/* ---------------- modules, once, hooks ---------------- */

static int host_add(TVMValue *args, int *codes, int n, TVMValue *ret, int *rcode, void *res)
{
    (void)res;
    if (n != 2 || codes[0] != kTVMArgInt || codes[1] != kTVMArgInt)
        return TVMAPISetLastError("host_add: bad arguments"), -1;
    ret->v_int64 = args[0].v_int64 + args[1].v_int64;
    *rcode = kTVMArgInt;
    return 0;
}

static void *host_ctx;

static int t_host_funcs(void)
{
    TVMFunctionHandle h = NULL;
    TVMValue args[2] = {{.v_int64 = 40}, {.v_int64 = 2}}, ret;
    int codes[2] = {kTVMArgInt, kTVMArgInt}, rcode;
    CHECK(TVMBackendRegisterSystemLibSymbol("__tvm_module_ctx", &host_ctx) == 0 && host_ctx,
          "host context not written");
    CHECK(objrt_register_packed("host_add", host_add) == 0, "register");
    CHECK(TVMBackendGetFuncFromEnv(host_ctx, "host_add", &h) == 0 && h, "lookup: %s", TVMGetLastError());
    CHECK(TVMFuncCall(h, args, codes, 2, &ret, &rcode) == 0 && ret.v_int64 == 42 &&
          rcode == kTVMArgInt, "call gave %ld", (long)ret.v_int64);
    CHECK(strcmp(objrt_tvm_func_name(h), "host_add") == 0, "handle name");
    CHECK(TVMBackendGetFuncFromEnv(host_ctx, "no_such_fn", &h) == -1 &&
          strstr(TVMGetLastError(), "'no_such_fn'"), "missing function: %s", TVMGetLastError());
    CHECK(TVMBackendGetFuncFromEnv((void *)0x1000, "host_add", &h) == -1, "bogus context accepted");
    return 1;
}

static atomic_int once_runs;
static int once_fn(void *cdata) { atomic_fetch_add(&once_runs, 1); return *(int *)cdata; }
static void *once_handle;
static void *race_once(void *arg) { int ok = 0; (void)arg; return (void *)(intptr_t)TVMBackendRunOnce(&once_handle, once_fn, &ok, 0); }

static int t_run_once(void)
{
    pthread_t t[4];
    void *h = NULL;
    int bad = -1, ok = 0;
    CHECK(TVMBackendRunOnce(&h, once_fn, &bad, 0) == -1 && !h, "failure not returned");
    CHECK(TVMBackendRunOnce(&h, once_fn, &ok, 0) == 0 && h, "retry after failure");
    CHECK(TVMBackendRunOnce(&h, once_fn, &bad, 0) == 0 && atomic_load(&once_runs) == 2, "ran twice");
    atomic_store(&once_runs, 0);
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, race_once, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    CHECK(atomic_load(&once_runs) == 1, "raced RunOnce ran %d times", atomic_load(&once_runs));
    return 1;
}

static int t_hooks_lookup(void)
{
    static const struct { const char *n; void *a; } abi[] = {
        {"TVMBackendAllocWorkspace", (void *)TVMBackendAllocWorkspace},
        {"TVMBackendFreeWorkspace", (void *)TVMBackendFreeWorkspace},
        {"TVMBackendParallelLaunch", (void *)TVMBackendParallelLaunch},
        {"TVMBackendParallelBarrier", (void *)TVMBackendParallelBarrier},
        {"TVMAPISetLastError", (void *)TVMAPISetLastError},
        {"TVMGetLastError", (void *)TVMGetLastError},
        {"TVMBackendGetFuncFromEnv", (void *)TVMBackendGetFuncFromEnv},
        {"TVMFuncCall", (void *)TVMFuncCall},
        {"TVMBackendRegisterSystemLibSymbol", (void *)TVMBackendRegisterSystemLibSymbol},
        {"TVMBackendRunOnce", (void *)TVMBackendRunOnce},
    };
    /* A host that loads anything calls objrt_new, whose object in libobjrt.a carries the
     * runtime's registration (Makefile): so does this test, or nothing would link it. */
    objrt_free(objrt_new());
    const objrt_provider *rt = NULL, *p;     /* registered by the runtime itself */
    for (size_t i = 0; (p = objrt_provider_at(i)); i++)
        if (strcmp(p->name, "kernel runtime") == 0)
            rt = p;
    CHECK(rt && rt->lookup, "the kernel runtime is not registered with the loader");
    for (size_t i = 0; i < sizeof abi / sizeof abi[0]; i++)
        CHECK(rt->lookup(abi[i].n) == abi[i].a, "%s not exported", abi[i].n);
    CHECK(!rt->lookup("malloc") && !rt->lookup("TVMNoSuch"), "lookup too wide");
    return 1;
}

/* The state letters of this process's threads named objrt-w*; returns how many. */
static int worker_states(char *states, int max)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    char path[300], buf[256], *p;
    int n = 0;
    while (d && (e = readdir(d)) && n < max) {
        FILE *f;
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        if (e->d_name[0] == '.' || !(f = fopen(path, "r")))
            continue;
        p = fgets(buf, sizeof buf, f) ? strrchr(buf, ')') : NULL;
        fclose(f);
        if (p && strstr(buf, "(objrt-w"))
            states[n++] = p[2];
    }
    if (d)
        closedir(d);
    return n;
}

static int t_thread_names(void)
{
    char states[64];
    int found;
    objrt_set_num_threads(3);
    if (!run_count(0, 3))
        return 0;
    found = worker_states(states, sizeof states);
    CHECK(found == 2, "found %d threads named objrt-w*", found);
    return 1;
}

/* ---------------- probes for the suite ---------------- */

/* The sanitizer runs' negative control: a data race (for TSan) and a heap overflow read
 * (for ASan) that the sanitizer must report. */
static int racy;
static void *race(void *arg) { (void)arg; racy++; return NULL; }

static int sanitizer_control(void)
{
    pthread_t t;
    volatile char *p = malloc(8);
    volatile int past_end = 8;
    pthread_create(&t, NULL, race, NULL);
    racy++;
    pthread_join(t, NULL);
    printf("%d\n", *(volatile char *)((uintptr_t)p + (uintptr_t)past_end));
    free((void *)p);
    return 0;
}

static int worker_has_caller_cpu, caller_cpu = -1;   /* probe_spread */

static int probe_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    cpu_set_t set;
    /* the barrier keeps task 1 on a worker (a free caller could otherwise run it) */
    TVMBackendParallelBarrier(id, penv);
    if (id == 0)
        ((int *)cdata)[0] = penv->num_task;
    if (id == 1 && sched_getaffinity(0, sizeof set, &set) == 0) {
        ((int *)cdata)[1] = CPU_COUNT(&set);
        worker_has_caller_cpu = caller_cpu >= 0 && CPU_ISSET(caller_cpu, &set);
    }
    return 0;
}

/* Print the state letter (R running, S sleeping, ...) of every objrt-w* thread. */
static void print_worker_states(void);

/* busy-state: task 0 samples the worker states while task 1 spins (the barrier keeps it
 * on a worker): the control that shows the probe sees a running worker, whatever the
 * machine's load (a preempted spinning thread is still R). */
static int busy_task(int id, TVMParallelGroupEnv *penv, void *cdata)
{
    atomic_int *done = cdata;
    TVMBackendParallelBarrier(id, penv);
    if (id == 0) {
        for (int sample = 0; sample < 5; sample++) {
            usleep(20000);
            print_worker_states();
        }
        printf("\n");
        atomic_store(done, 1);
    }
    while (!atomic_load(done))
        ;
    return 0;
}

static void print_worker_states(void)
{
    char states[64];
    int n = worker_states(states, sizeof states);
    printf("%.*s", n, states);
}

/* spread: the caller moves to the last usable core after the runtime has read its
 * settings (both cores usable), then launches: prints the cores task 1's worker may run
 * on and whether the caller's core is among them. */
static int probe_spread(void)
{
    cpu_set_t all, one;
    int out[2] = {0, 0}, last = -1;
    if (sched_getaffinity(0, sizeof all, &all) != 0)
        return 1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all))
            last = c;
    objrt_num_threads();               /* the settings are read now, with every core */
    CPU_ZERO(&one);
    CPU_SET(last, &one);
    caller_cpu = last;
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return 1;
    if (TVMBackendParallelLaunch(probe_task, out, 2) != 0)
        return 1;
    printf("%d %s\n", out[1], worker_has_caller_cpu ? "with-caller" : "apart");
    return 0;
}

static int probe(const char *what)
{
    int out[2] = {0, 0};
    if (strcmp(what, "spread") == 0)
        return probe_spread();
    if (TVMBackendParallelLaunch(probe_task, out, 0) != 0)
        return 1;
    if (strcmp(what, "busy-state") == 0) {
        atomic_int done = 0;
        return TVMBackendParallelLaunch(busy_task, &done, 2) != 0;
    }
    if (strcmp(what, "threads") == 0) {
        printf("%d %d\n", objrt_num_threads(), out[0]);
    } else if (strcmp(what, "affinity") == 0) {
        printf("%d\n", out[1]);
    } else if (strcmp(what, "stolen") == 0) {   /* tasks the caller took, one CPU */
        cpu_set_t old;
        int n;
        if (!pin_one_cpu(&old, 2))
            return 1;
        n = count_stolen(2, 2000);
        unpin(&old);
        printf("%d\n", n);
    } else if (strcmp(what, "idle-state") == 0) {   /* scheduler state of idle workers */
        for (int sample = 0; sample < 5; sample++) {
            usleep(20000);
            print_worker_states();
        }
        printf("\n");
    } else {
        return 2;
    }
    return 0;
}

static const struct { const char *name; int (*fn)(void); } cases[] = {
    {"ws-align-128", t_ws_align}, {"ws-reuse", t_ws_reuse}, {"ws-any-order", t_ws_any_order},
    {"ws-unknown-and-double-free", t_ws_bad_free}, {"ws-oom-null", t_ws_oom},
    {"ws-oom-rlimit", t_ws_oom_rlimit}, {"ws-thread-exit-returns-memory", t_ws_thread_exit},
    {"ws-free-from-other-thread", t_ws_other_thread_free},
    {"launch-serial-one-thread", t_launch_serial}, {"launch-all-threads", t_launch_all}, {"launch-clamp", t_launch_clamp},
    {"launch-error-propagation", t_launch_error}, {"launch-nested-serial", t_launch_nested},
    {"barrier-reuse-ordering", t_barrier}, {"launch-concurrent-4-app-threads", t_concurrent},
    {"launch-after-fork", t_fork}, {"launch-free-100k-cycles", t_cycles},
    {"host-packed-funcs", t_host_funcs}, {"run-once", t_run_once},
    {"hooks-lookup-abi", t_hooks_lookup}, {"thread-names", t_thread_names},
    {"steal-exactly-once", t_steal_exactly_once}, {"barrier-tasks-concurrent-one-cpu", t_barrier_one_cpu},
};

int main(int argc, char **argv)
{
    int ran = 0;
    if (argc == 2 && strcmp(argv[1], "sanitizer-control") == 0)
        return sanitizer_control();
    if (argc == 2 && (strcmp(argv[1], "threads") == 0 || strcmp(argv[1], "affinity") == 0 ||
                      strcmp(argv[1], "spread") == 0 ||
                      strcmp(argv[1], "idle-state") == 0 || strcmp(argv[1], "stolen") == 0 ||
                      strcmp(argv[1], "busy-state") == 0))
        return probe(argv[1]);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++)
            wanted |= strcmp(argv[a], cases[i].name) == 0;
        if (!wanted)
            continue;
        t_run(cases[i].name, cases[i].fn, why);
        ran++;
    }
    if (ran == 0)
        fprintf(stderr, "rt_test: no such case\n");
    return ran == 0 ? 2 : t_exit_status();
}

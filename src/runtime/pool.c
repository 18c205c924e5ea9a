/* pool.c - TVMBackendParallelLaunch: a lazily created fork/join thread pool.
 *
 * One launch uses the pool at a time (launch_lock). The caller publishes the job (lambda,
 * closure, and a job word holding the launch number and the task count), bumps the
 * mailbox of each worker it needs (each on its own cache line, so idle workers are not
 * disturbed) and runs task 0. Task i > 0 is run by whoever claims it first: worker i, or
 * a thread that is in no task of the launch (the caller after task 0, a worker after its
 * own task or when its own was taken). A claim is a compare-and-swap of the task's claim
 * word from an older launch number to this one: every task runs exactly once, and a
 * worker that wakes late can never claim a task of a launch that has ended.
 *
 * Why taking other tasks is safe with TVMBackendParallelBarrier, whose tasks must all run
 * at once: a thread takes a task only while it is in no task, and a worker always tries
 * its own task first, so a task nobody started still has its own worker free and posted,
 * which will start it; claimed tasks each run on their own thread. Barrier-free tasks
 * (the common case) simply run wherever a thread is free: the caller never waits for a
 * worker that has not started its task, so a worker whose CPU is taken costs it nothing.
 *
 * Waits spin, then sleep as soon as the CPU is contended (sync.c). A launch from inside a task runs serially. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt_internal.h"

typedef struct worker {
    _Alignas(64) atomic_int seq;       /* bumped by the caller: a job (or quit) is posted */
    atomic_int sleepers;
    rt_spin spin;
    struct pool *pool;
    int id;
    pthread_t tid;
    _Alignas(64) atomic_llong claim;   /* last launch whose task `id` was claimed */
} worker;

typedef struct pool {
    int requested;                     /* threads asked for */
    int first_cpu;                     /* cpus[] index of the caller's core at creation */
    int nthreads;                      /* caller + workers actually running */
    long spin_ns;
    int steal;
    long long launches;                /* launch number of the last job (launch_lock) */
    /* the current job, written by the caller before the job word is published */
    _Alignas(64) atomic_llong job;     /* launch << 16 | num_task */
    FTVMParallelLambda fn;
    void *cdata;
    atomic_int quit;
    _Alignas(64) atomic_int pending;   /* tasks 1..n-1 not finished yet */
    atomic_int caller_sleepers;
    rt_spin caller_spin;
    _Alignas(64) atomic_int err_key;   /* failure reported (see record_error), INT_MAX if none */
    pthread_mutex_t err_lock;
    char err_msg[1024];
    rt_barrier barrier;
    worker workers[];                  /* [1 .. nthreads-1] used; [i].claim is task i's */
} pool;

static pool *the_pool;
static atomic_int thread_override;      /* objrt_set_num_threads(), 0: environment */
/* What the pool holds, for objrt_num_threads (which a task may call while its launcher
 * holds launch_lock): requested * POOL_KEY + threads running; 0 without a pool. */
#define POOL_KEY 4096
static atomic_int pool_shape;
static pthread_mutex_t launch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static __thread int tl_in_task;
static __thread int tl_saw_broken;     /* this task was told a barrier broke */

/* The launch reports one failure: a task's own failure before one that only followed a
 * broken barrier, then the lowest task id. */
static void record_error(pool *p, int task)
{
    int key = (tl_saw_broken << 16) | task;
    pthread_mutex_lock(&p->err_lock);
    if (key < atomic_load_explicit(&p->err_key, memory_order_relaxed)) {
        atomic_store_explicit(&p->err_key, key, memory_order_relaxed);
        snprintf(p->err_msg, sizeof p->err_msg, "%s", TVMGetLastError());
    }
    pthread_mutex_unlock(&p->err_lock);
}

static void run_task(pool *p, int task, int num_task)
{
    TVMParallelGroupEnv env = {p, num_task};
    tl_in_task = 1;
    tl_saw_broken = 0;
    if (p->fn(task, &env, p->cdata) != 0) {
        record_error(p, task);
        rt_barrier_break(&p->barrier);
    }
    tl_in_task = 0;
}

/* Pin worker `id` (the caller, task 0's thread, is never pinned). By default, as TVM
 * does, each worker gets a core of its own when the threads fit the cores, starting with
 * the core after the one the caller ran on when the pool was made: two runtime threads
 * left on one core hand it back and forth through futex wake-ups (a context switch per
 * barrier), and the scheduler, seeing that core busy only half the time, keeps them
 * there. */
static void bind_self(const pool *p, int id)
{
    const rt_config *c = rt_config_get();
    cpu_set_t set;
    int cpu;
    if (c->bind == RT_BIND_LIST)
        cpu = c->cpus[id % c->ncpus];
    else if (c->bind == RT_BIND_SPREAD && p->requested <= c->ncpus)
        cpu = c->cpus[(p->first_cpu + id) % c->ncpus];
    else
        return;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* Index in cpus[] of the core the calling thread runs on, 0 if it is not listed. */
static int caller_cpu_index(void)
{
    const rt_config *c = rt_config_get();
    int me = sched_getcpu();
    for (int i = 0; i < c->ncpus; i++)
        if (c->cpus[i] == me)
            return i;
    return 0;
}

/* Claim task i of `launch` for the calling thread: only if no thread claimed it for this
 * launch (or a later one, which means this launch has ended). */
static int claim(pool *p, int i, long long launch)
{
    atomic_llong *c = &p->workers[i].claim;
    long long v = atomic_load_explicit(c, memory_order_relaxed);
    return v < launch && atomic_compare_exchange_strong(c, &v, launch);
}

/* Run a claimed task i > 0 and count it finished. */
static void run_claimed(pool *p, int i, int n)
{
    run_task(p, i, n);
    if (atomic_fetch_sub(&p->pending, 1) == 1)
        rt_wake_waiters(&p->pending, &p->caller_sleepers);
}

/* Run whatever is left of the current launch, starting with task `self`. */
static void work_on(pool *p, int self)
{
    long long job = atomic_load_explicit(&p->job, memory_order_acquire);
    long long launch = job >> 16;
    int n = (int)(job & 0xffff);
    if (self < n && claim(p, self, launch))
        run_claimed(p, self, n);
    for (int i = 1; p->steal && i < n; i++)
        if (i != self && claim(p, i, launch))
            run_claimed(p, i, n);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    pool *p = w->pool;
    int seen = 0;
    bind_self(p, w->id);
    for (;;) {
        seen = rt_wait(&w->seq, seen, &w->sleepers, NULL, &w->spin, p->spin_ns);
        if (atomic_load_explicit(&p->quit, memory_order_relaxed)) {
            rt_wait_thread_exit();
            return NULL;
        }
        work_on(p, w->id);
    }
}

static void post(worker *w)
{
    atomic_fetch_add(&w->seq, 1);
    rt_wake_waiters(&w->seq, &w->sleepers);
}

/* After fork() only the forking thread exists: forget the parent's pool (its memory
 * belongs to the dead workers' bookkeeping; leaking it is the only safe choice). */
static void atfork_child(void)
{
    the_pool = NULL;
    atomic_store_explicit(&pool_shape, 0, memory_order_relaxed);
    pthread_mutex_init(&launch_lock, NULL);
}

static void register_atfork(void) { pthread_atfork(NULL, NULL, atfork_child); }

static pool *pool_create(int nthreads)
{
    pool *p = calloc(1, sizeof *p + (size_t)nthreads * sizeof(worker));
    sigset_t all, old;
    char name[16];
    if (!p)
        return NULL;
    p->spin_ns = rt_config_get()->spin_ns;
    p->steal = rt_config_get()->steal;
    p->requested = nthreads;
    p->first_cpu = caller_cpu_index();
    pthread_mutex_init(&p->err_lock, NULL);
    sigfillset(&all);                  /* workers leave asynchronous signals to the app */
    pthread_sigmask(SIG_BLOCK, &all, &old);
    p->nthreads = 1;
    for (int i = 1; i < nthreads; i++) {
        worker *w = &p->workers[i];
        w->pool = p;
        w->id = i;
        if (pthread_create(&w->tid, NULL, worker_main, w) != 0)
            break;                     /* fewer threads is still correct */
        snprintf(name, sizeof name, "objrt-w%d", i % 10000);
        pthread_setname_np(w->tid, name);
        p->nthreads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return p;
}

static void pool_set(pool *p, int requested)
{
    the_pool = p;
    atomic_store_explicit(&pool_shape, requested * POOL_KEY + (p ? p->nthreads : 1),
                          memory_order_relaxed);
}

static void pool_destroy(pool *p)
{
    atomic_store_explicit(&p->quit, 1, memory_order_relaxed);
    for (int i = 1; i < p->nthreads; i++)
        post(&p->workers[i]);
    for (int i = 1; i < p->nthreads; i++)
        pthread_join(p->workers[i].tid, NULL);
    pthread_mutex_destroy(&p->err_lock);
    free(p);
}

static int wanted_threads(void)
{
    int n = atomic_load_explicit(&thread_override, memory_order_relaxed);
    return n > 0 ? n : rt_config_get()->num_threads;
}

/* The threads a launch uses: the pool's, when threads failed to start fewer than asked
 * (none at all: 1, the caller); before the first launch, the number it will ask for. */
int objrt_num_threads(void)
{
    int want = wanted_threads(), shape = atomic_load_explicit(&pool_shape, memory_order_relaxed);
    return shape && shape / POOL_KEY == want ? shape % POOL_KEY : want;
}

int objrt_set_num_threads(int n)
{
    if (tl_in_task) {
        objrt_set_last_error("objrt_set_num_threads: called from inside a parallel task");
        return -1;
    }
    pthread_mutex_lock(&launch_lock);
    if (the_pool)
        pool_destroy(the_pool);
    the_pool = NULL;
    atomic_store_explicit(&pool_shape, 0, memory_order_relaxed);
    atomic_store_explicit(&thread_override, n > 0 ? (n > 1024 ? 1024 : n) : 0, memory_order_relaxed);
    pthread_mutex_unlock(&launch_lock);
    return 0;
}

static int run_serial(FTVMParallelLambda fn, void *cdata)
{
    TVMParallelGroupEnv env = {NULL, 1};
    int outer = tl_in_task, rc;
    tl_in_task = 1;
    rc = fn(0, &env, cdata);
    tl_in_task = outer;
    if (rc != 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", TVMGetLastError());
        objrt_set_last_error("task 0: %s", msg);
        return -1;
    }
    return 0;
}

static void wait_pending(pool *p)
{
    int v;
    while ((v = atomic_load_explicit(&p->pending, memory_order_acquire)) != 0)
        rt_wait(&p->pending, v, &p->caller_sleepers, NULL, &p->caller_spin, p->spin_ns);
}

/* Run the job on n threads of p; launch_lock held. */
static int launch_on(pool *p, FTVMParallelLambda fn, void *cdata, int n)
{
    long long launch = ++p->launches;
    int failed;
    p->fn = fn;
    p->cdata = cdata;
    atomic_store_explicit(&p->err_key, INT_MAX, memory_order_relaxed);
    rt_barrier_reset(&p->barrier, p->spin_ns);
    atomic_store_explicit(&p->pending, n - 1, memory_order_relaxed);
    atomic_store_explicit(&p->job, launch << 16 | n, memory_order_release);
    for (int i = 1; i < n; i++)
        post(&p->workers[i]);
    run_task(p, 0, n);
    /* tasks no worker has started yet: run them here rather than wait for a worker that
     * may not even have a CPU */
    for (int i = n - 1; p->steal && i >= 1; i--)
        if (claim(p, i, launch))
            run_claimed(p, i, n);
    wait_pending(p);
    failed = atomic_load_explicit(&p->err_key, memory_order_relaxed);
    if (failed == INT_MAX)
        return 0;
    objrt_set_last_error("task %d: %s", failed & 0xffff, p->err_msg);
    return -1;
}

int objrt_parallel_launch(FTVMParallelLambda fn, void *cdata, int num_task)
{
    int total, n, rc;
    if (!fn) {
        objrt_set_last_error("TVMBackendParallelLaunch: null lambda");
        return -1;
    }
    if (tl_in_task)
        return run_serial(fn, cdata);
    total = wanted_threads();
    n = (num_task <= 0 || num_task > total) ? total : num_task;
    if (n == 1)
        return run_serial(fn, cdata);
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&launch_lock);
    if (!the_pool || the_pool->requested != wanted_threads()) {
        if (the_pool)
            pool_destroy(the_pool);
        total = wanted_threads();
        pool_set(pool_create(total), total);
    }
    if (!the_pool) {
        pthread_mutex_unlock(&launch_lock);
        return run_serial(fn, cdata);
    }
    if (n > the_pool->nthreads)
        n = the_pool->nthreads;
    rc = launch_on(the_pool, fn, cdata, n);
    pthread_mutex_unlock(&launch_lock);
    return rc;
}

int objrt_parallel_barrier(int task_id, TVMParallelGroupEnv *penv)
{
    (void)task_id;
    if (!penv || penv->num_task <= 1 || !penv->sync_handle)
        return 0;
    if (rt_barrier_wait(&((pool *)penv->sync_handle)->barrier, penv->num_task) == 0)
        return 0;
    tl_saw_broken = 1;
    objrt_set_last_error("TVMBackendParallelBarrier: another task of the launch failed");
    return -1;
}

int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void *cdata, int num_task)
{
    return objrt_parallel_launch(flambda, cdata, num_task);
}

int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv *penv)
{
    return objrt_parallel_barrier(task_id, penv);
}

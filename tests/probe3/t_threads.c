/* t_threads.c - objrt_num_threads() reports the threads a launch really uses (issue 40).
 * Built with -Wl,--wrap=pthread_create: the pool's pthread_create fails after ALLOW
 * successes, as it does when the process is out of threads or address space. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include "objrt/tvm_backend.h"
#include "report.h"

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
static atomic_int allow = 1 << 30;

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    if (atomic_fetch_sub(&allow, 1) <= 0)
        return EAGAIN;
    return __real_pthread_create(t, a, fn, arg);
}

static atomic_int seen_tasks, ran;

static int task(int id, TVMParallelGroupEnv *env, void *cdata)
{
    (void)id; (void)cdata;
    atomic_store(&seen_tasks, env->num_task);
    atomic_fetch_add(&ran, 1);
    return 0;
}

static char why[512];

/* Ask for 4 threads with `ok` workers able to start: objrt_num_threads() must be what a
 * launch of num_task 0 then uses, and that is 1 + ok. */
static int shape(int ok)
{
    objrt_set_num_threads(4);
    atomic_store(&allow, ok);
    atomic_store(&ran, 0);
    int rc = objrt_parallel_launch(task, NULL, 0);
    int used = atomic_load(&seen_tasks), said = objrt_num_threads();
    atomic_store(&allow, 1 << 30);
    if (rc != 0 || atomic_load(&ran) != used)
        return snprintf(why, sizeof why, "launch rc %d, %d tasks ran of %d", rc,
                        atomic_load(&ran), used), 0;
    if (used != 1 + ok || said != used)
        return snprintf(why, sizeof why, "4 threads asked, %d workers could start: the launch "
                        "used %d, objrt_num_threads() says %d", ok, used, said), 0;
    return 1;
}

static int t_one_failed(void) { return shape(2); }
static int t_none_started(void) { return shape(0); }
static int t_all_started(void) { return shape(3); }

int main(void)
{
    t_run("num_threads: a worker that failed to start is not counted", t_one_failed, why);
    t_run("num_threads: no worker started, the caller alone", t_none_started, why);
    t_run("num_threads: every worker started (control)", t_all_started, why);
    return t_exit_status();
}

/* rt_internal.h - shared internals of the kernel runtime (src/runtime/). */
#ifndef OBJRT_RT_INTERNAL_H
#define OBJRT_RT_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include "objrt/tvm_backend.h"

/* Internal names stay out of libobjrt.so's dynamic symbol table. */
#pragma GCC visibility push(hidden)

/* config.c: settings read from the environment once per process. */
enum {
    RT_BIND_NONE,         /* TVM_BIND_THREADS set to anything but 1 */
    RT_BIND_SPREAD,       /* the default: one core each, when the threads fit the cores */
    RT_BIND_LIST          /* OBJRT_CPUS: worker i on the i-th listed core */
};
typedef struct rt_config {
    int num_threads;      /* >= 1 */
    long spin_ns;         /* how long a waiting thread spins on an uncontended CPU */
    int steal;            /* threads free of a task run tasks nobody started (OBJRT_STEAL) */
    int bind;             /* RT_BIND_*: how workers are pinned to cpus[] */
    int ncpus;            /* entries in cpus[] */
    int cpus[1024];
    int check_align;      /* OBJRT_CHECK_ALIGN */
} rt_config;
const rt_config *rt_config_get(void);

/* sync.c: futex wait/wake on a 32-bit word, and the three-phase wait. */
void rt_futex_wait(atomic_int *word, int expected);
void rt_futex_wake(atomic_int *word, int n);
void rt_cpu_relax(void);
long rt_now_ns(void);
/* A wait site's learned pure-spin length (pauses a successful spin took, averaged). */
typedef struct rt_spin {
    atomic_int typical;
} rt_spin;
/* Wait until *word != old and return its new value: spin while *progress (NULL: none)
 * keeps moving, within a budget learned in s; then keep spinning for at most spin_ns
 * while no other thread wants this CPU; then sleep on a futex. The writer calls
 * rt_wake_waiters(word, sleepers) after writing. */
int rt_wait(atomic_int *word, int old, atomic_int *sleepers, atomic_int *progress, rt_spin *s,
            long spin_ns);
/* A worker that exits leaves the per-CPU count rt_wait keeps. */
void rt_wait_thread_exit(void);
void rt_wake_waiters(atomic_int *word, atomic_int *sleepers);

/* diag.c */
int rt_check_args(const char *kernel, TVMValue *args, const int *codes, int n);
int rt_check_workspace(const void *p, size_t nbytes);

/* barrier.c: a reusable, sense-reversing barrier for the tasks of one launch. */
typedef struct rt_barrier {
    _Alignas(64) atomic_int arrived;
    _Alignas(64) atomic_int generation;
    atomic_int broken;               /* a task failed: waits return -1 */
    atomic_int sleepers;
    rt_spin spin;
    long spin_ns;
} rt_barrier;
void rt_barrier_reset(rt_barrier *b, long spin_ns);
int rt_barrier_wait(rt_barrier *b, int ntask);
void rt_barrier_break(rt_barrier *b);

#pragma GCC visibility pop
#endif

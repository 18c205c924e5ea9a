/* sync.c - the waiting primitives every blocking point of the runtime is built from:
 * spin on a word for a bounded time, then sleep on it with a futex. */
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "rt_internal.h"

void rt_futex_wait(atomic_int *word, int expected)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void rt_futex_wake(atomic_int *word, int n)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void rt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

long rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int rt_spin_while_equal(atomic_int *word, int old, long spin_ns)
{
    int v = atomic_load_explicit(word, memory_order_acquire);
    long deadline = 0;
    for (unsigned i = 1; v == old && spin_ns > 0; i++) {
        rt_cpu_relax();
        v = atomic_load_explicit(word, memory_order_acquire);
        if ((i & 7) == 0) {             /* read the clock every 8 pauses: it costs more than one */
            long now = rt_now_ns();
            sched_yield();              /* on a busy machine, let the thread we wait for run */
            if (deadline == 0)
                deadline = now + spin_ns;
            else if (now > deadline)
                break;
        }
    }
    return v;
}

/* Wait until *word != old: spin first, then sleep. `sleepers` counts threads asleep on
 * the word so that rt_wake_waiters() makes a system call only when someone sleeps. Both
 * sides use sequentially consistent accesses (store word / load sleepers against
 * increment sleepers / load word), so a wake-up is never missed. */
int rt_wait_while_equal(atomic_int *word, int old, atomic_int *sleepers, long spin_ns)
{
    int v = rt_spin_while_equal(word, old, spin_ns);
    while (v == old) {
        atomic_fetch_add(sleepers, 1);
        if (atomic_load(word) == old)
            rt_futex_wait(word, old);
        atomic_fetch_sub(sleepers, 1);
        v = atomic_load_explicit(word, memory_order_acquire);
    }
    return v;
}

void rt_wake_waiters(atomic_int *word, atomic_int *sleepers)
{
    if (atomic_load(sleepers) > 0)
        rt_futex_wake(word, 0x7fffffff);
}

/* sync.c - the waiting primitive every blocking point of the runtime is built from.
 *
 * A wait has three phases, so that it stays cheap on an idle machine and degrades
 * gracefully when the thread it waits for, or the waiter itself, has to share a CPU:
 *   1. spin (pause) while the pool makes progress: the budget is counted in pauses since
 *      the last movement of a progress word (barrier arrivals, finished tasks), and it is
 *      learned per wait site from how long successful spins took there;
 *   2. keep spinning for at most spin_ns, unless that could keep the awaited thread from
 *      running. That is possible only when another runtime thread last waited on this
 *      CPU (a "shared" CPU, counted below): then phase 2 is skipped when the thread was
 *      preempted in the last CONTENDED_WINDOW_NS (its count of involuntary context
 *      switches moved), and a slow probe sched_yield() ends it. On a CPU of its own
 *      among the runtime's threads a waiter spins on even if a stranger shares the CPU:
 *      sleeping there only hands the stranger our slices, and every wake-up then costs a
 *      context switch. Either way a gap in our own clock reads (we were preempted)
 *      ends phase 2;
 *   3. sleep on a futex until woken.
 * Why not yield in a loop (as phase 2 once did): under EEVDF (Linux >= 6.6) every
 * sched_yield() pushes the caller's deadline back by a slice, so a thread that keeps
 * yielding on a busy machine is picked last, and a barrier partner waiting on it stalls;
 * a sleeper that is woken is placed ahead instead. And why not spin on regardless (as
 * libgomp does): on a loaded machine a spinner holds the CPU its partner is queued for,
 * and spinning on was far slower than sleeping right after phase 1. Skipping phase 2
 * after a recent preemption alone, on an otherwise idle machine with one busy process
 * pinned to CPU 0, made the worker that shared CPU 0 with it sleep at every barrier;
 * hence the shared-CPU test (figures: docs/perf-history.md). */
#include <linux/futex.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "rt_internal.h"

/* Pure-spin budget in pauses (a pause is ~25-40 ns here): never less than MIN (a
 * partner's reaction across cores), never more than MAX (~100 us: beyond that a
 * partner is more likely descheduled than slow). */
enum { SPIN_MIN = 64, SPIN_MAX = 4096, SPIN_FACTOR = 4 };
/* Phase 2: a gap this long between our own clock reads, or a sched_yield() this slow,
 * means another thread ran on our CPU; probe with a yield every PROBE_NS of spinning. */
enum { CONTENDED_NS = 20000, PROBE_NS = 20000 };
#define CONTENDED_WINDOW_NS 50000000L

void rt_futex_wait(atomic_int *word, int expected)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void rt_futex_wake(atomic_int *word, int n)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* The spin-wait hint is an instruction of each machine that C reaches only through a
 * compiler intrinsic or an asm statement: the one place generic code names architectures,
 * and an unknown one spins without the hint. */
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

static int spin_budget(rt_spin *s)
{
    int b = SPIN_FACTOR * atomic_load_explicit(&s->typical, memory_order_relaxed);
    return b < SPIN_MIN ? SPIN_MIN : b > SPIN_MAX ? SPIN_MAX : b;
}

/* Successful spins teach the site how long a wait usually is (moving average, 1/8 new).
 * Waits that needed phase 2 or the sleep teach nothing: they measured the scheduler. */
static void spin_learn(rt_spin *s, int pauses)
{
    int t = atomic_load_explicit(&s->typical, memory_order_relaxed);
    atomic_store_explicit(&s->typical, t + (pauses - t) / 8, memory_order_relaxed);
}

/* Phase 1. Returns the last value of *word. */
static int spin_phase(atomic_int *word, int old, atomic_int *progress, rt_spin *s)
{
    int budget = spin_budget(s), idle = 0, total = 0;
    int v = atomic_load_explicit(word, memory_order_acquire);
    int seen = progress ? atomic_load_explicit(progress, memory_order_relaxed) : 0;
    while (v == old && idle < budget) {
        rt_cpu_relax();
        idle++, total++;
        if (progress) {
            int now = atomic_load_explicit(progress, memory_order_relaxed);
            if (now != seen)
                seen = now, idle = 0;
        }
        v = atomic_load_explicit(word, memory_order_acquire);
    }
    if (v != old)
        spin_learn(s, total);
    return v;
}

/* Whether the calling thread was preempted within the last CONTENDED_WINDOW_NS: then its
 * CPU is shared, and spinning past phase 1 would only hold a CPU that the thread we wait
 * for may be queued on. One getrusage() per wait that got this far (>= a few us). */
static int recently_preempted(void)
{
    static __thread long seen = -1, changed_ns;
    struct rusage ru;
    long now = rt_now_ns();
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 1;
    if (seen < 0)
        seen = ru.ru_nivcsw, changed_ns = now - CONTENDED_WINDOW_NS;
    if (ru.ru_nivcsw != seen)
        seen = ru.ru_nivcsw, changed_ns = now;
    return now - changed_ns < CONTENDED_WINDOW_NS;
}

/* Runtime threads per CPU, each counted on the CPU of its latest wait (a worker leaves
 * the count when it exits; a caller that stops launching stays counted: a stale count
 * only makes a wait take the cautious rule). */
#define RT_MAX_CPUS 4096
static atomic_int threads_on_cpu[RT_MAX_CPUS];
static __thread int tl_cpu = -1;

/* Whether another runtime thread last waited on the calling thread's CPU. */
static int cpu_shared(void)
{
    int c = sched_getcpu();
    if (c < 0 || c >= RT_MAX_CPUS)
        return 1;
    if (c != tl_cpu) {
        if (tl_cpu >= 0)
            atomic_fetch_sub_explicit(&threads_on_cpu[tl_cpu], 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&threads_on_cpu[c], 1, memory_order_relaxed);
        tl_cpu = c;
    }
    return atomic_load_explicit(&threads_on_cpu[c], memory_order_relaxed) > 1;
}

void rt_wait_thread_exit(void)
{
    if (tl_cpu >= 0)
        atomic_fetch_sub_explicit(&threads_on_cpu[tl_cpu], 1, memory_order_relaxed);
    tl_cpu = -1;
}

/* Phase 2; `probe`: end it when a sched_yield() shows the CPU is wanted. Returns the
 * last value of *word. */
static int polite_phase(atomic_int *word, int old, long spin_ns, int probe_yield)
{
    int v = atomic_load_explicit(word, memory_order_acquire);
    long start = rt_now_ns(), last = start, probe = start;
    while (v == old && last - start < spin_ns) {
        for (int i = 0; i < 16 && v == old; i++) {
            rt_cpu_relax();
            v = atomic_load_explicit(word, memory_order_acquire);
        }
        long now = rt_now_ns();
        if (now - last > CONTENDED_NS)
            break;                          /* preempted: someone else needs this CPU */
        if (probe_yield && now - probe > PROBE_NS) {
            sched_yield();
            probe = rt_now_ns();
            if (probe - now > CONTENDED_NS)
                break;                      /* the yield ran someone: the CPU is wanted */
            now = probe;
        }
        last = now;
    }
    return atomic_load_explicit(word, memory_order_acquire);
}

/* `sleepers` counts threads asleep on the word so that rt_wake_waiters() makes a system
 * call only when someone sleeps. Both sides use sequentially consistent accesses (store
 * word / load sleepers against increment sleepers / load word), so a wake-up is never
 * missed. */
int rt_wait(atomic_int *word, int old, atomic_int *sleepers, atomic_int *progress, rt_spin *s,
            long spin_ns)
{
    int shared = cpu_shared();
    int v = spin_phase(word, old, progress, s);
    if (v == old && spin_ns > 0 && (!shared || !recently_preempted()))
        v = polite_phase(word, old, spin_ns, shared);
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

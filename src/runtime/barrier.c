/* barrier.c - TVMBackendParallelBarrier: a centralised sense-reversing barrier.
 *
 * Each task reads the generation, then arrives; the last arrival resets the count and
 * advances the generation, which releases the others. The arrival counter's release
 * sequence carries every task's writes to the last arrival, and its release store of the
 * generation carries them to every waiter (acquire), so data written before the barrier
 * is visible after it. The counter is reset before the generation moves, so the barrier
 * can be reused at once.
 *
 * A task that fails returns without reaching the barriers the others wait at; it breaks
 * the barrier instead, which releases every waiter and makes later waits return -1 at
 * once, so a failed launch ends instead of hanging.
 *
 * Waiters spin while arrivals keep coming (the arrival count is the progress word of
 * rt_wait), then spin only while nobody else wants the CPU, then sleep: a task whose
 * partner lost its CPU stops competing with it. */
#include "rt_internal.h"

void rt_barrier_reset(rt_barrier *b, long spin_ns)
{
    atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
    atomic_store_explicit(&b->broken, 0, memory_order_relaxed);
    b->spin_ns = spin_ns;
}

int rt_barrier_wait(rt_barrier *b, int ntask)
{
    int gen = atomic_load_explicit(&b->generation, memory_order_acquire);
    if (atomic_load_explicit(&b->broken, memory_order_acquire))
        return -1;
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == ntask) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add(&b->generation, 1);
        rt_wake_waiters(&b->generation, &b->sleepers);
        return 0;
    }
    rt_wait(&b->generation, gen, &b->sleepers, &b->arrived, &b->spin, b->spin_ns);
    return atomic_load_explicit(&b->broken, memory_order_acquire) ? -1 : 0;
}

void rt_barrier_break(rt_barrier *b)
{
    atomic_store(&b->broken, 1);
    atomic_fetch_add(&b->generation, 1);
    rt_wake_waiters(&b->generation, &b->sleepers);
}

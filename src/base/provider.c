/*
 * provider.c - the providers registered with the loader (provider.h), in registration
 * order. Registration happens before loads (at process start, from constructors); the
 * count is published with release order so a load on another thread sees every entry it
 * counts.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "base/provider.h"

static const objrt_provider *providers[OBJRT_PROVIDERS_MAX];
static atomic_size_t nproviders;
static pthread_mutex_t register_lock = PTHREAD_MUTEX_INITIALIZER;

int objrt_provider_register(const objrt_provider *p)
{
    int rc = 0;
    pthread_mutex_lock(&register_lock);
    size_t n = atomic_load_explicit(&nproviders, memory_order_relaxed), i = 0;
    while (i < n && providers[i] != p)
        i++;
    if (i == n) {
        if (n == OBJRT_PROVIDERS_MAX || p->nslots > OBJRT_PROVIDER_SLOTS_MAX) {
            rc = -1;
        } else {
            providers[n] = p;
            atomic_store_explicit(&nproviders, n + 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&register_lock);
    return rc;
}

const objrt_provider *objrt_provider_at(size_t i)
{
    return i < atomic_load_explicit(&nproviders, memory_order_acquire) ? providers[i] : NULL;
}

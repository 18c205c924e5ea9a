/*
 * tls_dtors.c - the destructors of C++ thread_local objects of loaded units.
 *
 * g++ registers each with __cxa_thread_atexit(dtor, obj, &__dso_handle), which glibc runs
 * at the thread's exit. glibc ties a registration to the shared object holding the
 * handle (its link map counts them, and dlclose keeps the object until they have run);
 * a unit's __dso_handle is in no link map, so an unloaded unit's destructor was still
 * called at exit, into unmapped code. objrt supplies __cxa_thread_atexit (and _impl) to
 * units instead: each registration is kept here with the unit's handle and its thread,
 * and one registration of ours with glibc per thread runs that thread's at its exit
 * (newest first, as glibc does). An unload asks first (objrt_tls_dtors_unload): the
 * unloading thread's own destructors of the unit run then; one of another running thread
 * refuses the unload (docs/limits.md says why not run it from here).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "symbols/lookup.h"

int __cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso);
extern void *__dso_handle __attribute__((visibility("hidden")));

typedef struct tls_dtor {
    struct tls_dtor *next;
    void (*fn)(void *);                 /* NULL: disarmed (its unit went with objrt_free) */
    void *obj, *dso;
    pthread_t thread;
} tls_dtor;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tls_dtor *all;                   /* every thread's, newest first */
static __thread bool hooked;            /* this thread's exit runs its registrations */

/* The newest registration of `thread` (for `dso`, or any when NULL), taken off the list. */
static tls_dtor *take(pthread_t thread, const void *dso)
{
    tls_dtor **pp, *d = NULL;
    pthread_mutex_lock(&lock);
    for (pp = &all; *pp; pp = &(*pp)->next)
        if (pthread_equal((*pp)->thread, thread) && (!dso || (*pp)->dso == dso)) {
            d = *pp;
            *pp = d->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    return d;
}

static void run_own(const void *dso)
{
    for (tls_dtor *d; (d = take(pthread_self(), dso));) {
        if (d->fn)
            d->fn(d->obj);              /* may register more: taken in turn */
        free(d);
    }
}

static void at_thread_exit(void *unused)
{
    (void)unused;
    run_own(NULL);
    hooked = false;
}

int objrt_thread_atexit(void (*fn)(void *), void *obj, void *dso)
{
    tls_dtor *d = malloc(sizeof *d);
    if (!d)
        return -1;
    if (!hooked && __cxa_thread_atexit_impl(at_thread_exit, NULL, &__dso_handle) != 0) {
        free(d);
        return -1;
    }
    hooked = true;
    *d = (tls_dtor){ .fn = fn, .obj = obj, .dso = dso, .thread = pthread_self() };
    pthread_mutex_lock(&lock);
    d->next = all;
    all = d;
    pthread_mutex_unlock(&lock);
    return 0;
}

int objrt_tls_dtors_unload(void *dso, bool force, void (**fn)(void *), void **obj)
{
    pthread_t self = pthread_self();
    int others = 0;
    pthread_mutex_lock(&lock);
    for (tls_dtor *d = all; d; d = d->next)
        if (d->dso == dso && d->fn && !pthread_equal(d->thread, self)) {
            if (!others++) {
                *fn = d->fn;
                *obj = d->obj;
            }
            if (force)
                d->fn = NULL;           /* the object is left as it is; no code is called */
        }
    pthread_mutex_unlock(&lock);
    if (others && !force)
        return others;
    run_own(dso);
    return 0;
}

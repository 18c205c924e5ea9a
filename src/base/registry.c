/*
 * registry.c - the one list of loaded units, process-wide, newest first.
 *
 * A context's lookups go through its own indexes (unitindex.c), which add and remove keep
 * in step; objrt_dso_handle_of() (atexit from loaded code, on any thread) walks all units.
 * Its lock nests inside a context's lock.
 */
#include <search.h>

#include "base/context.h"
#include "base/fork.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static objrt_unit *newest;
static void *live;              /* tsearch's root: the same units by address, for
                                   objrt_registry_has (a walk of the list cost a step per
                                   newer unit: issue 40, item 8) */

static int by_address(const void *a, const void *b)
{
    return ((uintptr_t)a > (uintptr_t)b) - ((uintptr_t)a < (uintptr_t)b);
}

int objrt_registry_add(objrt_unit *u)
{
    if (objrt_index_add(u))
        return -1;
    pthread_mutex_lock(&lock);
    if (!tsearch(u, &live, by_address)) {
        pthread_mutex_unlock(&lock);
        objrt_index_remove(u);
        return -1;
    }
    u->prev = NULL;
    u->next = newest;
    if (newest)
        newest->prev = u;
    newest = u;
    pthread_mutex_unlock(&lock);
    return 0;
}

void objrt_registry_remove(objrt_unit *u)
{
    pthread_mutex_lock(&lock);
    if (u->prev)
        u->prev->next = u->next;
    else if (newest == u)
        newest = u->next;
    if (u->next)
        u->next->prev = u->prev;
    u->prev = u->next = NULL;
    tdelete(u, &live, by_address);
    pthread_mutex_unlock(&lock);
    objrt_index_remove(u);
}

/* Is u loaded now? Compares the pointer only, so a unit already unloaded (objrt_unload
 * twice) is never read. */
bool objrt_registry_has(const objrt_unit *u)
{
    pthread_mutex_lock(&lock);
    bool in = tfind(u, &live, by_address) != NULL;
    pthread_mutex_unlock(&lock);
    return in;
}

bool objrt_ctx_enter(objrt_ctx *ctx)
{
    atomic_fetch_add_explicit(&ctx->calls, 1, memory_order_seq_cst);
    if (!atomic_load_explicit(&ctx->closed, memory_order_seq_cst))
        return true;
    objrt_fail(ctx, "context is closed");
    atomic_fetch_sub_explicit(&ctx->calls, 1, memory_order_release);
    return false;
}

void objrt_ctx_leave(objrt_ctx *ctx)
{
    atomic_fetch_sub_explicit(&ctx->calls, 1, memory_order_release);
}

/* u's context, entered as a call, if u is loaded now: found in the tree, not by a walk of
 * the list (an unload would cost a step per newer unit), and u is read only once found. */
objrt_ctx *objrt_registry_enter(const objrt_unit *u)
{
    objrt_ctx *ctx = NULL;
    pthread_mutex_lock(&lock);
    if (tfind(u, &live, by_address) && objrt_ctx_enter(u->ctx))
        ctx = u->ctx;
    pthread_mutex_unlock(&lock);
    return ctx;
}

objrt_unit *objrt_registry_next(objrt_ctx *ctx, const objrt_unit *after)
{
    pthread_mutex_lock(&lock);
    objrt_unit *u = after ? after->next : newest;
    while (u && u->ctx != ctx)
        u = u->next;
    pthread_mutex_unlock(&lock);
    return u;
}

void *objrt_unit_lookup(const objrt_unit *u, const char *name)
{
    uint32_t i = objrt_strmap_get(&u->syms, name);
    return i == OBJRT_NONE ? NULL : (void *)(uintptr_t)u->addrs[i];
}

/* One probe of the context's name index (unitindex.c), whatever the number of units: a
 * JIT session keeps many loaded. Called with ctx's lock held, as the index changes. */
void *objrt_units_lookup(objrt_ctx *ctx, const objrt_strkey *name)
{
    return objrt_index_lookup(ctx, name);
}

/* The DSO handle (reservation base) of the unit containing pc, or NULL for the host. */
void *objrt_dso_handle_of(const void *pc)
{
    void *dso = NULL;
    pthread_mutex_lock(&lock);
    for (const objrt_unit *u = newest; u && !dso; u = u->next)
        if (objrt_unit_holds(u, (uintptr_t)pc))
            dso = u->base;
    pthread_mutex_unlock(&lock);
    return dso;
}

OBJRT_FORK_LOCK(lock)

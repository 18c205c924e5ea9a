/*
 * registry.c - the one list of loaded units, process-wide, newest first.
 *
 * A context's lookups go through its own indexes (unitindex.c), which add and remove keep
 * in step; objrt_dso_handle_of() (atexit from loaded code, on any thread) walks all units.
 * Its lock nests inside a context's lock.
 */
#include <stdlib.h>

#include "base/context.h"
#include "base/fork.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static objrt_unit *newest;
/* The same units as a set of addresses, for the check every entry point given a unit makes
 * (objrt_unit_begin): open addressing, one probe for most, whatever the number of units.
 * A walk of the list cost a step per newer unit (issue 40, item 8), a search tree a cache
 * miss per level, on every objrt_unit_sym. */
static uintptr_t *live;         /* 0: an empty slot */
static size_t live_cap, live_n; /* live_cap a power of 2, at least twice live_n */

static size_t live_home(uintptr_t p)
{
    return (size_t)(((uint64_t)p * 0x9e3779b97f4a7c15ull) >> 32) & (live_cap - 1);
}

static size_t live_slot(uintptr_t p)    /* p's slot, or the empty one ending its run */
{
    size_t i = live_home(p);
    while (live[i] && live[i] != p)
        i = (i + 1) & (live_cap - 1);
    return i;
}

static bool live_has(const void *u)
{
    return live_cap && live[live_slot((uintptr_t)u)] == (uintptr_t)u;
}

static int live_add(const void *u)
{
    if (2 * (live_n + 1) > live_cap) {
        size_t old_cap = live_cap;
        uintptr_t *old = live;
        live_cap = old_cap ? 2 * old_cap : 64;
        if (!(live = calloc(live_cap, sizeof *live))) {
            live = old;
            live_cap = old_cap;
            return -1;
        }
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                live[live_slot(old[i])] = old[i];
        free(old);
    }
    live[live_slot((uintptr_t)u)] = (uintptr_t)u;
    live_n++;
    return 0;
}

/* Removal shifts back the entries after it that would no longer be reached (no tombstones,
 * so a long-lived process that loads and unloads keeps short runs). */
static void live_remove(const void *u)
{
    if (!live_has(u))
        return;
    size_t i = live_slot((uintptr_t)u), mask = live_cap - 1;
    for (size_t j = (i + 1) & mask; live[j]; j = (j + 1) & mask) {
        size_t h = live_home(live[j]);
        if (((j - h) & mask) >= ((j - i) & mask)) {    /* its home is at or before i */
            live[i] = live[j];
            i = j;
        }
    }
    live[i] = 0;
    live_n--;
}

int objrt_registry_add(objrt_unit *u)
{
    if (objrt_index_add(u))
        return -1;
    pthread_mutex_lock(&lock);
    if (live_add(u)) {
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
    live_remove(u);
    pthread_mutex_unlock(&lock);
    objrt_index_remove(u);
}

/* Is u loaded now? Compares the pointer only, so a unit already unloaded (objrt_unload
 * twice) is never read. */
bool objrt_registry_has(const objrt_unit *u)
{
    pthread_mutex_lock(&lock);
    bool in = live_has(u);
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

/* A call on ctx (objrt_ctx_enter) holding its lock: what every entry point taking a
 * context does around its work, whatever layer it lives in (a public function of debug/
 * or finish/ too, which cannot call up into loader/). */
bool objrt_ctx_begin(objrt_ctx *ctx)
{
    if (!objrt_ctx_enter(ctx))
        return false;
    pthread_mutex_lock(&ctx->lock);
    return true;
}

void objrt_ctx_end(objrt_ctx *ctx)
{
    pthread_mutex_unlock(&ctx->lock);
    objrt_ctx_leave(ctx);
}

/* The same for an entry point taking a unit: u is read only once the registry holds it,
 * and looked for again under the context's lock, as another thread may have unloaded it
 * in between (an unload holds that lock throughout). */
objrt_ctx *objrt_unit_begin(const objrt_unit *u)
{
    objrt_ctx *ctx = u ? objrt_registry_enter(u) : NULL;
    if (!ctx)
        return NULL;
    pthread_mutex_lock(&ctx->lock);
    if (objrt_registry_has(u))
        return ctx;
    objrt_ctx_end(ctx);
    return NULL;
}

objrt_ctx *objrt_unit_call(const objrt_unit *u, const char **why)
{
    objrt_ctx *ctx = u ? objrt_registry_enter(u) : NULL;
    if (!ctx)   /* only to word the reason: read again, u may go meanwhile */
        *why = u && objrt_registry_has(u) ? "its context is closed" : "not a loaded unit";
    return ctx;
}

/* u's context, entered as a call, if u is loaded now: found in the set, not by a walk of
 * the list (an unload would cost a step per newer unit), and u is read only once found. */
objrt_ctx *objrt_registry_enter(const objrt_unit *u)
{
    objrt_ctx *ctx = NULL;
    pthread_mutex_lock(&lock);
    if (live_has(u) && objrt_ctx_enter(u->ctx))
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

/* objrt_unit_sym's work under the registry's lock alone: while the registry holds u,
 * neither u nor its context can be freed (objrt_free unloads every unit before it frees
 * the context, and a unit's table does not change once it is published), so the one lock
 * gives what a counted call holding the context's lock would, at a third of the cost on
 * the lookup numba makes for every function. */
void *objrt_registry_sym(const objrt_unit *u, const char *name)
{
    void *p = NULL;
    pthread_mutex_lock(&lock);
    if (live_has(u)) {
        if (atomic_load_explicit(&u->ctx->closed, memory_order_seq_cst))
            objrt_fail(u->ctx, "context is closed");
        else if (!(p = objrt_unit_lookup(u, name)))
            objrt_fail(u->ctx, "undefined symbol: %s", name);
    }
    pthread_mutex_unlock(&lock);
    return p;
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
    for (objrt_unit *u = newest; u && !dso; u = u->next)
        if (objrt_unit_holds(u, (uintptr_t)pc)) {
            dso = u->base;
            __atomic_store_n(&u->exit_handlers, true, __ATOMIC_RELEASE);
        }
    pthread_mutex_unlock(&lock);
    return dso;
}

OBJRT_FORK_LOCK(lock)

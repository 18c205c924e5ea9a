/*
 * api.c - the public entry points (objrt.h): argument checks and the context's lock around
 * the code that does the work (pipeline.c, libsearch.c, registry.c, symbols.c).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loader/pipeline.h"
#include "finish/finish.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "symbols/lookup.h"
#include "input/input.h"
#include "arch/arch.h"
#include "debug/unitinfo.h"

objrt_ctx *objrt_new(void)
{
    objrt_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);  /* constructors may call back */
    int rc = pthread_mutex_init(&ctx->lock, &a);
    pthread_mutexattr_destroy(&a);
    if (rc || objrt_fork_track(ctx)) {    /* fork(): its lock is taken first (fork.c) */
        if (!rc)
            pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return NULL;
    }
    return ctx;
}

/* A thread_local object of the unit another running thread still holds: its destructor
 * would run at that thread's exit, from code the unload removes (symbols/tls_dtors.c). */
static int tls_refuse(objrt_unit *u, int n, void (*fn)(void *), void *obj)
{
    objrt_location loc = { 0 };
    objrt_addr_info(u->ctx, (const void *)(uintptr_t)fn, &loc);
    return objrt_fail(u->ctx, "%s: not unloaded: %d thread_local object%s of the unit belong%s "
                      "to threads still running (the first at %p, destructor %s): its "
                      "destructor runs at that thread's exit, from the unit's code; unload "
                      "after those threads end (docs/limits.md)", objrt_unit_name(u), n,
                      n == 1 ? "" : "s", n == 1 ? "s" : "", obj,
                      loc.symbol ? loc.symbol : "(no symbol)");
}

/* force (objrt_free): other threads' thread_local destructors of the unit are dropped. */
static int unload_locked(objrt_unit *u, bool force)
{
    void (*fn)(void *) = NULL;
    void *obj = NULL;
    int rc = objrt_deps_check_unload(u);    /* a later unit still calls or reads into it */
    int n = rc == 0 ? objrt_tls_dtors_unload(u->base, force, &fn, &obj) : 0;
    if (n > 0)
        return tls_refuse(u, n, fn, obj);
    if (rc == 0)
        objrt_pipeline_unload(u);
    return rc;
}

/* Closed first, so nothing more starts; then the calls already running (a load in
 * another thread) end: a load it overtook unloads what it made and fails. Only then is
 * anything taken apart. */
void objrt_free(objrt_ctx *ctx)
{
    if (!ctx)
        return;
    atomic_store(&ctx->closed, true);
    while (atomic_load(&ctx->calls) != 0)
        nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
    objrt_fork_untrack(ctx);
    ctx->closing = true;                            /* no unit's pages are kept now */
    objrt_spares_release(ctx);
    objrt_gdbjit_spare_release(ctx);
    pthread_mutex_lock(&ctx->lock);
    for (objrt_unit *u; (u = objrt_registry_next(ctx, NULL));)
        unload_locked(u, true);
    pthread_mutex_unlock(&ctx->lock);
    for (size_t i = 0; i < ctx->nlibs; i++)
        dlclose(ctx->libs[i]);
    free(ctx->libs);
    for (size_t i = 0; i < ctx->defined.n; i++)
        free((char *)ctx->defined.ents[i].key.s);   /* names were strdup()ed */
    objrt_strmap_free(&ctx->defined);
    free(ctx->defined_addr);
    objrt_host_forget(ctx);
    objrt_index_free(ctx);
    objrt_arena_release(ctx);                       /* empty now: every unit is gone */
    objrt_errors_release(ctx);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

int objrt_set_options(objrt_ctx *ctx, const objrt_options *opt)
{
    if (!ctx || !opt)
        return -1;
    size_t ps = opt->page_size;
    if (ps && ps != 4096 && ps != 16384 && ps != 65536)
        return objrt_fail(ctx, "page size %zu: use 4096, 16384 or 65536", ps);
    if (!objrt_ctx_begin(ctx))
        return -1;
    ctx->opt = *opt;
    objrt_ctx_end(ctx);
    return 0;
}

static int define_locked(objrt_ctx *ctx, const char *name, void *addr)
{
    uint32_t i = objrt_strmap_get(&ctx->defined, name);
    if (i != OBJRT_NONE) {
        ctx->defined_addr[i] = addr;
        return 0;
    }
    void **v = objrt_grow(ctx, ctx->defined_addr, &ctx->capdefined, ctx->ndefined + 1,
                          sizeof *v, 16);
    if (!v)
        return -1;
    ctx->defined_addr = v;
    char *copy = strdup(name);
    if (!copy || objrt_strmap_put(&ctx->defined, copy, (uint32_t)ctx->ndefined)) {
        free(copy);
        return objrt_fail(ctx, "out of memory");
    }
    ctx->defined_addr[ctx->ndefined++] = addr;
    return 0;
}

int objrt_define(objrt_ctx *ctx, const char *name, void *addr)
{
    if (!ctx || !name || !*name)
        return ctx ? objrt_fail(ctx, "objrt_define: empty name") : -1;
    if (!addr)      /* NULL would read as "not defined here": the lookup would go on */
        return objrt_fail(ctx, "objrt_define: '%s' given a NULL address", name);
    if (!objrt_ctx_begin(ctx))
        return -1;
    int rc = define_locked(ctx, name, addr);
    objrt_ctx_end(ctx);
    return rc;
}

int objrt_add_library(objrt_ctx *ctx, const char *name)
{
    if (!ctx || !name)
        return -1;
    void *h = objrt_lib_open(name);
    if (!h)
        return objrt_fail(ctx, "library '%s': %s", name, dlerror());
    if (!objrt_ctx_begin(ctx)) {
        dlclose(h);
        return -1;
    }
    void **v = objrt_grow(ctx, ctx->libs, &ctx->caplibs, ctx->nlibs + 1, sizeof *v, 4);
    if (v) {
        ctx->libs = v;
        v[ctx->nlibs++] = h;
    }
    objrt_ctx_end(ctx);
    if (!v)
        dlclose(h);
    return v ? 0 : -1;
}

int objrt_set_resolver(objrt_ctx *ctx, objrt_resolver fn, void *data)
{
    if (!ctx)
        return -1;
    if (!objrt_ctx_begin(ctx))
        return -1;
    ctx->resolver = fn;
    ctx->resolver_data = data;
    objrt_ctx_end(ctx);
    return 0;
}

/* paths, or else inputs: `n` of them; `who` names the call when both are missing. */
static objrt_unit *load(objrt_ctx *ctx, const char *const *paths, const objrt_input *inputs,
                        size_t n, const char *who)
{
    if (!ctx)
        return NULL;
    if (!paths && !inputs) {
        objrt_fail(ctx, "%s", who);
        return NULL;
    }
    if (n == 0) {
        objrt_fail(ctx, "nothing to load");
        return NULL;
    }
    if (!objrt_ctx_begin(ctx))
        return NULL;
    objrt_unit *u = objrt_pipeline_load(ctx, paths, inputs, n);
    if (u && atomic_load(&ctx->closed)) {       /* objrt_free is waiting: hand out nothing */
        unload_locked(u, true);
        objrt_fail(ctx, "context is closed");
        u = NULL;
    }
    objrt_ctx_end(ctx);
    return u;
}

objrt_unit *objrt_load(objrt_ctx *ctx, const char *const *paths, size_t n)
{
    return load(ctx, paths, NULL, n, "objrt_load: no paths");
}

objrt_unit *objrt_load_memory(objrt_ctx *ctx, const objrt_input *inputs, size_t n)
{
    return load(ctx, NULL, inputs, n, "objrt_load_memory: no inputs");
}

/* Unloaded already, or by another thread first: -1, and u is never read (objrt_unit_begin:
 * its context is found through the registry, and it is looked for again under the lock). */
int objrt_unload(objrt_unit *u)
{
    objrt_ctx *ctx = objrt_unit_begin(u);
    if (!ctx)
        return -1;
    int rc = unload_locked(u, false);
    objrt_ctx_end(ctx);
    return rc;
}

void *objrt_sym(objrt_ctx *ctx, const char *name)
{
    if (!ctx || !name)
        return NULL;
    if (!objrt_ctx_begin(ctx))
        return NULL;
    objrt_strkey k = objrt_strkey_of(name);
    void *p = objrt_sym_loaded(ctx, &k);
    if (!p)
        objrt_fail(ctx, "undefined symbol: %s", name);
    objrt_ctx_end(ctx);
    return p;
}

void *objrt_unit_sym(objrt_unit *u, const char *name)
{
    return u && name ? objrt_registry_sym(u, name) : NULL;
}

int objrt_unit_stats(const objrt_unit *u, objrt_stats *out)
{
    objrt_ctx *ctx = out ? objrt_unit_begin(u) : NULL;
    if (!ctx)
        return -1;
    *out = u->stats;
    objrt_ctx_end(ctx);
    return 0;
}

int objrt_memory_usage(objrt_ctx *ctx, objrt_memory *out)
{
    if (!ctx || !out)
        return -1;
    memset(out, 0, sizeof *out);
    if (!objrt_ctx_begin(ctx))
        return -1;
    objrt_arena_usage(ctx, out);
    objrt_spares_usage(ctx, out);
    objrt_ctx_end(ctx);
    return 0;
}

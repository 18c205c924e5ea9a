/*
 * api.c - the public entry points: contexts, loads (the pipeline, stage by stage),
 * unloads, definitions and libraries.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "loader/arch.h"
#include "loader/internal.h"
#include "loader/reach.h"
#include "loader/unitinfo.h"
#include "rt_hooks.h"

#if defined(__x86_64__)
#define OBJRT_MULTIARCH "x86_64-linux-gnu"
#else
#define OBJRT_MULTIARCH "aarch64-linux-gnu"
#endif

void __cxa_finalize(void *dso);

/* Every loaded unit of the process, for objrt_dso_handle_of(). */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static objrt_unit **all_units;
static size_t n_all, cap_all;

static int track_unit(objrt_unit *u)
{
    pthread_mutex_lock(&all_lock);
    if (n_all == cap_all) {
        size_t cap = cap_all ? cap_all * 2 : 16;
        objrt_unit **v = realloc(all_units, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&all_lock);
            return -1;
        }
        all_units = v;
        cap_all = cap;
    }
    all_units[n_all++] = u;
    pthread_mutex_unlock(&all_lock);
    return 0;
}

static void untrack_unit(objrt_unit *u)
{
    pthread_mutex_lock(&all_lock);
    for (size_t i = 0; i < n_all; i++)
        if (all_units[i] == u) {
            all_units[i] = all_units[--n_all];
            break;
        }
    pthread_mutex_unlock(&all_lock);
}

/* The DSO handle (reservation base) of the unit containing pc, or NULL for the host. */
void *objrt_dso_handle_of(const void *pc)
{
    void *dso = NULL;
    pthread_mutex_lock(&all_lock);
    for (size_t i = 0; i < n_all; i++)
        if ((const uint8_t *)pc >= all_units[i]->base &&
            (const uint8_t *)pc < all_units[i]->base + all_units[i]->size)
            dso = all_units[i]->base;
    pthread_mutex_unlock(&all_lock);
    return dso;
}

static void free_error_buffer(void *p) { free(p); }

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
    if (rc || pthread_key_create(&ctx->err_key, free_error_buffer)) {
        if (!rc)
            pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return NULL;
    }
    return ctx;
}

void objrt_free(objrt_ctx *ctx)
{
    if (!ctx)
        return;
    while (ctx->units)
        objrt_unload(ctx->units);
    for (size_t i = 0; i < ctx->nlibs; i++)
        dlclose(ctx->libs[i]);
    free(ctx->libs);
    for (size_t i = 0; i < ctx->defined.cap; i++)
        free((char *)ctx->defined.keys[i]);         /* names were strdup()ed */
    objrt_strmap_free(&ctx->defined);
    free(ctx->defined_addr);
    void *err = pthread_getspecific(ctx->err_key);
    pthread_key_delete(ctx->err_key);
    free(err);
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
    pthread_mutex_lock(&ctx->lock);
    ctx->opt = *opt;
    pthread_mutex_unlock(&ctx->lock);
    return 0;
}

int objrt_define(objrt_ctx *ctx, const char *name, void *addr)
{
    if (!ctx || !name || !*name)
        return ctx ? objrt_fail(ctx, "objrt_define: empty name") : -1;
    pthread_mutex_lock(&ctx->lock);
    int rc = 0;
    uint32_t i = objrt_strmap_get(&ctx->defined, name);
    if (i != OBJRT_NONE) {
        ctx->defined_addr[i] = addr;
    } else {
        char *copy = strdup(name);
        size_t cap = ctx->ndefined == ctx->capdefined ? ctx->capdefined * 2 + 16 : ctx->capdefined;
        void **v = cap != ctx->capdefined ? realloc(ctx->defined_addr, cap * sizeof *v)
                                          : ctx->defined_addr;
        if (v) {                            /* the capacity changes only once realloc succeeded */
            ctx->defined_addr = v;
            ctx->capdefined = cap;
        }
        if (!copy || !v || objrt_strmap_put(&ctx->defined, copy, (uint32_t)ctx->ndefined)) {
            free(copy);
            rc = objrt_fail(ctx, "out of memory");
        } else {
            ctx->defined_addr[ctx->ndefined++] = addr;
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

/* "m" -> the newest libm.so.N in the usual directories (libm.so itself may be a linker
 * script, which dlopen cannot read). */
static void *open_short_name(const char *name)
{
    static const char *dirs[] = { "/lib/" OBJRT_MULTIARCH, "/usr/lib/" OBJRT_MULTIARCH,
                                  "/lib", "/usr/lib", "/usr/local/lib" };
    char want[256], best[512] = "";
    snprintf(want, sizeof want, "lib%s.so", name);
    void *h = dlopen(want, RTLD_NOW | RTLD_GLOBAL);
    if (h)
        return h;
    size_t wl = strlen(want);
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0] && !best[0]; d++) {
        DIR *dir = opendir(dirs[d]);
        struct dirent *e;
        while (dir && (e = readdir(dir)))
            if (strncmp(e->d_name, want, wl) == 0 && e->d_name[wl] == '.' &&
                (!best[0] || strverscmp(e->d_name, strrchr(best, '/') + 1) > 0))
                snprintf(best, sizeof best, "%s/%s", dirs[d], e->d_name);
        if (dir)
            closedir(dir);
    }
    return best[0] ? dlopen(best, RTLD_NOW | RTLD_GLOBAL) : NULL;
}

int objrt_add_library(objrt_ctx *ctx, const char *name)
{
    if (!ctx || !name)
        return -1;
    void *h = strchr(name, '/') || strstr(name, ".so") ? dlopen(name, RTLD_NOW | RTLD_GLOBAL)
                                                        : open_short_name(name);
    if (!h)
        return objrt_fail(ctx, "library '%s': %s", name, dlerror());
    pthread_mutex_lock(&ctx->lock);
    void **v = realloc(ctx->libs, (ctx->nlibs + 1) * sizeof *v);
    if (!v) {
        pthread_mutex_unlock(&ctx->lock);
        dlclose(h);
        return objrt_fail(ctx, "out of memory");
    }
    ctx->libs = v;
    v[ctx->nlibs++] = h;
    pthread_mutex_unlock(&ctx->lock);
    return 0;
}

void objrt_link_release(objrt_link *l)
{
    for (size_t i = 0; i < l->nobjs; i++)
        objrt_obj_free(l->objs[i]);
    free(l->objs);
    for (size_t i = 0; i < l->nblobs; i++)
        munmap(l->blobs[i].map, l->blobs[i].size);
    free(l->blobs);
    free(l->gsyms);
    objrt_strmap_free(&l->gmap);
    objrt_strmap_free(&l->archive_index);
    objrt_tls_release(&l->tls);
    objrt_keymap_free(&l->plan.got_map);
    objrt_keymap_free(&l->plan.stub_map);
    free(l->plan.got_keys);
    free(l->plan.stub_keys);
    free(l->plan.stub_blocks);
    free(l->plan.items);
    free(l->plan.winrefs);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void free_unit(objrt_unit *u)
{
    objrt_unitinfo_detach(u);
    objrt_unprotect_release(u);
    objrt_memdso_close(u->tls_module, u->tls_fd);   /* after the code that reaches it */
    objrt_memdso_close(u->export_module, u->export_fd);
    objrt_strmap_free(&u->syms);
    free(u->addrs);
    free(u->room);
    free(u->names);
    free(u->eh_frames);
    free(u->dtors.fn);
    free(u);
}

static size_t count_items(const objrt_plan *p, int kind)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nitems; i++)
        n += p->items[i].kind == kind;
    return n;
}

static void fill_stats(objrt_link *l, objrt_unit *u, double t0)
{
    objrt_stats *s = &u->stats;
    s->link_us = now_us() - t0;
    for (size_t m = 0; m < l->nobjs; m++)
        s->objects += l->objs[m]->pulled;
    s->relocations = l->plan.relocations;
    s->reserved_bytes = l->plan.total;
    s->used_bytes = l->plan.used;
    s->got_slots = l->plan.got_slots;
    s->stubs = l->plan.stubs;
    s->stubs_used = l->stubs_used;
}

/* parse -> resolve -> plan -> place -> relocate -> protect; the unit is not yet visible. */
static objrt_unit *link_unit(objrt_link *l, double t0)
{
    objrt_unit *u = calloc(1, sizeof *u);
    if (!u) {
        objrt_fail(l->ctx, "out of memory");
        return NULL;
    }
    u->ctx = l->ctx;
    if (objrt_resolve(l) || objrt_interpose(l) || objrt_plan_layout(l) || objrt_place(l)) {
        free_unit(u);
        return NULL;
    }
    u->base = l->base;
    u->size = l->plan.total;
    memcpy(u->group_off, l->plan.group_off, sizeof u->group_off);
    memcpy(u->group_size, l->plan.group_size, sizeof u->group_size);
    u->eh_frames = calloc(count_items(&l->plan, IT_EH_FRAME) + 1, sizeof *u->eh_frames);
    if (!u->eh_frames || objrt_tls_load(l) || objrt_relocate(l) ||
        objrt_unit_index_symbols(l, u) || objrt_protect(l, u) || objrt_unitinfo_attach(l, u)) {
        if (!u->eh_frames)
            objrt_fail(l->ctx, "out of memory");
        free_unit(u);
        return NULL;
    }
    u->tls_module = l->tls.handle;      /* the unit owns its TLS module from here */
    u->tls_fd = l->tls.fd;
    l->tls.handle = NULL;
    fill_stats(l, u, t0);
    objrt_perfmap_write(l);
    return u;
}

static void publish(objrt_ctx *ctx, objrt_unit *u)
{
    u->next = ctx->units;
    if (ctx->units)
        ctx->units->prev = u;
    ctx->units = u;
}

static void unpublish(objrt_ctx *ctx, objrt_unit *u)
{
    if (u->prev)
        u->prev->next = u->next;
    else
        ctx->units = u->next;
    if (u->next)
        u->next->prev = u->prev;
}

/* Constructors run with the unit published, so they may look up its symbols. */
static int initialise(objrt_link *l, objrt_unit *u)
{
    char err[512] = "";
    objrt_fnlist ctors = { 0 };
    if (objrt_collect_init(l, u, &ctors))
        return -1;
    publish(l->ctx, u);
    if (track_unit(u) || objrt_rt_before_init(u, err, sizeof err)) {
        free(ctors.fn);
        untrack_unit(u);
        unpublish(l->ctx, u);
        return objrt_fail(l->ctx, "%s", err[0] ? err : "out of memory");
    }
    if (!l->ctx->opt.no_constructors)
        objrt_run_fns(&ctors);
    free(ctors.fn);
    if (objrt_rt_after_init(u, err, sizeof err)) {
        objrt_fail(l->ctx, "%s", err);
        objrt_unload(u);
        return -2;              /* already released */
    }
    return 0;
}

static objrt_unit *load(objrt_ctx *ctx, const char *const *paths, const objrt_input *inputs,
                        size_t n)
{
    if (!ctx)
        return NULL;
    if (n == 0) {
        objrt_fail(ctx, "nothing to load");
        return NULL;
    }
    pthread_mutex_lock(&ctx->lock);
    double t0 = now_us();
    objrt_link l = { .ctx = ctx, .arch = objrt_host_arch() };
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = paths ? objrt_input_add_file(&l, paths[i]) : objrt_input_add_memory(&l, &inputs[i]);
    objrt_unit *u = rc ? NULL : link_unit(&l, t0);
    if (u && (rc = initialise(&l, u)) != 0) {
        if (rc == -1)
            free_unit(u);
        u = NULL;
    }
    objrt_link_release(&l);
    pthread_mutex_unlock(&ctx->lock);
    return u;
}

objrt_unit *objrt_load(objrt_ctx *ctx, const char *const *paths, size_t n)
{
    if (!paths && ctx) {
        objrt_fail(ctx, "objrt_load: no paths");
        return NULL;
    }
    return load(ctx, paths, NULL, n);
}

objrt_unit *objrt_load_memory(objrt_ctx *ctx, const objrt_input *inputs, size_t n)
{
    if (!inputs && ctx) {
        objrt_fail(ctx, "objrt_load_memory: no inputs");
        return NULL;
    }
    return load(ctx, NULL, inputs, n);
}

int objrt_unload(objrt_unit *u)
{
    if (!u)
        return -1;
    objrt_ctx *ctx = u->ctx;
    pthread_mutex_lock(&ctx->lock);
    if (objrt_deps_check_unload(u)) {   /* a later unit still calls or reads into it */
        pthread_mutex_unlock(&ctx->lock);
        return -1;
    }
    if (!ctx->opt.no_constructors) {
        __cxa_finalize(u->base);        /* atexit/__cxa_atexit handlers of this unit */
        objrt_run_fns(&u->dtors);
    }
    objrt_rt_unload(u);
    untrack_unit(u);
    unpublish(ctx, u);
    free_unit(u);
    pthread_mutex_unlock(&ctx->lock);
    return 0;
}

/*
 * pipeline.c - one load, stage by stage, each stage's file entered once and in this order:
 *
 *   input.c, parse.c   files and buffers -> objects (archive members parsed, not yet pulled)
 *   resolve.c          every global symbol bound; archive members pulled to a fixed point
 *   interpose.c        with earlier_wins, weak and common definitions yield to the context's
 *                      earlier ones
 *   plan.c             exact layout, GOT and stubs, the window the base must lie in
 *   place.c            one reservation in that window, contents copied
 *   tls.c              the unit's thread-local block as a module glibc manages
 *   relocate.c         every relocation applied (or, for `objrt layout`, only checked)
 *   unit.c             the unit's symbol table, copied out of the inputs
 *   protect.c          final permissions, icache, unwind registration
 *   unitinfo.c         what debuggers and crash reports read about the unit
 *   init.c             constructors, with the unit published in the registry
 *
 * and the unload that undoes a unit in reverse. Called with the context's lock held.
 */
#include <stdlib.h>
#include <time.h>

#include "loader/pipeline.h"
#include "finish/finish.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "symbols/lookup.h"
#include "input/input.h"
#include "arch/arch.h"
#include "debug/unitinfo.h"
#include "base/provider.h"
#include "finish/unit.h"

void __cxa_finalize(void *dso);

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

void objrt_link_release(objrt_link *l)
{
    objrt_input_release(l);
    free(l->gsyms);
    free(l->symmem);
    objrt_strindex_free(&l->gmap);
    objrt_strmemo_free(&l->gmemo);
    objrt_strmap_free(&l->archive_index);
    objrt_strmap_free(&l->comdat_kept);
    objrt_layout_release(l);
    free(l->pairs);
    free(l->init_arrays);
}

/* The unit itself is made at its stage: a load that fails earlier never allocates one. */
static int new_unit(objrt_link *l, objrt_unit **u)
{
    if (!(*u = calloc(1, sizeof **u)))
        return objrt_fail(l->ctx, "out of memory");
    (*u)->ctx = l->ctx;
    return objrt_unit_build(l, *u);
}

static int run_stage(objrt_link *l, enum objrt_stage s, objrt_unit **u)
{
    switch (s) {
    case OBJRT_RESOLVE:  return objrt_resolve(l);
    case OBJRT_INTERPOSE: return objrt_interpose(l);
    case OBJRT_PLAN:                        /* the arrays' check: for `layout` too */
        return objrt_plan_layout(l) ? -1 : objrt_init_arrays_check(l);
    case OBJRT_PLACE:    return objrt_place(l);
    case OBJRT_TLS:      return l->dry_run ? 0 : objrt_tls_load(l);   /* layout: no module */
    case OBJRT_RELOCATE: return objrt_relocate(l);
    case OBJRT_UNIT:     return new_unit(l, u);
    case OBJRT_PROTECT:  return objrt_protect(l, *u);
    case OBJRT_INFO:     return objrt_unitinfo_attach(l, *u);
    }
    return -1;
}

int objrt_link_run(objrt_link *l, const char *const *paths, const objrt_input *inputs, size_t n,
                   enum objrt_stage last, objrt_unit **u)
{
    if (paths && objrt_input_add_files(l, paths, n))
        return -1;
    for (size_t i = 0; !paths && i < n; i++)
        if (objrt_input_add_memory(l, &inputs[i]))
            return -1;
    /* The architecture is the first object's; inputs with no object at all (an archive of
       no members, `!<arch>\n` alone) plan as an empty unit of the host's. */
    if (!l->arch)
        l->arch = objrt_host_arch();
    for (int s = OBJRT_RESOLVE; s <= (int)last; s++)
        if (run_stage(l, (enum objrt_stage)s, u))
            return -1;
    return 0;
}

static void fill_stats(objrt_link *l, objrt_unit *u, double t0)
{
    objrt_stats *s = &u->stats;
    s->link_us = now_us() - t0;
    for (size_t m = 0; m < l->nobjs; m++)
        s->objects += l->objs[m]->pulled;
    s->relocations = l->plan.relocations;
    s->reserved_bytes = l->plan.total;
    if (l->plan.packed) {                   /* its chunks: the pages are shared */
        s->packed = 1;
        s->reserved_bytes = 0;
        for (int g = 0; g < GRP_COUNT; g++)
            s->reserved_bytes += l->plan.chunks[g].size;
    }
    s->used_bytes = l->plan.used;
    s->got_slots = l->plan.got.n;
    s->stubs = l->plan.stub.n;
    s->stubs_used = l->stubs_used;
    s->comdat_groups_dropped = l->comdat_groups_dropped;
    s->comdat_bytes_dropped = l->comdat_bytes_dropped;
}

/* Each provider's slots of u, every one checked before any is written, then its hook;
 * on a failure the providers whose hook ran forget u again. */
static int providers_before_init(objrt_unit *u, char *err, size_t errlen)
{
    const objrt_provider *p;
    size_t i;
    for (i = 0; (p = objrt_provider_at(i)); i++) {
        void *at[OBJRT_PROVIDER_SLOTS_MAX];
        size_t k;
        for (k = 0; k < p->nslots; k++)
            if (objrt_unit_slot(u, p->slots[k].name, sizeof(void *), true, &at[k], NULL,
                                err, errlen) < 0)
                break;
        if (k == p->nslots) {
            for (k = 0; k < p->nslots; k++)
                if (at[k])
                    *(void **)at[k] = p->slots[k].addr;
            if (!p->before_init || p->before_init(u, err, errlen) == 0)
                continue;
        }
        while (i-- > 0)
            if ((p = objrt_provider_at(i))->unload)
                p->unload(u);
        return -1;
    }
    return 0;
}

/* Every provider's after_init hook; the first failure is the one reported. */
static int providers_after_init(objrt_unit *u, char *err, size_t errlen)
{
    const objrt_provider *p;
    for (size_t i = 0; (p = objrt_provider_at(i)); i++)
        if (p->after_init && p->after_init(u, err, errlen))
            return -1;
    return 0;
}

/* Constructors run with the unit published, so they may look up its symbols. Returns -1
 * with the unit still to be freed, -2 when it was already unloaded. */
static int initialise(objrt_link *l, objrt_unit *u)
{
    char err[512] = "";
    objrt_fnlist ctors = { 0 };
    if (objrt_collect_init(l, u, &ctors))
        return -1;
    if (objrt_registry_add(u)) {
        free(ctors.fn);
        return objrt_fail(l->ctx, "out of memory");
    }
    if (providers_before_init(u, err, sizeof err)) {
        free(ctors.fn);
        objrt_registry_remove(u);
        return objrt_fail(l->ctx, "%s", err);
    }
    if (!l->ctx->opt.no_constructors)
        objrt_run_fns(&ctors);
    free(ctors.fn);
    if (providers_after_init(u, err, sizeof err)) {
        objrt_fail(l->ctx, "%s", err);
        objrt_pipeline_unload(u);
        return -2;
    }
    return 0;
}

objrt_unit *objrt_pipeline_load(objrt_ctx *ctx, const char *const *paths,
                                const objrt_input *inputs, size_t n)
{
    double t0 = now_us();
    objrt_link l = { .ctx = ctx, .arch = objrt_host_arch() };
    objrt_unit *u = NULL;
    int rc = objrt_link_run(&l, paths, inputs, n, OBJRT_INFO, &u);
    if (rc == 0) {
        u->tls_module = l.tls.handle;       /* the unit owns its TLS module from here */
        u->tls_fd = l.tls.fd;
        l.tls.handle = NULL;
        fill_stats(&l, u, t0);
        objrt_perfmap_write(&l);
        objrt_jitdump_write(&l);
        rc = initialise(&l, u);
    }
    if (rc == -1 && u)
        objrt_unit_free(u);
    objrt_link_release(&l);
    objrt_spares_release(ctx);          /* what this load did not take (place.c, */
    objrt_gdbjit_spare_release(ctx);    /* gdbjit.c) */
    return rc ? NULL : u;
}

void objrt_pipeline_unload(objrt_unit *u)
{
    if (!u->ctx->opt.no_constructors) {
        /* atexit/__cxa_atexit handlers of this unit. Only a unit that could have any: glibc
         * walks every handler of the process (thousands in a process that has LLVM: most
         * of a small unit's unload, its list cold in the cache) */
        if (__atomic_load_n(&u->exit_handlers, __ATOMIC_ACQUIRE))
            __cxa_finalize(u->base);
        objrt_run_fns(&u->dtors);
    }
    const objrt_provider *p;
    for (size_t i = 0; (p = objrt_provider_at(i)); i++)
        if (p->unload)
            p->unload(u);
    objrt_registry_remove(u);
    objrt_unit_free(u);
}

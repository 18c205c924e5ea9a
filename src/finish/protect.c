/*
 * protect.c - give each group its final permissions, make written code visible to the
 * instruction stream, register unwind information; and undo all of it on unload.
 * Memory was mapped read-write and never executable; it becomes executable only here,
 * after the last write, so no page is writable and executable at any instant. A packed
 * unit's pages have their permissions already (arena.c): its alias is closed instead.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>

#include "finish/finish.h"
#include "symbols/lookup.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"
#include "debug/unitinfo.h"

typedef void (*frame_fn)(const void *);
static frame_fn register_frame, deregister_frame;
static pthread_once_t frame_once = PTHREAD_ONCE_INIT;

/* The process's own unwinder (libgcc_s), so C++ exceptions and backtrace() cross loaded
 * code; loaded here if nothing in the process needed it yet. */
static void find_unwinder(void)
{
    void *h = RTLD_DEFAULT;     /* NULL: it cannot double as "not found" */
    if (!dlsym(h, "__register_frame") && !(h = objrt_libgcc_s()))
        return;
    register_frame = (frame_fn)(uintptr_t)dlsym(h, "__register_frame");
    deregister_frame = (frame_fn)(uintptr_t)dlsym(h, "__deregister_frame");
    if (!register_frame || !deregister_frame)
        register_frame = deregister_frame = NULL;
}

static int set_prot(objrt_link *l, int grp, int prot)
{
    const objrt_plan *p = &l->plan;
    if (!p->group_size[grp])
        return 0;
    uint64_t len = objrt_align_up(p->group_size[grp], p->page);
    if (mprotect(l->base + p->group_off[grp], len, prot))
        return objrt_fail_mapping(l->ctx, objrt_link_name(l), "mprotect", errno);
    return 0;
}

int objrt_protect(objrt_link *l, objrt_unit *u)
{
    const objrt_plan *p = &l->plan;
    uint8_t *code = l->base + p->group_off[GRP_RX];     /* where it runs, also when packed */
    __builtin___clear_cache((char *)code, (char *)code + p->group_size[GRP_RX]);
    if (p->packed) {
        if (objrt_arena_publish(l->ctx, p->chunks))
            return objrt_fail_mapping(l->ctx, objrt_link_name(l), "mmap (code page mapped "
                                      "again for the instruction stream)", errno);
    } else if (set_prot(l, GRP_RX, PROT_READ | PROT_EXEC) || set_prot(l, GRP_R, PROT_READ))
        return -1;
    pthread_once(&frame_once, find_unwinder);
    if (!register_frame)
        return 0;
    /* all sections checked, and listed, before the first is registered: nothing
     * half-registered; one walk over the items */
    uint64_t *eh = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < p->nitems; i++) {
        const objrt_item *it = &p->items[i];
        if (it->kind != IT_EH_FRAME)
            continue;
        if (objrt_eh_frame_check(l, it))
            goto fail;
        if (it->size == 0)
            continue;
        uint64_t *v = objrt_grow(l->ctx, eh, &cap, n + 1, sizeof *v, 4);
        if (!v)
            goto fail;
        eh = v;
        eh[n++] = (uintptr_t)l->base + it->off;
    }
    u->eh_frames = eh;
    for (; u->neh < n; u->neh++)
        register_frame((const void *)(uintptr_t)eh[u->neh]);
    return 0;
fail:
    free(eh);
    return -1;
}

void objrt_unprotect_release(objrt_unit *u)
{
    if (deregister_frame)
        for (size_t i = u->neh; i-- > 0;)
            deregister_frame((const void *)(uintptr_t)u->eh_frames[i]);
    u->neh = 0;
    if (u->packed)
        objrt_arena_free(u->ctx, u->chunks);
    else if (u->base)
        objrt_spare_keep(u->ctx, u->base, u->size);     /* or unmapped (place.c) */
    u->base = NULL;
    u->packed = false;
}

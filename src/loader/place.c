/*
 * place.c - reserve the unit's address space, once, inside the plan's window.
 *
 * Without constraints the kernel chooses (mmap(NULL)). When PC-relative references to
 * host data or absolute 32-bit references restrict the base, the free ranges of the
 * process (/proc/self/maps) are intersected with the window and the reservation is made
 * there with MAP_FIXED_NOREPLACE, which never replaces an existing mapping. The memory is
 * read-write and not executable until protect.c.
 *
 * A packed unit (plan.c, arena.c) has its chunks already: its base is the lowest of them,
 * and its code and read-only data are written through the arena's alias, opened here and
 * closed by protect.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/internal.h"

#define MIN_ADDR ((uint64_t)1 << 20)    /* stay clear of the NULL page region */

static void *map_rw(void *hint, size_t size, int extra)
{
    void *p = mmap(hint, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Anywhere: over-reserve by the alignment slack, then trim both ends. */
static uint8_t *place_anywhere(size_t size, size_t align)
{
    size_t sys = (size_t)sysconf(_SC_PAGESIZE), slack = align > sys ? align - sys : 0;
    uint8_t *p = map_rw(NULL, size + slack, 0);
    if (!p || !slack)
        return p;
    uint8_t *base = (uint8_t *)objrt_align_up((uintptr_t)p, align);
    if (base > p)
        munmap(p, (size_t)(base - p));
    if (p + slack > base)
        munmap(base + size, (size_t)(p + slack - base));
    return base;
}

typedef struct span { uint64_t lo, hi; } span;

/* Mapped ranges of this process, in address order. */
static span *read_maps(size_t *n)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return NULL;
    size_t cap = 64;
    span *v = malloc(cap * sizeof *v);
    *n = 0;
    unsigned long long lo, hi;
    char line[512];
    while (v && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%llx-%llx", &lo, &hi) != 2)
            continue;
        if (*n == cap) {
            span *w = realloc(v, (cap *= 2) * sizeof *v);
            if (!w) {
                free(v);
                v = NULL;
                break;
            }
            v = w;
        }
        v[(*n)++] = (span){ lo, hi };
    }
    fclose(f);
    return v;
}

/* Best aligned base in a free gap [glo, ghi): inside the window, nearest its middle. */
static bool candidate(uint64_t glo, uint64_t ghi, uint64_t size, uint64_t align,
                      uint64_t wlo, uint64_t whi, uint64_t *out)
{
    uint64_t lo = objrt_align_up(glo > wlo ? glo : wlo, align);
    if (ghi < size)
        return false;
    uint64_t hi = objrt_page_down(ghi - size < whi ? ghi - size : whi, align);
    if (lo > hi)
        return false;
    uint64_t mid = wlo / 2 + whi / 2;
    *out = mid <= lo ? lo : mid >= hi ? hi : objrt_page_down(mid, align);
    return true;
}

static uint64_t distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

static uint8_t *place_in_window(uint64_t size, uint64_t align, uint64_t wlo, uint64_t whi,
                                uint64_t top)
{
    for (int attempt = 0; attempt < 4; attempt++) {   /* other threads may map meanwhile */
        size_t n;
        span *m = read_maps(&n);
        if (!m)
            return NULL;
        uint64_t best = 0, mid = wlo / 2 + whi / 2, prev = MIN_ADDR;
        bool found = false;
        for (size_t i = 0; i <= n; i++) {
            uint64_t glo = prev, ghi = i < n ? m[i].lo : top, c;
            if (i < n && m[i].hi > prev)
                prev = m[i].hi;
            if (ghi <= glo || !candidate(glo, ghi, size, align, wlo, whi, &c))
                continue;
            if (!found || distance(c, mid) < distance(best, mid))
                best = c;
            found = true;
        }
        free(m);
        if (!found)
            return NULL;
        uint8_t *p = map_rw((void *)(uintptr_t)best, size, MAP_FIXED_NOREPLACE);
        if (p == (uint8_t *)(uintptr_t)best)
            return p;
        if (p)                  /* an old kernel took the flag as a hint */
            munmap(p, size);
    }
    return NULL;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Prefault what we are about to write (one kernel pass instead of a fault per page), but
 * neither zero-fill nor alignment padding: a 1 GiB .bss, or a section aligned to 1 GiB,
 * must stay demand-zero address space. Runs of written items closer than a page are
 * merged into one call. Best effort: older kernels refuse the advice and pages fault in
 * as they are written. */
static void populate_written(objrt_link *l)
{
    const objrt_plan *p = &l->plan;
    for (int g = 0; g < GRP_COUNT; g++) {
        uint64_t rs = 0, re = 0;
        for (size_t i = 0; i <= p->nitems; i++) {
            const objrt_item *it = i < p->nitems ? &p->items[i] : NULL;
            bool written = it && it->group == g && it->size && it->kind != IT_COMMON &&
                           !(it->kind == IT_SECTION &&
                             l->objs[it->obj]->sh[it->shndx].sh_type == SHT_NOBITS);
            if (it && !written)
                continue;
            if (re > rs && (!it || it->off > re + p->page)) {
                uint64_t start = objrt_page_down(rs, p->page);
                madvise(l->base + start, re - start, MADV_POPULATE_WRITE);
                rs = re = 0;
            }
            if (!it)
                break;
            if (re == rs)
                rs = it->off;
            re = it->off + it->size > re ? it->off + it->size : re;
        }
    }
}

static void copy_contents(objrt_link *l)
{
    const objrt_plan *p = &l->plan;
    if (!p->packed)
        populate_written(l);
    for (size_t i = 0; i < p->nitems; i++) {
        const objrt_item *it = &p->items[i];
        if (it->kind != IT_SECTION && it->kind != IT_EH_FRAME)
            continue;
        const objrt_obj *o = l->objs[it->obj];
        const Elf64_Shdr *s = &o->sh[it->shndx];
        if (s->sh_type != SHT_NOBITS && s->sh_size)
            memcpy(objrt_write_at(l, (uintptr_t)l->base + it->off), o->data + s->sh_offset,
                   s->sh_size);
    }
}

/* Chunks may have held another unit: cleared, as fresh pages would be (.bss is zero). */
static int place_packed(objrt_link *l)
{
    const objrt_plan *p = &l->plan;
    l->base = (uint8_t *)(uintptr_t)p->packed_base;
    if (objrt_arena_open(p->chunks))
        return objrt_fail(l->ctx, "mprotect: %s", strerror(errno));
    for (int g = 0; g < GRP_COUNT; g++)
        if (p->group_size[g])
            memset(objrt_write_at(l, (uintptr_t)l->base + p->group_off[g]), 0, p->group_size[g]);
    copy_contents(l);
    return 0;
}

int objrt_place(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    if (p->packed)
        return place_packed(l);
    bool free_choice = p->win_lo <= p->page && p->win_hi >= l->arch->user_top - p->total;
    if (p->win_lo > p->win_hi)
        return objrt_fail(l->ctx, "no address satisfies every reference: '%s' needs the unit at "
                          "or above 0x%llx but '%s' needs it at or below 0x%llx; compile with "
                          "-fPIC (references to host data must go through the GOT)",
                          p->win_lo_why ? p->win_lo_why : "?", (unsigned long long)p->win_lo,
                          p->win_hi_why ? p->win_hi_why : "?", (unsigned long long)p->win_hi);
    l->base = place_anywhere(p->total, p->base_align);
    /* The kernel maps near the shared libraries, so its choice usually satisfies a window
     * around host data too; only otherwise is the map of the process consulted. */
    if (!free_choice && l->base &&
        ((uintptr_t)l->base < p->win_lo || (uintptr_t)l->base > p->win_hi)) {
        munmap(l->base, p->total);
        l->base = place_in_window(p->total, p->base_align, p->win_lo, p->win_hi,
                                  l->arch->user_top);
    }
    if (!l->base) {
        if (free_choice)
            return objrt_fail(l->ctx, "cannot reserve %llu bytes: %s",
                              (unsigned long long)p->total, strerror(errno));
        return objrt_fail(l->ctx, "no free address range of %llu bytes in [0x%llx, 0x%llx], "
                          "the window that references to '%s' and '%s' allow; compile with -fPIC",
                          (unsigned long long)p->total, (unsigned long long)p->win_lo,
                          (unsigned long long)p->win_hi, p->win_lo_why ? p->win_lo_why : "-",
                          p->win_hi_why ? p->win_hi_why : "-");
    }
    copy_contents(l);
    return 0;
}

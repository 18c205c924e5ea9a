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

#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"

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

/* ---- spare reservations: an unloaded unit's pages, kept for the next load ----
 * A warm load spent a fifth of its time in the kernel handing out fresh zeroed pages and
 * taking them back at unload. So an unloaded unit's reservation is kept (at most
 * OBJRT_SPARES of them, OBJRT_SPARE_BYTES in all), PROT_NONE: a call into unloaded code
 * still faults, and no page is ever writable and executable. Its pages are the kernel's
 * to take back whenever it needs memory (MADV_FREE: no swap, they just read as zero
 * again); until then the next load finds them in place. That load takes a spare whose
 * base suits its plan and clears what it does not copy; whatever it leaves goes back to
 * the system at its end (objrt_spares_release), so address space is held only between an
 * unload and the next load, and objrt_free releases everything. Private anonymous pages:
 * after fork() each process owns its copy, so either may reuse it. */

static bool reuse_wanted(const objrt_ctx *ctx)
{
    const char *env = getenv("OBJRT_REUSE");
    return env && *env ? strcmp(env, "0") != 0 : !ctx->opt.no_reuse;
}

/* Spare i leaves the list (the others keep their order: oldest first); `unmap`: and the
 * system gets it back. */
static objrt_spare spare_remove(objrt_ctx *ctx, int i, bool unmap)
{
    objrt_spare s = ctx->spares[i];
    memmove(&ctx->spares[i], &ctx->spares[i + 1], (size_t)(OBJRT_SPARES - 1 - i) * sizeof s);
    ctx->spares[OBJRT_SPARES - 1] = (objrt_spare){ 0 };
    if (unmap)
        munmap(s.base, s.size);
    return s;
}

void objrt_spare_keep(objrt_ctx *ctx, uint8_t *base, size_t size)
{
    if (ctx->closing || !reuse_wanted(ctx) || size > OBJRT_SPARE_BYTES ||
        mprotect(base, size, PROT_NONE)) {
        munmap(base, size);
        return;
    }
    madvise(base, size, MADV_FREE);     /* best effort: a hint (Linux 4.5) */
    /* space by count and by bytes: the oldest go first */
    int n = 0;
    size_t bytes = 0;
    for (; n < OBJRT_SPARES && ctx->spares[n].size; n++)
        bytes += ctx->spares[n].size;
    for (; n > 0 && (n == OBJRT_SPARES || bytes + size > OBJRT_SPARE_BYTES); n--)
        bytes -= spare_remove(ctx, 0, true).size;
    ctx->spares[n] = (objrt_spare){ base, size };
}

void objrt_spares_release(objrt_ctx *ctx)
{
    while (ctx->spares[0].size)
        spare_remove(ctx, 0, true);
}

void objrt_spares_usage(const objrt_ctx *ctx, objrt_memory *m)
{
    for (int i = 0; i < OBJRT_SPARES; i++)
        if (ctx->spares[i].size) {
            m->spare_reservations++;
            m->spare_bytes += ctx->spares[i].size;
        }
}

/* The smallest spare at least as big as the plan whose base honours its alignment and
 * window, made read-write for this load (its tail beyond the plan given back); NULL when
 * none suits. */
static uint8_t *spare_take(objrt_link *l)
{
    const objrt_plan *p = &l->plan;
    objrt_ctx *ctx = l->ctx;
    int best = -1;
    for (int i = 0; i < OBJRT_SPARES && ctx->spares[i].size; i++) {
        const objrt_spare *s = &ctx->spares[i];
        uintptr_t b = (uintptr_t)s->base;
        if (s->size >= p->total && b % p->base_align == 0 && b >= p->win_lo &&
            b <= p->win_hi && (best < 0 || s->size < ctx->spares[best].size))
            best = i;
    }
    if (best < 0 || !reuse_wanted(ctx))     /* switched off since: the load's end frees them */
        return NULL;
    objrt_spare s = spare_remove(ctx, best, false);
    if (s.size > p->total)
        munmap(s.base + p->total, s.size - p->total);
    if (mprotect(s.base, p->total, PROT_READ | PROT_WRITE)) {
        munmap(s.base, p->total);
        return NULL;
    }
    return s.base;
}

/* Zero [from, to) of a reused reservation as fresh pages would read: bytes are cleared,
 * but a long run of whole pages is replaced by fresh ones instead (demand-zero, as a fresh
 * reservation's .bss or alignment padding: never committed by a memset). A mapping over
 * our own range rather than MADV_DONTNEED, whose zeroing an emulator may skip; should it
 * fail, the range may be gone: the load fails (and unmaps the whole reservation). */
#define CLEAR_GIVE_BACK ((uint64_t)64 << 10)
static int clear_gap(objrt_link *l, uint64_t from, uint64_t to)
{
    if (from >= to)
        return 0;
    uint64_t lo = 0, hi = 0;
    if (to - from >= CLEAR_GIVE_BACK) {     /* most gaps are a few bytes: no page arithmetic */
        uint64_t sys = (uint64_t)sysconf(_SC_PAGESIZE);
        lo = objrt_align_up(from, sys);
        hi = objrt_page_down(to, sys);
    }
    if (hi <= lo || hi - lo < CLEAR_GIVE_BACK) {
        memset(l->base + from, 0, to - from);
        return 0;
    }
    if (mmap(l->base + lo, hi - lo, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != l->base + lo)
        return objrt_fail(l->ctx, "cannot clear %llu bytes of a reused reservation: %s",
                          (unsigned long long)(hi - lo), strerror(errno));
    memset(l->base + from, 0, lo - from);
    memset(l->base + hi, 0, to - hi);
    return 0;
}

/* After the copy: each group's bytes past the last copied item, and the pages between
 * the groups and after them. */
static int clear_rest(objrt_link *l, const uint64_t done[GRP_COUNT])
{
    const objrt_plan *p = &l->plan;
    int order[GRP_COUNT] = { GRP_RX, GRP_R, GRP_RW };
    for (int i = 1; i < GRP_COUNT; i++)             /* three groups: by offset */
        for (int j = i; j > 0 && p->group_off[order[j]] < p->group_off[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    uint64_t at = 0;
    for (int i = 0; i < GRP_COUNT; i++) {
        int g = order[i];
        uint64_t end = p->group_off[g] + p->group_size[g];
        if (!p->group_size[g])
            continue;
        if (clear_gap(l, at, p->group_off[g]) || clear_gap(l, done[g], end))
            return -1;
        at = end > at ? end : at;
    }
    return clear_gap(l, at, p->total);
}

/* A fresh unit of OBJRT_HUGE_BLOCK or more starts on such a boundary, and the whole blocks
 * inside the runs it writes get huge pages (internal.h): a fresh small page is dear to
 * allocate, charge and clear. Only blocks that are written anyway: zero-fill stays
 * demand-zero. A partial last block stays in small pages: giving it a huge page (reserved
 * to the block's end, cut back after the prefault) made the first link in a new process
 * that had allocated memory of its own before much slower: on a VM that hands free memory
 * back to its host, a huge page taken then is cold (docs/design.md). */
static uint64_t reservation_align(const objrt_plan *p)
{
    return p->total >= OBJRT_HUGE_BLOCK && p->base_align < OBJRT_HUGE_BLOCK ? OBJRT_HUGE_BLOCK
                                                                             : p->base_align;
}

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
            bool written = it && it->group == g && it->size && !it->zero;
            if (it && !written)
                continue;
            if (re > rs && (!it || it->off > re + p->page)) {
                uint64_t start = objrt_page_down(rs, p->page);
                objrt_offer_huge(l->base, start, re);
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

/* Section bytes into the image. A reused reservation (`reused`) holds an unloaded unit's
 * bytes: every byte the copy does not write is cleared, so the unit sees what fresh pages
 * would give it. Per group, `done` is the end of the bytes written so far: below it every
 * byte is copied or cleared, and a clear never starts below it, so it never undoes a
 * copy (whatever order the plan lists the items in). */
static int copy_contents(objrt_link *l, bool reused)
{
    const objrt_plan *p = &l->plan;
    uint64_t done[GRP_COUNT];
    memcpy(done, p->group_off, sizeof done);
    for (size_t i = 0; i < p->nitems; i++) {
        const objrt_item *it = &p->items[i];
        if (it->kind != IT_SECTION && it->kind != IT_EH_FRAME)
            continue;
        const objrt_obj *o = l->objs[it->obj];
        const Elf64_Shdr *s = &o->sh[it->shndx];
        if (s->sh_type == SHT_NOBITS || !s->sh_size)
            continue;
        if (reused && clear_gap(l, done[it->group], it->off))
            return -1;
        memcpy(objrt_write_at(l, (uintptr_t)l->base + it->off), o->data + s->sh_offset,
               s->sh_size);
        if (it->off + s->sh_size > done[it->group])
            done[it->group] = it->off + s->sh_size;
    }
    return reused ? clear_rest(l, done) : 0;
}

/* Chunks may have held another unit: cleared, as fresh pages would be (.bss is zero). */
static int place_packed(objrt_link *l)
{
    const objrt_plan *p = &l->plan;
    l->base = (uint8_t *)(uintptr_t)p->packed_base;
    if (objrt_arena_open(p->chunks))
        return objrt_fail_mapping(l->ctx, objrt_link_name(l), "mprotect", errno);
    for (int g = 0; g < GRP_COUNT; g++)
        if (p->group_size[g])
            memset(objrt_write_at(l, (uintptr_t)l->base + p->group_off[g]), 0, p->group_size[g]);
    return copy_contents(l, false);
}

/* ---- a window no reservation can take, reported by the references that bound it ----
 * Only two kinds of reference bound where the unit may go (plan.c, derive_window): an
 * absolute field narrower than 64 bits holding an address of the unit (code compiled
 * without -fPIC: R_X86_64_32, R_X86_64_32S, R_AARCH64_ABS32, MOVW_UABS...), and a
 * PC-relative field reaching a fixed address outside the unit (host data referenced
 * directly). The error names one of them in the common relocation format (sites.c), the
 * other bound by its own site, and advice for the kind at hand. */
static objrt_site window_site(objrt_link *l, const objrt_winref *w)
{
    const objrt_obj *o = l->objs[w->obj];
    objrt_site s = { .o = o, .target = w->target, .r = w->r, .type = ELF64_R_TYPE(w->r->r_info),
                     .sym = ELF64_R_SYM(w->r->r_info), .A = w->r->r_addend };
    s.h = objrt_howto_of(l->arch, s.type);
    return s;
}

/* "needs the unit at or below 0x...": what one reference asks of the base. */
static void window_need(objrt_link *l, const objrt_winref *w, bool lo, uint64_t bound,
                        char *buf, size_t len)
{
    objrt_site s = window_site(l, w);
    bool fixed;
    uint64_t S = 0;
    objrt_sym_addr(l, s.o, s.sym, &S, &fixed);
    if (fixed)
        snprintf(buf, len, "a %u-bit PC-relative reference to 0x%llx outside the unit "
                 "(host data referenced directly) needs the unit at or %s 0x%llx",
                 s.h->bits, (unsigned long long)(S + (uint64_t)s.A), lo ? "above" : "below",
                 (unsigned long long)bound);
    else
        snprintf(buf, len, "a %u-bit absolute reference to the unit's own address needs the "
                 "unit at or %s 0x%llx", s.h->bits, lo ? "above" : "below",
                 (unsigned long long)bound);
}

static bool window_fixed(objrt_link *l, const objrt_winref *w)
{
    objrt_site s = window_site(l, w);
    return objrt_sym_is_fixed(l, s.o, s.sym);
}

/* none_free: the window is not empty but no free range of the address space lies in it. */
static int window_fail(objrt_link *l, bool none_free)
{
    const objrt_plan *p = &l->plan;
    /* the site named first: the absolute reference (the usual cause), else either */
    const objrt_winref *lo = p->win_lo_ref, *hi = p->win_hi_ref;
    bool first_hi = hi && (!lo || !window_fixed(l, hi));
    const objrt_winref *w = first_hi ? hi : lo, *other = first_hi ? lo : hi;
    char need[256], also[1536] = "", what[2560];
    if (!w)                             /* no reference bounds it: the address space is full */
        return objrt_fail(l->ctx, "cannot reserve %llu bytes in [0x%llx, 0x%llx]: %s",
                          (unsigned long long)p->total, (unsigned long long)p->win_lo,
                          (unsigned long long)p->win_hi, strerror(errno));
    window_need(l, w, !first_hi, first_hi ? p->win_hi : p->win_lo, need, sizeof need);
    if (other && other != w) {
        objrt_site o = window_site(l, other);
        char need2[256];
        window_need(l, other, first_hi, first_hi ? p->win_lo : p->win_hi, need2, sizeof need2);
        snprintf(also, sizeof also, ", and %s: section %s+0x%llx: relocation %s against '%s': %s",
                 o.o->name, objrt_sec_name(o.o, o.target), (unsigned long long)o.r->r_offset,
                 o.h->name, objrt_sym_name(o.o, o.sym), need2);
    } else if (!none_free) {
        snprintf(also, sizeof also, ", outside [0x%llx, 0x%llx], where a unit of 0x%llx "
                 "bytes can be placed", (unsigned long long)p->page,
                 (unsigned long long)(l->arch->user_top - p->total), (unsigned long long)p->total);
    }
    bool host = window_fixed(l, w) || (other && window_fixed(l, other));
    snprintf(what, sizeof what, "%s%s%s; %s", need, also,
             none_free ? ": no free address range of the unit's size lies there" :
             other && other != w ? ": no address satisfies both" : "",
             host ? "rebuild the objects with -fPIC (or -fPIE), so that host data is reached "
                    "through the GOT and the unit's own addresses PC-relatively, from anywhere"
                  : "the object was compiled for a fixed low address (non-PIC, small code "
                    "model): rebuild it with -fPIC (or -fPIE), or with -mcmodel=large for "
                    "64-bit absolute addresses");
    return objrt_site_fail(l, window_site(l, w), what, NULL);
}

int objrt_place(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    if (p->packed)
        return place_packed(l);
    bool free_choice = p->win_lo <= p->page && p->win_hi >= l->arch->user_top - p->total;
    if (p->win_lo > p->win_hi)
        return window_fail(l, false);
    if (!l->dry_run && (l->base = spare_take(l)))
        return copy_contents(l, true);
    uint64_t align = reservation_align(p);
    l->base = place_anywhere(p->total, align);
    /* The kernel maps near the shared libraries, so its choice usually satisfies a window
     * around host data too; only otherwise is the map of the process consulted. */
    if (!free_choice && l->base &&
        ((uintptr_t)l->base < p->win_lo || (uintptr_t)l->base > p->win_hi)) {
        munmap(l->base, p->total);
        l->base = place_in_window(p->total, align, p->win_lo, p->win_hi, l->arch->user_top);
    }
    if (!l->base && align > p->base_align)  /* no 2 MiB boundary in the window: any */
        l->base = place_in_window(p->total, p->base_align, p->win_lo, p->win_hi,
                                  l->arch->user_top);
    if (!l->base) {
        char what[64];
        snprintf(what, sizeof what, "cannot reserve %llu bytes", (unsigned long long)p->total);
        if (free_choice)
            return objrt_fail_mapping(l->ctx, objrt_link_name(l), what, errno);
        return window_fail(l, true);
    }
    populate_written(l);
    return copy_contents(l, false);
}

void objrt_layout_release(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    objrt_tls_release(&l->tls);
    objrt_keymap_free(&p->got.map);
    objrt_keymap_free(&p->stub.map);
    free(p->got.keys);
    free(p->got.own);                   /* stub.own shares it */
    free(p->stub.keys);
    free(p->stub_blocks);
    free(p->items);
    free(p->winrefs);
    if (p->packed && !l->unit_owns_base)
        objrt_arena_free(l->ctx, p->chunks);
    else if (l->base && !l->unit_owns_base)
        munmap(l->base, p->total);
}

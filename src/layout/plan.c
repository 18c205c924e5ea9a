/*
 * plan.c - the exact layout of a unit, decided before a byte of memory is reserved.
 *
 * Three groups, each starting on a page boundary so it can get its own permissions:
 *   RX  code sections, then the call stubs
 *   R   read-only data, .eh_frame (each followed by the 4-byte terminator the unwinder
 *       needs), the GOT (written during relocation, read-only afterwards)
 *   RW  writable data, .bss, COMMON symbols
 * Every offset comes from one function, plan_item(); the reservation is the final cursor
 * rounded up to the page, so what is reserved is by construction what is placed (the
 * bug of seed 004 was two different computations of the same size).
 *
 * A small unit of a context that packs (objrt_options.pack_small) instead takes each
 * group's start from the context's arena (arena.c): chunks of pages shared with other
 * small units, offsets counted from the lowest chunk, so every address is still base +
 * offset; when its references need a base the arena's does not satisfy, it is laid out
 * on pages of its own after all.
 *
 * The plan also derives the window the reservation's base must lie in: a PC-relative
 * reference to a fixed (host) address, or an absolute 32-bit reference to the unit,
 * constrains where the unit may go. place.c finds free address space inside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "symbols/comdat.h"
#include "sites/sites.h"

static bool is_eh_frame(const objrt_obj *o, size_t i)
{
    if (o->sh[i].sh_type == SHT_NOBITS)     /* no bytes in the file to walk or register */
        return false;
    return o->sh[i].sh_type == SHT_X86_64_UNWIND ||
           strcmp(objrt_sec_name(o, i), ".eh_frame") == 0;
}

static int group_of(const Elf64_Shdr *s)
{
    if (s->sh_flags & SHF_EXECINSTR)
        return GRP_RX;
    return (s->sh_flags & SHF_WRITE) ? GRP_RW : GRP_R;
}

/* *acc += v, false when that wraps or passes top (the backend's user_top: no unit is
 * larger than the address space it must fit in). */
static bool plan_add(uint64_t *acc, uint64_t v, uint64_t top)
{
    uint64_t sum;
    if (__builtin_add_overflow(*acc, v, &sum) || sum > top)
        return false;
    *acc = sum;
    return true;
}

static void item_name(const objrt_link *l, const objrt_item *it, char *buf, size_t len)
{
    switch (it->kind) {
    case IT_GOT:    snprintf(buf, len, "the GOT"); break;
    case IT_STUBS:  snprintf(buf, len, "the call stubs"); break;
    case IT_COMMON: snprintf(buf, len, "common symbol %s", l->gsyms[it->obj].name); break;
    default:        snprintf(buf, len, "%s: section %s", l->objs[it->obj]->name,
                             objrt_sec_name(l->objs[it->obj], it->shndx));
    }
}

static int too_large(objrt_link *l, const objrt_item *it)
{
    char what[600];
    item_name(l, it, what, sizeof what);
    return objrt_fail(l->ctx, "%s: 0x%llx bytes aligned to 0x%llx take the unit past 0x%llx "
                      "bytes (the user address space)", what, (unsigned long long)it->size,
                      (unsigned long long)it->align, (unsigned long long)l->arch->user_top);
}

/* Every item enters the plan here, so the span check bounds all later offset arithmetic
 * (and the work: a unit that cannot fit is refused before the next item is looked at). */
/* Items are visited many times by later passes; what they ask of the section header is
 * copied into the item now, while the header is in cache, instead of read back each time. */
static int add_item(objrt_link *l, objrt_item it)
{
    objrt_plan *p = &l->plan;
    it.zero = it.kind == IT_COMMON ||
              (it.kind == IT_SECTION && l->objs[it.obj]->sh[it.shndx].sh_type == SHT_NOBITS);
    if (!plan_add(&p->span, it.size, l->arch->user_top) ||
        !plan_add(&p->span, it.align, l->arch->user_top))
        return too_large(l, &it);
    objrt_item *v = objrt_grow(l->ctx, p->items, &p->capitems, p->nitems + 1, sizeof *v, 64);
    if (!v)
        return -1;
    p->items = v;
    p->items[p->nitems++] = it;
    return 0;
}

/* A walk of the CIE/FDE length fields: the unwinder trusts them, so a section whose
 * records do not tile it exactly is refused rather than registered. */
static int check_eh_frame(objrt_link *l, const objrt_obj *o, size_t i)
{
    const Elf64_Shdr *s = &o->sh[i];
    const uint8_t *p = o->data + s->sh_offset;
    uint64_t off = 0;
    while (off + 4 <= s->sh_size) {
        uint32_t len;
        memcpy(&len, p + off, 4);
        if (len == 0)
            return 0;
        if (len == 0xffffffffu || len > s->sh_size - off - 4)
            return objrt_fail(l->ctx, "%s: section %s+0x%llx: malformed record length 0x%x",
                              o->name, objrt_sec_name(o, i), (unsigned long long)off, len);
        off += 4 + (uint64_t)len;
    }
    if (off != s->sh_size)
        return objrt_fail(l->ctx, "%s: section %s: records do not end at the section end",
                          o->name, objrt_sec_name(o, i));
    return 0;
}

/* Which sections become part of the image. */
static int select_sections(objrt_link *l, objrt_obj *o)
{
    /* one allocation for both: parse.c's objrt_obj_free frees sec_off only */
    o->sec_off = calloc(o->shnum, sizeof *o->sec_off + 1);
    if (!o->sec_off)
        return objrt_fail(l->ctx, "out of memory");
    o->sec_placed = (uint8_t *)(o->sec_off + o->shnum);
    for (size_t i = 1; i < o->shnum; i++) {
        const Elf64_Shdr *s = &o->sh[i];
        if (!(s->sh_flags & SHF_ALLOC))
            continue;
        if (objrt_sec_is_tls(o, i)) {       /* the TLS block, not the image (tls.c) */
            o->tls_sections++;
            continue;
        }
        if (s->sh_type == SHT_NOTE || s->sh_type == SHT_GROUP || objrt_sec_dropped(o, i))
            continue;                       /* dropped: a duplicate COMDAT group (comdat.c) */
        bool eh = is_eh_frame(o, i);
        if (eh && check_eh_frame(l, o, i))
            return -1;
        o->sec_placed[i] = 1;
        objrt_item it = { .kind = eh ? IT_EH_FRAME : IT_SECTION,
                          .group = (uint8_t)(eh ? GRP_R : group_of(s)), .obj = o->index,
                          .shndx = (uint32_t)i, .size = s->sh_size + (eh && s->sh_size ? 4 : 0),
                          .align = s->sh_addralign ? s->sh_addralign : 1 };
        if (add_item(l, it))
            return -1;
    }
    return 0;
}

static int add_winref(objrt_link *l, uint32_t obj, uint32_t target, const Elf64_Rela *r)
{
    objrt_plan *p = &l->plan;
    objrt_winref *v = objrt_grow(l->ctx, p->winrefs, &p->capwinrefs, p->nwinrefs + 1, sizeof *v,
                                 16);
    if (!v)
        return -1;
    p->winrefs = v;
    p->winrefs[p->nwinrefs++] = (objrt_winref){ obj, target, r };
    return 0;
}

static bool uses_got_slot(uint8_t f)
{
    return f == F_GOT_PCREL || f == F_GOT_ABS || f == F_GOT_OFFSET || f == F_GOT_PAGE_PCREL;
}

static int reserve_slot(objrt_link *l, objrt_slots *t, objrt_slotkey k)
{
    if (objrt_slot_find(t, k) != OBJRT_NONE)
        return 0;
    objrt_slotkey *v = objrt_grow(l->ctx, t->keys, &t->cap, t->n + 1, sizeof *v, 16);
    if (!v)
        return -1;
    t->keys = v;
    if (objrt_keymap_put(&t->map, k.id, k.addend, (uint32_t)t->n))
        return objrt_fail(l->ctx, "out of memory");
    v[t->n++] = k;
    uint32_t *own = objrt_slot_own(t, k);
    if (own)
        *own = (uint32_t)t->n;
    return 0;
}

/* Both tables' own-slot indexes, every global without one yet. */
static int own_slots_new(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    if (!(p->got.own = calloc(l->ngsyms ? 2 * l->ngsyms : 1, sizeof *p->got.own)))
        return objrt_fail(l->ctx, "out of memory");
    p->stub.own = p->got.own + l->ngsyms;  /* one allocation: freed with got.own */
    return 0;
}

/* What every later stage relies on: a known type that can appear in an object, patching
 * bytes inside its section. */
static int check_site(objrt_link *l, const objrt_site *s)
{
    const Elf64_Shdr *sec = &s->o->sh[s->target];
    if (!s->h)
        return objrt_site_fail(l, *s, "unsupported relocation type", NULL);
    if (s->h->formula == F_TLS)
        return objrt_site_fail(l, *s, "a dynamic thread-local relocation has no meaning in a "
                               "relocatable object", NULL);
    if (s->r->r_offset > sec->sh_size || s->h->size > sec->sh_size - s->r->r_offset ||
        (sec->sh_type == SHT_NOBITS && s->h->size))
        return objrt_site_fail(l, *s, "offset lies outside the section", NULL);
    return 0;
}

/* Pass 1 over the sites: validate each; count GOT slots and stubs; note the references
 * whose value depends on where the unit goes. */
static int count_site(objrt_link *l, objrt_site *s)
{
    objrt_plan *p = &l->plan;
    const objrt_howto *h = s->h;
    if (check_site(l, s))
        return -1;
    if (h->formula == F_PAIRED && objrt_site_pair_find(l, s))
        return -1;                          /* its partner, found once: sites.c keeps it */
    if (h->tls && objrt_tls_note(l, s->o, s->target, s->r, h))
        return -1;                          /* thread-local: tls.c reserves its GOT entry */
    if (h->tls || h->formula == F_NONE)     /* markers (TLSDESC_CALL) name TLS too */
        return 0;
    int dropped = objrt_comdat_dropped_ref(l, s->o, s->target, s->r);
    if (dropped)                            /* an FDE of a dropped function: written as 0 */
        return dropped < 0 ? -1 : 0;
    uint8_t *sf = &s->o->symf[s->sym];
    if (!(objrt_sym_flags_placed(l, s->o, s->sym) & SF_PLACED))
        return objrt_site_fail(l, *s, "symbol is in a section that is not loaded", NULL);
    bool fixed = *sf & SF_FIXED;
    bool pcrel = h->formula == F_PCREL || h->formula == F_PAGE_PCREL;
    bool ranged = h->check != C_NONE && h->bits < 64;
    /* A host function's address may be taken through a stub in the unit, as a static link
     * would use a canonical PLT entry; host data has no such escape. */
    bool canonical = ranged && fixed && (h->formula == F_PCREL || h->formula == F_ABS) &&
                     objrt_sym_is_host_function(l, s->o, s->sym);
    if (ranged && !canonical && ((pcrel && fixed) || (h->formula == F_ABS && !fixed)) &&
        add_winref(l, s->o->index, (uint32_t)s->target, s->r))
        return -1;
    if (h->formula == F_GOTOFF || h->formula == F_GOTPC || h->formula == F_GOT_OFFSET ||
        h->formula == F_PLTOFF)
        p->got_base_used = true;
    bool got = uses_got_slot(h->formula);
    bool stub = (h->formula == F_BRANCH && (fixed || p->internal_stubs) && s->sym != 0) ||
                canonical;
    if (!got && !stub)
        return 0;
    objrt_slotkey key = objrt_sym_key(s->o, s->sym, l->arch->slot_addend(h, s->A));
    uint8_t done = key.addend ? 0 : got ? SF_GOT : SF_STUB;   /* the symbol's own slot */
    if (*sf & done)
        return 0;                           /* reserved by an earlier site of the object */
    if (got && reserve_slot(l, &p->got, key))
        return -1;
    if (stub && (reserve_slot(l, &p->stub, key) || reserve_slot(l, &p->got, key)))
        return -1;
    *sf |= done;
    return 0;
}

/* count_site's answer without the site, for the common relocation: a known S + A,
 * S + A - P or Page(S + A) - Page(P), inside its section, to a placed symbol of the unit
 * outside any dropped group, needing no slot, no stub and no window (the unit's own
 * addresses move with it). */
static inline __attribute__((always_inline)) bool
count_fast(objrt_link *l, const objrt_rela_sec *w, const Elf64_Rela *r)
{
    const objrt_howto *h = objrt_rela_howto(w, r);
    size_t sym = ELF64_R_SYM(r->r_info);
    if (!h || !h->direct || r->r_offset > w->size || h->size > w->size - r->r_offset ||
        w->nobits || sym < w->dropped_below)
        return false;
    uint8_t f = w->symf[sym];               /* the walk's copy of o->symf: kept in a register */
    if (!(f & SF_KNOWN))
        f = objrt_sym_answer_placed(l, w->o, sym);
    return (f & (SF_PLACED | SF_FIXED)) == SF_PLACED && !h->abs_ranged &&
           !(h->formula == F_BRANCH && l->plan.internal_stubs);
}

static int add_common(objrt_link *l, uint32_t g)
{
    const objrt_gsym *s = &l->gsyms[g];
    return add_item(l, (objrt_item){ .kind = IT_COMMON, .group = GRP_RW, .obj = g,
                                     .size = s->size, .align = s->common_align });
}

/* The single placement rule: align the cursor, place, advance. False past top (add_item's
 * span check makes that unreachable; the check keeps it true by construction). */
static bool plan_item(uint64_t *cursor, uint64_t size, uint64_t align, uint64_t *off,
                      uint64_t top)
{
    uint64_t at = *cursor;
    if (!plan_add(&at, align - 1, top))
        return false;
    at &= ~(align - 1);
    *off = at;
    if (!plan_add(&at, size, top))
        return false;
    *cursor = at;
    return true;
}

/* Within each group, bytes with content first and zero-fill (.bss, COMMON) last, as ld
 * does: the zero-filled tail is never written, so it stays demand-zero memory. Items keep
 * the plan's order inside each (group, zero-fill) bucket: one counting pass sorts them
 * into the buckets, instead of a pass over every item per bucket (six passes over
 * libcrypto's 11k items). */
enum { BUCKETS = 2 * GRP_COUNT };
static size_t bucket_of(const objrt_item *it) { return 2 * (size_t)it->group + it->zero; }

/* The placement itself: groups in order, each page-aligned, its buckets' items by the
 * single placement rule (order: item indices by bucket, at: where each bucket starts). */
static int place_buckets(objrt_link *l, const size_t *order, const size_t at[BUCKETS + 1])
{
    objrt_plan *p = &l->plan;
    uint64_t cursor = 0, top = l->arch->user_top;
    for (int grp = 0; grp <= GRP_COUNT; grp++) {
        uint64_t start;
        if (!plan_item(&cursor, 0, p->page, &start, top))
            return objrt_fail(l->ctx, "the unit is larger than 0x%llx bytes",
                              (unsigned long long)top);
        if (grp == GRP_COUNT) {
            p->total = start;
            break;
        }
        for (size_t j = at[2 * grp]; j < at[2 * grp + 2]; j++) {
            objrt_item *it = &p->items[order[j]];
            if (!plan_item(&cursor, it->size, it->align, &it->off, top) ||
                !plan_add(&p->used, it->size, top))
                return too_large(l, it);
        }
        p->group_off[grp] = start;
        p->group_size[grp] = cursor - start;
    }
    return 0;
}

static int assign_offsets(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    size_t at[BUCKETS + 1] = { 0 };
    p->base_align = p->page;        /* offsets are only as aligned as the base under them */
    for (size_t i = 0; i < p->nitems; i++) {
        if (p->items[i].align > p->base_align)
            p->base_align = p->items[i].align;
        at[bucket_of(&p->items[i]) + 1]++;
    }
    for (size_t b = 1; b <= BUCKETS; b++)
        at[b] += at[b - 1];
    size_t *order = malloc((p->nitems ? p->nitems : 1) * sizeof *order);
    if (!order)
        return objrt_fail(l->ctx, "out of memory");
    size_t fill[BUCKETS];
    memcpy(fill, at, sizeof fill);
    for (size_t i = 0; i < p->nitems; i++)
        order[fill[bucket_of(&p->items[i])]++] = i;
    int rc = place_buckets(l, order, at);
    free(order);
    return rc;
}

/* Small units share pages (arena.c) when the context asks for it (OBJRT_PACK overrides)
 * and nothing needs a reservation of the unit's own: thread-local data (its module is
 * built over the image), or a unit wide enough to need stubs inside itself. */
static bool pack_wanted(const objrt_link *l)
{
    const char *env = getenv("OBJRT_PACK");
    bool on = env && *env ? strcmp(env, "0") != 0 : l->ctx->opt.pack_small != 0;
    const objrt_tls *t = &l->tls;
    return on && !l->dry_run && !l->plan.internal_stubs && !t->size && !t->nents &&
           !t->own_used && !t->le_used;
}

/* The packed layout: each group laid out from 0 by the same rule, then given a chunk of
 * the arena; offsets are from the lowest chunk. 1: the arena declined (too big, or no
 * memory it can use), lay the unit out on its own pages instead. */
static int assign_packed(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    uint64_t size[GRP_COUNT], align[GRP_COUNT];
    for (int grp = 0; grp < GRP_COUNT; grp++) {
        uint64_t cursor = 0;
        align[grp] = 1;
        for (int zero = 0; zero < 2; zero++)
            for (size_t i = 0; i < p->nitems; i++) {
                objrt_item *it = &p->items[i];
                if (it->group != grp || it->zero != (bool)zero)
                    continue;
                if (!plan_item(&cursor, it->size, it->align, &it->off, l->arch->user_top))
                    return too_large(l, it);
                align[grp] = it->align > align[grp] ? it->align : align[grp];
            }
        size[grp] = cursor;
    }
    if (!objrt_arena_fits(p->page, size, align) ||
        objrt_arena_alloc(l->ctx, p->page, size, align, p->chunks))
        return 1;
    uint64_t base = UINT64_MAX, end = 0;
    for (int g = 0; g < GRP_COUNT; g++)
        if (size[g]) {
            base = p->chunks[g].addr < base ? p->chunks[g].addr : base;
            end = p->chunks[g].addr + size[g] > end ? p->chunks[g].addr + size[g] : end;
        }
    for (int g = 0; g < GRP_COUNT; g++) {
        p->group_off[g] = size[g] ? p->chunks[g].addr - base : 0;
        p->group_size[g] = size[g];
    }
    for (size_t i = 0; i < p->nitems; i++) {
        p->items[i].off += p->group_off[p->items[i].group];
        p->used += p->items[i].size;
    }
    p->packed = true;
    p->packed_base = base;
    p->total = end - base;
    p->base_align = 1;              /* every chunk is aligned for its items already */
    return 0;
}

static bool item_named(const objrt_link *l, const objrt_item *it, const char *name)
{
    return it->kind == IT_SECTION && strcmp(objrt_sec_name(l->objs[it->obj], it->shndx), name) == 0;
}

/* ld's output section SEC: every input section called SEC, one after another, so that
 * __start_SEC .. __stop_SEC spans exactly them. They move up to the first of them. */
static int gather_special_section(objrt_link *l, const objrt_gsym *s)
{
    objrt_plan *p = &l->plan;
    const char *sec = objrt_special_section(s);
    size_t first = 0, n = 0;
    while (first < p->nitems && !item_named(l, &p->items[first], sec))
        first++;
    for (size_t i = first; i < p->nitems; i++) {
        if (!item_named(l, &p->items[i], sec))
            continue;
        objrt_item it = p->items[i];
        if (it.zero != p->items[first].zero || it.group != p->items[first].group)
            return objrt_fail(l->ctx, "%s: the sections called %s differ in permissions "
                              "or mix data with zero-fill; '%s' needs them as one",
                              l->objs[it.obj]->name, sec, s->name);
        memmove(&p->items[first + n + 1], &p->items[first + n],
                (i - first - n) * sizeof *p->items);
        p->items[first + n++] = it;
    }
    return 0;
}

/* One pass over the globals (a cache miss per global, so not one per question): each
 * __start_/__stop_ gathers its sections, each common symbol becomes an item. The items
 * come out as from two passes: gathering moves only named sections, commons follow them. */
static int sweep_globals(objrt_link *l)
{
    for (uint32_t g = 0; g < l->ngsyms; g++) {
        const objrt_gsym *s = &l->gsyms[g];
        if (s->state == G_SPECIAL && s->special >= SP_START && gather_special_section(l, s))
            return -1;
        if (s->state == G_COMMON && add_common(l, g))
            return -1;
    }
    return 0;
}

/* _GLOBAL_OFFSET_TABLE_, __dso_handle (the base) and __start_/__stop_SEC. */
static uint64_t special_offset(const objrt_link *l, const objrt_gsym *s)
{
    const objrt_plan *p = &l->plan;
    if (s->special == SP_GOT || s->special == SP_DSO_HANDLE)
        return s->special == SP_GOT ? p->got_off : 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < p->nitems; i++)
        if (item_named(l, &p->items[i], objrt_special_section(s))) {
            if (p->items[i].off < lo)
                lo = p->items[i].off;
            if (p->items[i].off + p->items[i].size > hi)
                hi = p->items[i].off + p->items[i].size;
        }
    return s->special == SP_START ? lo : hi;
}

/* After offsets are known: where everything landed, for symbol addresses. */
static void publish_offsets(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    for (size_t i = 0; i < p->nitems; i++) {
        const objrt_item *it = &p->items[i];
        switch (it->kind) {
        case IT_SECTION:
        case IT_EH_FRAME: l->objs[it->obj]->sec_off[it->shndx] = it->off; break;
        case IT_COMMON:   l->gsyms[it->obj].off = it->off; break;
        case IT_GOT:      p->got_off = it->off; break;
        case IT_STUBS:
            if (p->nstub_blocks == 0)
                p->stub_off = it->off;
            p->stub_blocks[p->nstub_blocks++] = it->off;
            break;
        }
    }
    for (size_t g = 0; g < l->ngsyms; g++) {
        objrt_gsym *s = &l->gsyms[g];
        const objrt_obj *d = l->objs[s->obj];
        uint32_t shndx = s->state == G_DEF ? objrt_sym_shndx(d, s->sym) : 0;
        if (s->state == G_SPECIAL)
            s->off = special_offset(l, s);
        else if (s->state == G_DEF && shndx != SEC_ABS && d->sec_placed[shndx])
            s->off = d->sec_off[shndx] + d->syms[s->sym].st_value;
        s->placed = s->state == G_SPECIAL || s->state == G_COMMON ||
                    (s->state == G_DEF && shndx != SEC_ABS && d->sec_placed[shndx]);
    }
}

static void narrow(objrt_plan *p, uint64_t top, __int128 lo, __int128 hi, const objrt_winref *why)
{
    if (lo > (__int128)p->win_lo) {
        p->win_lo = lo > (__int128)top ? top : (uint64_t)lo;
        p->win_lo_ref = why;
    }
    if (hi < (__int128)p->win_hi) {
        p->win_hi = hi < 0 ? 0 : (uint64_t)hi;
        p->win_hi_ref = why;
    }
}

/* The base addresses at which every base-dependent relocation fits. */
static void derive_window(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    for (size_t i = 0; i < p->nwinrefs; i++) {
        const objrt_obj *o = l->objs[p->winrefs[i].obj];
        const Elf64_Rela *r = p->winrefs[i].r;
        const objrt_howto *h = objrt_howto_of(l->arch, ELF64_R_TYPE(r->r_info));
        size_t sym = ELF64_R_SYM(r->r_info);
        uint64_t s = 0;               /* count_site checked it is placed */
        bool fixed;
        objrt_sym_addr(l, o, sym, &s, &fixed);
        __int128 min, max, sa = (__int128)s + r->r_addend;
        __int128 place = o->sec_off[p->winrefs[i].target] + r->r_offset;
        const objrt_winref *why = &p->winrefs[i];
        objrt_howto_range(h, &min, &max);
        if (fixed) {                        /* PC-relative to a fixed address */
            if (h->formula == F_PAGE_PCREL) {   /* page rounding of P: one ADRP page */
                min += OBJRT_ADRP_PAGE;
                max -= OBJRT_ADRP_PAGE;
            }
            narrow(p, l->arch->user_top, sa - place - max, sa - place - min, why);
        } else {                            /* absolute reference into the unit */
            narrow(p, l->arch->user_top, min - sa, max - sa, why);
        }
    }
}

/* The stubs follow the code. In a unit wider than the branch reach every caller must
 * reach a copy of them: a stub block goes before the code, before any code item that
 * would take the code since the last block beyond the reach (less the block itself and a
 * margin for alignment), and after the code, so code up to the reach past the last block
 * and any single section up to about twice the reach find one (relocate.c picks the
 * nearest). */
#define STUB_MARGIN ((uint64_t)1 << 20)

static int add_stubs(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    objrt_item stubs = { .kind = IT_STUBS, .group = GRP_RX,
                         .size = (uint64_t)p->stub.n * l->arch->stub_size,
                         .align = l->arch->stub_align };
    if (!p->internal_stubs) {
        p->stub_blocks = calloc(1, sizeof *p->stub_blocks);
        return p->stub_blocks ? add_item(l, stubs) : objrt_fail(l->ctx, "out of memory");
    }
    uint64_t reach = l->arch->branch_reach;
    uint64_t limit = reach > stubs.size + 2 * STUB_MARGIN ? reach - stubs.size - STUB_MARGIN
                                                          : reach / 2;
    size_t n = p->nitems, k = 0, blocks = 0;
    objrt_item *v = malloc((2 * n + 2) * sizeof *v);
    if (!v)
        return objrt_fail(l->ctx, "out of memory");
    uint64_t since = 0;
    for (size_t i = 0; i < n; i++) {
        const objrt_item *it = &p->items[i];
        if (it->group == GRP_RX && (blocks == 0 || (since && since + it->size > limit))) {
            v[k++] = stubs;
            blocks++;
            since = 0;
        }
        if (it->group == GRP_RX)
            since += it->size + it->align;
        v[k++] = *it;
    }
    v[k++] = stubs;
    blocks++;
    p->stub_blocks = calloc(blocks, sizeof *p->stub_blocks);
    if (!p->stub_blocks) {
        free(v);
        return objrt_fail(l->ctx, "out of memory");
    }
    free(p->items);
    p->items = v;
    p->nitems = k;
    p->capitems = 2 * n + 2;
    return 0;
}

static size_t plan_page_size(objrt_link *l)
{
    size_t sys = (size_t)sysconf(_SC_PAGESIZE);
    size_t want = l->ctx->opt.page_size ? l->ctx->opt.page_size : sys;
    if (want < sys || (want & (want - 1))) {
        objrt_fail(l->ctx, "page size %zu is invalid here (system page size %zu)", want, sys);
        return 0;
    }
    return want;
}

/* Offsets (packed: already assigned), what depends on them, and the window. */
static int lay_out(objrt_link *l, bool packed)
{
    objrt_plan *p = &l->plan;
    if (!packed) {                          /* also when a packed layout is given up */
        p->packed = false;
        memset(p->chunks, 0, sizeof p->chunks);
        p->used = 0;
        if (assign_offsets(l))
            return -1;
    }
    if (p->total == 0)
        p->total = p->page;                 /* a unit always has an address (__dso_handle) */
    p->nstub_blocks = 0;
    publish_offsets(l);
    p->win_lo = p->page;                    /* never at address 0 */
    p->win_hi = l->arch->user_top;
    p->win_lo_ref = p->win_hi_ref = NULL;
    derive_window(l);
    return 0;
}

/* Room for every section item at once: at most one per section header of the pulled
 * objects, plus the GOT and a stub block (commons, rare, still grow the array). Growing
 * from 64 items copied libcrypto's ~11k eight times over. */
static int reserve_items(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    size_t n = 2;
    for (size_t m = 0; m < l->nobjs; m++)
        if (l->objs[m]->pulled && __builtin_add_overflow(n, l->objs[m]->shnum, &n))
            return objrt_fail(l->ctx, "out of memory");
    objrt_item *v = objrt_grow(l->ctx, p->items, &p->capitems, n, sizeof *v, 64);
    if (!v)
        return -1;
    p->items = v;
    return 0;
}

int objrt_plan_layout(objrt_link *l)
{
    objrt_plan *p = &l->plan;
    if (!(p->page = plan_page_size(l)))
        return -1;
    if (reserve_items(l))
        return -1;
    for (size_t m = 0; m < l->nobjs; m++)
        if (l->objs[m]->pulled && select_sections(l, l->objs[m]))
            return -1;
    if (sweep_globals(l) || objrt_tls_layout(l))
        return -1;
    /* the span bounds the unit: items, their alignment, each group's page rounding */
    p->internal_stubs = p->span + 3 * p->page >= l->arch->branch_reach;
    const char *full = getenv("OBJRT_FULL_WALK");
    l->full_walk = full && *full && strcmp(full, "0") != 0;
    ptrdiff_t sites = objrt_sym_answers_new(l) || own_slots_new(l) ? -1 :
                      l->full_walk ? objrt_sites_each(l, objrt_sites_no_fast, count_site) :
                      objrt_sites_each(l, count_fast, count_site);
    if (sites < 0)
        return -1;
    p->relocations = (size_t)sites;
    if (p->stub.n && add_stubs(l))
        return -1;
    /* address slots, then the thread-local entries (tls.c) */
    uint64_t got_size = 8 * (uint64_t)p->got.n + l->tls.got_bytes;
    if ((got_size || p->got_base_used) &&
        add_item(l, (objrt_item){ .kind = IT_GOT, .group = GRP_R,
                                  .size = got_size ? got_size : 8, .align = 8 }))
        return -1;
    int packed = pack_wanted(l) ? assign_packed(l) : 1;
    if (packed < 0 || lay_out(l, packed == 0))
        return -1;
    if (p->packed && (p->packed_base < p->win_lo || p->packed_base > p->win_hi)) {
        objrt_arena_free(l->ctx, p->chunks);    /* its references need another address */
        if (lay_out(l, false))
            return -1;
    }
    if (p->win_hi >= l->arch->user_top - p->total)
        p->win_hi = l->arch->user_top - p->total;
    return 0;
}

/*
 * sites.h - the relocations of a unit, one site at a time. plan.c walks them to validate and
 * count GOT slots and stubs; relocate.c walks them again, in the same order, to apply them.
 * Inline so that each walk calls its pass directly (the walk is the hot loop of a link).
 * Each pass has two parts: a fast path that settles the common relocation from the raw
 * entry, and the full path, given the whole site, for everything else (and for every
 * error: the fast path only ever declines).
 */
#ifndef OBJRT_SITES_H
#define OBJRT_SITES_H

#include "arch/arch.h"
#include "base/link.h"
#include "symbols/symbols.h"

/* ---- relocation sites (sites.c) ---- */
typedef struct objrt_site {     /* one relocation of the unit, in the psABI's notation */
    const objrt_obj *o;
    size_t target;              /* the section it patches */
    const Elf64_Rela *r;
    uint32_t type;
    uint32_t rsec;              /* the relocation section r is an entry of */
    size_t sym;
    const objrt_howto *h;       /* NULL: a type the architecture does not know */
    uint64_t S, P;              /* S: filled by whoever asks objrt_sym_addr */
    int64_t A;
    bool fixed;                 /* S is absolute (host, ABS, undefined weak) */
} objrt_site;

typedef int (*objrt_site_fn)(objrt_link *l, objrt_site *s);
typedef struct objrt_rela_sec { /* what the walk knows of the section being patched */
    const objrt_obj *o;
    size_t target;              /* its index */
    uint64_t addr, size;        /* where it is placed (base + offset) and its size */
    bool nobits;
    size_t dropped_below;       /* symbols below this index may lie in a dropped COMDAT
                                   group (comdat.c): left to the full path */
    const uint8_t *symf;        /* o's answers (symbols.c) */
    const uint64_t *symv;
    int64_t write_delta;        /* objrt_write_at(P) - P, the same for the whole section */
    const objrt_howto *howtos;  /* the architecture's table, held in registers */
    uint32_t nhowtos;
} objrt_rela_sec;
/* A pass's fast path for the common relocation: true when it handled relocation r of
 * section w completely, false to have the walk build the site and call the pass's full
 * objrt_site_fn instead (which also reports every error). */
typedef bool (*objrt_site_fast_fn)(objrt_link *l, const objrt_rela_sec *w, const Elf64_Rela *r);
/* objrt_sites_each(l, fast, fn) - sites.h, inline so each pass's loop calls both directly;
 * returns the number of sites walked, or -1 when fn failed. */
/* "file: section S+off: relocation R_X against 'sym': what" ("relocation unknown (type N)"
 * for a type the backend does not know), plus the value, target and place when `value`
 * is given. Returns -1. The site comes by value: the walks' own site then never has its
 * address taken, which lets the compiler keep more of it in registers (only a failing
 * relocation pays for the copy; docs/perf-history.md). */
int objrt_site_fail(objrt_link *l, objrt_site s, const char *what, const uint64_t *value);

/* Paired relocations (arch.h, F_PAIRED). objrt_site_pair_find: the partner of paired site
 * s, asked of the backend once per link (the plan's walk) and kept in l->pairs; an error
 * naming the file, section, relocation (entry, type, offset) and what was expected when
 * there is none or it is of the wrong kind. objrt_site_partner: that partner as a site
 * (S not yet resolved), for relocation's walk, which visits the paired sites in the same
 * order. Both return 0, or -1 with the error set. */
int objrt_site_pair_find(objrt_link *l, const objrt_site *s);
int objrt_site_partner(objrt_link *l, const objrt_site *s, objrt_site *partner);

/* The table entry of relocation r's type for the fast paths, or NULL past the table. An
 * unknown type inside it has an empty entry, whose `direct` is false: the fast paths test
 * that first, so they need not ask for its name as objrt_howto_of does. */
static inline const objrt_howto *objrt_rela_howto(const objrt_rela_sec *w, const Elf64_Rela *r)
{
    uint32_t type = ELF64_R_TYPE(r->r_info);
    return type < w->nhowtos ? &w->howtos[type] : NULL;
}

/* A pass without a fast path (the layout report, OBJRT_FULL_WALK): every site takes the
 * full one. */
static inline __attribute__((always_inline)) bool
objrt_sites_no_fast(objrt_link *l, const objrt_rela_sec *w, const Elf64_Rela *r)
{
    (void)l, (void)w, (void)r;
    return false;
}

/* Relocation section i of o, if it patches a placed section. */
static inline bool objrt_rela_of(const objrt_obj *o, size_t i, const Elf64_Rela **r, size_t *n,
                                 size_t *target)
{
    const Elf64_Shdr *s = &o->sh[i];
    if (s->sh_type != SHT_RELA || !o->sec_placed[s->sh_info])
        return false;
    *r = (const Elf64_Rela *)(o->data + s->sh_offset);
    *n = s->sh_size / sizeof(Elf64_Rela);
    *target = s->sh_info;
    return true;
}

static inline __attribute__((always_inline)) ptrdiff_t
objrt_sites_each_in(objrt_link *l, const objrt_obj *o, objrt_site_fast_fn fast, objrt_site_fn fn)
{
    ptrdiff_t sites = 0;
    for (size_t i = 1; i < o->shnum; i++) {
        const Elf64_Rela *r;
        size_t n, target;
        if (!objrt_rela_of(o, i, &r, &n, &target))
            continue;
        objrt_rela_sec w = {
            .o = o, .target = target, .addr = (uintptr_t)l->base + o->sec_off[target],
            .size = o->sh[target].sh_size, .nobits = o->sh[target].sh_type == SHT_NOBITS,
            .dropped_below = o->sec_dropped ? o->first_global : 0,
            .symf = o->symf, .symv = o->symv, .howtos = l->arch->howtos,
            .nhowtos = l->arch->nhowtos };
        w.write_delta = (int64_t)((uintptr_t)objrt_write_at(l, w.addr) - w.addr);
        for (size_t k = 0; k < n; k++) {
            if (fast(l, &w, &r[k]))
                continue;
            objrt_site s = { .o = o, .target = target, .r = &r[k], .rsec = (uint32_t)i,
                             .type = ELF64_R_TYPE(r[k].r_info), .sym = ELF64_R_SYM(r[k].r_info),
                             .A = r[k].r_addend, .P = w.addr + r[k].r_offset };
            s.h = objrt_howto_of(l->arch, s.type);
            if (fn(l, &s))
                return -1;
        }
        sites += (ptrdiff_t)n;
    }
    return sites;
}

/* Calls fast, and where it declines fn, for every relocation of every pulled object that
 * patches a placed section, in one fixed order. Returns how many there were, or -1 at the
 * first fn that returns non-zero. */
static inline __attribute__((always_inline)) ptrdiff_t
objrt_sites_each(objrt_link *l, objrt_site_fast_fn fast, objrt_site_fn fn)
{
    ptrdiff_t sites = 0;
    for (size_t m = 0; m < l->nobjs; m++) {
        if (!l->objs[m]->pulled)
            continue;
        ptrdiff_t n = objrt_sites_each_in(l, l->objs[m], fast, fn);
        if (n < 0)
            return -1;
        sites += n;
    }
    return sites;
}

#endif

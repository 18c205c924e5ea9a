/*
 * relocate.c - fill the GOT, write the stubs, apply every relocation.
 *
 * Architecture-neutral: the value of each relocation follows the formula its howto names
 * (arch.h), is checked by the one overflow rule (objrt_value_fits) and only then handed to
 * the backend's encoder. A call whose target is out of direct reach is redirected to the
 * stub the plan reserved for it; a data reference out of reach is an error, never
 * redirected (a stub holds code, not the data). The sites are the ones plan.c validated.
 */
#include <stdio.h>
#include <string.h>

#include "finish/finish.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "symbols/comdat.h"
#include "debug/unitinfo.h"
#include "sites/sites.h"
#include "sites/reach.h"

static uint64_t page_of(uint64_t a) { return objrt_page_down(a, OBJRT_ADRP_PAGE); }

static uint64_t got_base(const objrt_link *l) { return (uintptr_t)l->base + l->plan.got_off; }
static uint64_t stub_base(const objrt_link *l) { return (uintptr_t)l->base + l->plan.stub_off; }

static void fill_got_and_stubs(objrt_link *l)
{
    const objrt_plan *p = &l->plan;
    uint64_t *got = (uint64_t *)objrt_write_at(l, got_base(l));
    for (size_t i = 0; i < p->got.n; i++)
        got[i] = objrt_sym_key_addr(l, p->got.keys[i]);
    for (size_t b = 0; b < p->nstub_blocks; b++)     /* every block holds every stub */
        for (size_t i = 0; i < p->stub.n; i++) {
            objrt_slotkey k = p->stub.keys[i];
            uint64_t slot = got_base(l) + 8 * (uint64_t)objrt_slot_find(&p->got, k);
            uint64_t off = p->stub_blocks[b] + i * (uint64_t)l->arch->stub_size;
            l->arch->emit_stub(objrt_write_at(l, (uintptr_t)l->base + off),
                               (uintptr_t)l->base + off, slot);
        }
}

/* Address of the GOT slot or stub reserved for this site (0: none), and the addend left. */
static uint64_t slot_of(const objrt_link *l, const objrt_site *s, const objrt_slots *t,
                        uint64_t block, uint64_t size, int64_t *rest)
{
    objrt_slotkey k = objrt_sym_key(s->o, s->sym, l->arch->slot_addend(s->h, s->A));
    uint32_t i = objrt_slot_find(t, k);
    *rest = s->A - k.addend;
    return i == OBJRT_NONE ? 0 : block + i * size;
}

/* The value of the site's formula (arch.h), before any redirection to a stub. */
static int value_of(objrt_link *l, const objrt_site *s, uint64_t *v)
{
    uint64_t S = s->S, A = (uint64_t)s->A, P = s->P, GOT = got_base(l);
    int64_t rest;
    switch (s->h->formula) {
    case F_ABS:         *v = S + A; return 0;
    case F_PCREL:
    case F_BRANCH:      *v = S + A - P; return 0;
    case F_GOTOFF:
    case F_PLTOFF:      *v = S + A - GOT; return 0;  /* 64-bit PLTOFF: the target serves as L */
    case F_GOTPC:       *v = GOT + A - P; return 0;
    case F_PAGE_PCREL:  *v = page_of(S + A) - page_of(P); return 0;
    default:            break;
    }
    uint64_t G = slot_of(l, s, &l->plan.got, GOT, 8, &rest);
    if (!G)
        return objrt_site_fail(l, *s, "no GOT slot planned", NULL);
    switch (s->h->formula) {
    case F_GOT_PCREL:      *v = G + (uint64_t)rest - P; return 0;
    case F_GOT_ABS:        *v = G + (uint64_t)rest; return 0;
    case F_GOT_OFFSET:     *v = G - GOT + (uint64_t)rest; return 0;
    case F_GOT_PAGE_PCREL: *v = page_of(G + (uint64_t)rest) - page_of(P); return 0;
    }
    return objrt_site_fail(l, *s, "unhandled formula", NULL);
}

/* A call out of direct reach: through its stub in the nearest block (plan.c puts blocks
 * where every caller should reach one). */
static int far_call(objrt_link *l, const objrt_site *s, uint64_t *v)
{
    const objrt_plan *p = &l->plan;
    int64_t rest = 0;
    uint64_t L0 = p->nstub_blocks ? slot_of(l, s, &p->stub, (uintptr_t)l->base +
                                            p->stub_blocks[0], l->arch->stub_size, &rest) : 0;
    if (!L0)
        return objrt_site_fail(l, *s, "call target out of reach and no stub planned", v);
    uint64_t best = 0, best_mag = UINT64_MAX;
    for (size_t b = 0; b < p->nstub_blocks; b++) {
        uint64_t c = L0 - p->stub_blocks[0] + p->stub_blocks[b] + (uint64_t)rest - s->P;
        uint64_t mag = (int64_t)c < 0 ? -c : c;
        if (mag < best_mag) {
            best_mag = mag;
            best = c;
        }
    }
    if (!objrt_value_fits(s->h, best)) {
        char what[200];
        snprintf(what, sizeof what, "call target out of reach, and so is every stub block: "
                 "the nearest is 0x%llx bytes away, beyond the reach of 0x%llx (a single "
                 "code section wider than about twice that cannot be linked)",
                 (unsigned long long)best_mag, (unsigned long long)l->arch->branch_reach);
        return objrt_site_fail(l, *s, what, &best);
    }
    *v = best;
    l->stubs_used++;
    return 0;
}

/* A value that does not fit: a call goes through a stub; the address of a host function
 * becomes its stub's address (plan.c reserved one when the host symbol is a function). */
static int via_stub(objrt_link *l, const objrt_site *s, uint64_t *v)
{
    uint8_t f = s->h->formula;
    if (f == F_BRANCH)
        return far_call(l, s, v);
    if (!s->fixed || (f != F_ABS && f != F_PCREL))
        return 0;
    int64_t rest;
    uint64_t C = slot_of(l, s, &l->plan.stub, stub_base(l), l->arch->stub_size, &rest);
    if (C)
        *v = C + (uint64_t)rest - (f == F_ABS ? 0 : s->P);
    return 0;
}

static int overflow(objrt_link *l, const objrt_site *s, uint64_t v)
{
    char what[96];
    if (s->h->align > 1 && (v & (uint64_t)(s->h->align - 1)))   /* LDSTn scale, branches */
        snprintf(what, sizeof what, "value is not a multiple of %u", s->h->align);
    else
        snprintf(what, sizeof what, "value does not fit %s %u bits",
                 s->h->check == C_UNSIGNED ? "unsigned" :
                 s->h->check == C_EITHER ? "signed or unsigned" : "signed", s->h->bits);
    return objrt_site_fail(l, *s, what, &v);
}

static int paired_value(objrt_link *l, const objrt_site *s, uint64_t *v);

/* The value site s writes: its formula's (a paired site's from its partner too), through
 * a stub where it does not fit and a stub may serve. Returns 0 when that value fits, 1
 * when it does not, -1 on error. */
static int site_value(objrt_link *l, objrt_site *s, uint64_t *v)
{
    if (s->h->tls) {                        /* thread-local: values from tls.c */
        const char *why;
        if (objrt_tls_value(l, s->o, s->r, s->h, s->P, v, &why))
            return objrt_site_fail(l, *s, why, NULL);
    } else if (objrt_comdat_dropped_ref(l, s->o, s->target, s->r) > 0) {
        *v = 0;                             /* a dropped function's FDE: libgcc skips it */
    } else {
        uint8_t f = objrt_sym_flags_addr(l, s->o, s->sym);
        if (!(f & SF_ADDR))
            return objrt_site_fail(l, *s, "symbol is in a section that is not loaded", NULL);
        s->S = s->o->symv[s->sym];
        s->fixed = f & SF_FIXED;
        if (s->h->formula == F_PAIRED ? paired_value(l, s, v) : value_of(l, s, v))
            return -1;
    }
    if (objrt_value_fits(s->h, *v))         /* checked once when it fits, as most do */
        return 0;
    if (via_stub(l, s, v))
        return -1;
    return !objrt_value_fits(s->h, *v);
}

/* The backend's value for a paired site (arch.h), from its partner's value: the one the
 * partner writes itself (its own apply checks that it fits). */
static int paired_value(objrt_link *l, const objrt_site *s, uint64_t *v)
{
    objrt_site p;
    uint64_t pv = 0;
    if (objrt_site_partner(l, s, &p) || site_value(l, &p, &pv) < 0)
        return -1;
    objrt_pair_end self = { .h = s->h, .S = s->S, .P = s->P, .A = s->A };
    objrt_pair_end partner = { .h = p.h, .S = p.S, .P = p.P, .A = p.A, .value = pv };
    *v = l->arch->pair_value(&self, &partner);
    return 0;
}

static int apply(objrt_link *l, objrt_site *s)
{
    uint64_t v = 0;
    if (s->h->formula == F_NONE)
        return 0;
    int unfit = site_value(l, s, &v);
    if (unfit)
        return unfit < 0 ? -1 : overflow(l, s, v);
    if (l->reach)
        objrt_reach_note(l->reach, s->type, s->h, v);
    if (!l->dry_run)
        l->arch->write(s->h, objrt_write_at(l, s->P), v);
    return 0;
}

/* apply()'s answer without the site, for the common relocation: S + A, S + A - P or
 * Page(S + A) - Page(P) of a symbol that has an address, with a value that fits, written
 * in place. The rest (GOT and stubs, thread-local, references from dropped COMDAT
 * functions, overflow, the layout report) takes the full path. */
static inline __attribute__((always_inline)) bool
apply_fast(objrt_link *l, const objrt_rela_sec *w, const Elf64_Rela *r)
{
    const objrt_howto *h = objrt_rela_howto(w, r);
    size_t sym = ELF64_R_SYM(r->r_info);
    if (!h || !h->direct || sym < w->dropped_below)
        return false;
    uint8_t f = w->symf[sym];               /* the walk's copy of o->symf: kept in a register */
    if (!(f & SF_VKNOWN))
        f = objrt_sym_answer_addr(l, w->o, sym);
    if (!(f & SF_ADDR))
        return false;
    uint64_t P = w->addr + r->r_offset, SA = w->symv[sym] + (uint64_t)r->r_addend;
    uint64_t v = h->formula == F_ABS ? SA : h->formula == F_PAGE_PCREL ? page_of(SA) - page_of(P)
                                          : SA - P;
    if (!objrt_value_fits(h, v))
        return false;
    uint8_t *at = (uint8_t *)(uintptr_t)(P + (uint64_t)w->write_delta);
    uint32_t v32 = (uint32_t)v;
    if (h->plain == 8)                      /* most x86-64 fields: no call for them */
        memcpy(at, &v, 8);
    else if (h->plain == 4)
        memcpy(at, &v32, 4);
    else
        l->arch->write(h, at, v);
    return true;
}

int objrt_relocate(objrt_link *l)
{
    if (!l->dry_run)
        fill_got_and_stubs(l);
    if (l->dry_run || l->reach || l->full_walk)    /* the report notes every value */
        return objrt_sites_each(l, objrt_sites_no_fast, apply) < 0 ? -1 : 0;
    return objrt_sites_each(l, apply_fast, apply) < 0 ? -1 : 0;
}

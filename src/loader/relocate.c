/*
 * relocate.c - fill the GOT, write the stubs, apply every relocation.
 *
 * Architecture-neutral: the value of each relocation follows the formula its howto names
 * (arch.h), is checked by the one overflow rule (objrt_value_fits) and only then handed to
 * the backend's encoder. A call whose target is out of direct reach is redirected to the
 * stub the plan reserved for it; a data reference out of reach is an error, never
 * redirected (a stub holds code, not the data).
 */
#include <stdio.h>
#include <stdlib.h>

#include "loader/arch.h"
#include "loader/internal.h"
#include "loader/reach.h"

static uint64_t page_of(uint64_t a) { return a & ~(uint64_t)0xfff; }   /* ADRP pages: 4 KiB */

static uint64_t key_addr(const objrt_link *l, objrt_slotkey k)
{
    uint64_t a = 0;
    bool fixed;
    if (k.id >> 63) {
        const objrt_gsym *g = &l->gsyms[(uint32_t)k.id];
        objrt_sym_addr(l, l->objs[g->obj], g->sym, &a, &fixed);
    } else {
        objrt_sym_addr(l, l->objs[k.id >> 32], (uint32_t)k.id, &a, &fixed);
    }
    return a + (uint64_t)k.addend;
}

static uint64_t got_base(const objrt_link *l) { return (uintptr_t)l->base + l->plan.got_off; }

static void fill_got_and_stubs(objrt_link *l)
{
    const objrt_plan *p = &l->plan;
    uint64_t *got = (uint64_t *)(l->base + p->got_off);
    for (size_t i = 0; i < p->got_slots; i++)
        got[i] = key_addr(l, p->got_keys[i]);
    for (size_t b = 0; b < p->nstub_blocks; b++)     /* every block holds every stub */
        for (size_t i = 0; i < p->stubs; i++) {
            objrt_slotkey k = p->stub_keys[i];
            uint64_t slot = got_base(l) + 8 * (uint64_t)objrt_keymap_get(&p->got_map, k.id, k.addend);
            uint64_t off = p->stub_blocks[b] + i * (uint64_t)l->arch->stub_size;
            l->arch->emit_stub(l->base + off, (uintptr_t)l->base + off, slot);
        }
}

typedef struct site {           /* one relocation, in the psABI's notation */
    const objrt_obj *o;
    size_t target;
    const Elf64_Rela *r;
    const objrt_howto *h;
    uint64_t S, P;
    int64_t A;
    bool fixed;
} site;

static int site_error(objrt_link *l, const site *s, uint64_t v, const char *what)
{
    const char *hint = s->fixed && s->h->formula == F_PCREL
        ? "; the target is outside the unit: compile with -fPIC so it is reached through the GOT"
        : "";
    return objrt_fail(l->ctx, "%s: section %s+0x%llx: %s against '%s': %s (value 0x%llx, "
                      "target 0x%llx, place 0x%llx)%s", s->o->name,
                      objrt_sec_name(s->o, s->target), (unsigned long long)s->r->r_offset,
                      s->h->name, objrt_sym_name(s->o, ELF64_R_SYM(s->r->r_info)), what,
                      (unsigned long long)v, (unsigned long long)(s->S + (uint64_t)s->A),
                      (unsigned long long)s->P, hint);
}

/* Address of the GOT slot or stub reserved for this site, and the addend left over. */
static uint64_t slot_of(const objrt_link *l, const site *s, const objrt_keymap *map,
                        uint64_t block, uint64_t size, int64_t *rest)
{
    objrt_slotkey k = objrt_target_key(s->o, s->o->index, ELF64_R_SYM(s->r->r_info));
    k.addend = l->arch->slot_addend(s->h, s->A);
    uint32_t i = objrt_keymap_get(map, k.id, k.addend);
    *rest = s->A - k.addend;
    return i == OBJRT_NONE ? 0 : block + i * size;
}

/* A call out of direct reach: through its stub in the nearest block (plan.c puts blocks
 * where every caller should reach one). */
static int far_call(objrt_link *l, const site *s, uint64_t *v)
{
    const objrt_plan *p = &l->plan;
    int64_t rest = 0;
    uint64_t L0 = p->nstub_blocks ? slot_of(l, s, &p->stub_map, (uintptr_t)l->base +
                                            p->stub_blocks[0], l->arch->stub_size, &rest) : 0;
    if (!L0)
        return site_error(l, s, *v, "call target out of reach and no stub planned");
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
        return site_error(l, s, best, what);
    }
    *v = best;
    l->stubs_used++;
    return 0;
}

static int compute(objrt_link *l, const site *s, uint64_t *v)
{
    const objrt_plan *p = &l->plan;
    uint64_t S = s->S, A = (uint64_t)s->A, P = s->P, GOT = got_base(l), G = 0;
    int64_t rest = 0;
    switch (s->h->formula) {
    case F_ABS:
    case F_PCREL:
        *v = S + A - (s->h->formula == F_PCREL ? P : 0);
        if (objrt_value_fits(s->h, *v) || !s->fixed)
            return 0;
        /* a host function out of reach: its stub in the unit serves as its address */
        uint64_t C = slot_of(l, s, &p->stub_map, (uintptr_t)l->base + p->stub_off,
                             l->arch->stub_size, &rest);
        if (C)
            *v = C + (uint64_t)rest - (s->h->formula == F_PCREL ? P : 0);
        return 0;
    case F_GOTOFF:      *v = S + A - GOT; return 0;
    case F_GOTPC:       *v = GOT + A - P; return 0;
    case F_PLTOFF:      *v = S + A - GOT; return 0;  /* 64-bit: the target itself serves as L */
    case F_PAGE_PCREL:  *v = page_of(S + A) - page_of(P); return 0;
    case F_BRANCH: {
        *v = S + A - P;
        if (objrt_value_fits(s->h, *v))
            return 0;
        return far_call(l, s, v);
    }
    default:
        break;
    }
    G = slot_of(l, s, &p->got_map, GOT, 8, &rest);
    if (!G)
        return site_error(l, s, 0, "no GOT slot planned");
    switch (s->h->formula) {
    case F_GOT_PCREL:      *v = G + (uint64_t)rest - P; return 0;
    case F_GOT_ABS:        *v = G + (uint64_t)rest; return 0;
    case F_GOT_OFFSET:     *v = G - GOT + (uint64_t)rest; return 0;
    case F_GOT_PAGE_PCREL: *v = page_of(G + (uint64_t)rest) - page_of(P); return 0;
    }
    return site_error(l, s, 0, "unhandled formula");
}

static int apply(objrt_link *l, site *s)
{
    uint64_t v = 0;
    if (s->h->formula == F_NONE)
        return 0;
    if (s->h->tls) {                        /* thread-local: values from tls.c */
        const char *why;
        if (objrt_tls_value(l, s->o, s->r, s->h, s->P, &v, &why))
            return site_error(l, s, 0, why);
    } else {
        if (objrt_sym_addr(l, s->o, ELF64_R_SYM(s->r->r_info), &s->S, &s->fixed))
            return site_error(l, s, 0, "symbol is in a section that is not loaded");
        if (compute(l, s, &v))
            return -1;
    }
    if (!objrt_value_fits(s->h, v)) {
        char what[96];
        if (s->h->align > 1 && (v & (uint64_t)(s->h->align - 1)))   /* LDSTn scale, branches */
            snprintf(what, sizeof what, "value is not a multiple of %u", s->h->align);
        else
            snprintf(what, sizeof what, "value does not fit %s %u bits",
                     s->h->check == C_UNSIGNED ? "unsigned" :
                     s->h->check == C_EITHER ? "signed or unsigned" : "signed", s->h->bits);
        return site_error(l, s, v, what);
    }
    if (l->reach)
        objrt_reach_note(l->reach, ELF64_R_TYPE(s->r->r_info), s->h, v);
    if (!l->dry_run)
        l->arch->write(s->h, (uint8_t *)(uintptr_t)s->P, v);
    return 0;
}

static int relocate_object(objrt_link *l, const objrt_obj *o)
{
    for (size_t i = 1; i < o->shnum; i++) {
        const Elf64_Rela *r;
        size_t n, target;
        if (!objrt_rela_of(o, i, &r, &n, &target))
            continue;
        uint64_t sec = (uintptr_t)l->base + o->sec_off[target];
        for (size_t k = 0; k < n; k++) {
            site s = { .o = o, .target = target, .r = &r[k], .A = r[k].r_addend,
                       .h = objrt_howto_of(l->arch, ELF64_R_TYPE(r[k].r_info)),
                       .P = sec + r[k].r_offset };
            if (apply(l, &s))
                return -1;
        }
    }
    return 0;
}

int objrt_relocate(objrt_link *l)
{
    if (!l->dry_run)
        fill_got_and_stubs(l);
    for (size_t m = 0; m < l->nobjs; m++)
        if (l->objs[m]->pulled && relocate_object(l, l->objs[m]))
            return -1;
    return 0;
}

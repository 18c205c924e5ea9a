/*
 * sites.c - the one way to say what is wrong with a relocation site, and the partners of
 * paired relocations (the walk over the sites is inline in sites.h).
 */
#include <stdio.h>

#include "arch/arch.h"
#include "sites/sites.h"

int objrt_site_fail(objrt_link *l, objrt_site site, const char *what, const uint64_t *value)
{
    const objrt_site *s = &site;
    char detail[256] = "";
    if (value)
        snprintf(detail, sizeof detail, " (value 0x%llx, target 0x%llx, place 0x%llx)%s",
                 (unsigned long long)*value, (unsigned long long)(s->S + (uint64_t)s->A),
                 (unsigned long long)s->P, s->fixed && s->h->formula == F_PCREL
                 ? "; the target is outside the unit: compile with -fPIC so it is reached "
                   "through the GOT" : "");
    char type[32];                  /* a known type by name, an unknown one by number */
    snprintf(type, sizeof type, "unknown (type %u)", s->type);
    return objrt_fail(l->ctx, "%s: section %s+0x%llx: relocation %s against '%s': %s%s",
                      s->o->name, objrt_sec_name(s->o, s->target),
                      (unsigned long long)s->r->r_offset, s->h ? s->h->name : type,
                      objrt_sym_name(s->o, s->sym), what, detail);
}

/* ---- paired relocations ---- */

/* The paired site's error: "entry K of .rela.X: why" after the site's own description. */
static int pair_fail(objrt_link *l, const objrt_site *s, const char *why)
{
    char what[512];
    snprintf(what, sizeof what, "entry %zu of %s: %s",
             (size_t)(s->r - (const Elf64_Rela *)(s->o->data + s->o->sh[s->rsec].sh_offset)),
             objrt_sec_name(s->o, s->rsec), why);
    return objrt_site_fail(l, *s, what, NULL);
}

/* A partner is applied as it would be alone: a known type with a value of its own. */
static const char *unfit_partner(const objrt_link *l, uint32_t type)
{
    const objrt_howto *h = objrt_howto_of(l->arch, type);
    if (!h)
        return "an unknown type";
    if (h->formula == F_PAIRED)
        return "paired itself";
    if (h->formula == F_NONE || h->formula == F_TLS)
        return "a type without a value";
    return NULL;
}

int objrt_site_pair_find(objrt_link *l, const objrt_site *s)
{
    const Elf64_Shdr *rs = &s->o->sh[s->rsec];
    const Elf64_Rela *rela = (const Elf64_Rela *)(s->o->data + rs->sh_offset);
    objrt_pair_query q = { .rela = rela, .n = rs->sh_size / sizeof *rela,
                           .k = (size_t)(s->r - rela),
                           .sym_in_target = objrt_sym_shndx(s->o, s->sym) == s->target,
                           .sym_value = s->o->syms[s->sym].st_value };
    char why[256] = "";
    size_t p = 0;
    if (!l->arch->find_partner || !l->arch->pair_value)
        return pair_fail(l, s, "the backend pairs this type with nothing (no find_partner)");
    if (l->arch->find_partner(s->h, &q, &p, why, sizeof why))
        return pair_fail(l, s, why[0] ? why : "no partner");
    const char *unfit = p < q.n && p != q.k ? unfit_partner(l, ELF64_R_TYPE(rela[p].r_info))
                                            : "not another entry of the section";
    if (unfit) {
        snprintf(why, sizeof why, "its partner (entry %zu) is %s", p, unfit);
        return pair_fail(l, s, why);
    }
    objrt_pair *v = objrt_grow(l->ctx, l->pairs, &l->cappairs, l->npairs + 1, sizeof *v, 16);
    if (!v)
        return -1;
    l->pairs = v;
    l->pairs[l->npairs++] = (objrt_pair){ s->r, &rela[p] };
    return 0;
}

/* Relocation's walk meets the paired sites in the plan's order, some perhaps skipped (it
 * need not ask for every one): forward from where the last one was found. */
int objrt_site_partner(objrt_link *l, const objrt_site *s, objrt_site *partner)
{
    while (l->pair_next < l->npairs && l->pairs[l->pair_next].site != s->r)
        l->pair_next++;
    if (l->pair_next == l->npairs)
        return objrt_site_fail(l, *s, "its partner was not found by the plan", NULL);
    const Elf64_Rela *r = l->pairs[l->pair_next++].partner;
    *partner = (objrt_site){ .o = s->o, .target = s->target, .r = r, .rsec = s->rsec,
                             .type = ELF64_R_TYPE(r->r_info), .sym = ELF64_R_SYM(r->r_info),
                             .A = r->r_addend, .P = s->P - s->r->r_offset + r->r_offset };
    partner->h = objrt_howto_of(l->arch, partner->type);
    return 0;
}

/*
 * sites.c - the relocations of a unit, one site at a time, and the one way to say what is
 * wrong with one. plan.c walks them to validate and count GOT slots and stubs; relocate.c
 * walks them again, in the same order, to apply them.
 */
#include <stdio.h>

#include "loader/arch.h"
#include "loader/internal.h"

/* Relocation section i of o, if it patches a placed section. */
static bool rela_of(const objrt_obj *o, size_t i, const Elf64_Rela **r, size_t *n, size_t *target)
{
    const Elf64_Shdr *s = &o->sh[i];
    if (s->sh_type != SHT_RELA || !o->sec_placed[s->sh_info])
        return false;
    *r = (const Elf64_Rela *)(o->data + s->sh_offset);
    *n = s->sh_size / sizeof(Elf64_Rela);
    *target = s->sh_info;
    return true;
}

static int each_in_object(objrt_link *l, const objrt_obj *o, objrt_site_fn fn, void *arg)
{
    for (size_t i = 1; i < o->shnum; i++) {
        const Elf64_Rela *r;
        size_t n, target;
        if (!rela_of(o, i, &r, &n, &target))
            continue;
        uint64_t sec = (uintptr_t)l->base + o->sec_off[target];
        for (size_t k = 0; k < n; k++) {
            objrt_site s = { .o = o, .target = target, .r = &r[k],
                             .type = ELF64_R_TYPE(r[k].r_info), .sym = ELF64_R_SYM(r[k].r_info),
                             .A = r[k].r_addend, .P = sec + r[k].r_offset };
            s.h = objrt_howto_of(l->arch, s.type);
            if (fn(l, &s, arg))
                return -1;
        }
    }
    return 0;
}

int objrt_sites_each(objrt_link *l, objrt_site_fn fn, void *arg)
{
    for (size_t m = 0; m < l->nobjs; m++)
        if (l->objs[m]->pulled && each_in_object(l, l->objs[m], fn, arg))
            return -1;
    return 0;
}

int objrt_site_fail(objrt_link *l, const objrt_site *s, const char *what, const uint64_t *value)
{
    char detail[256] = "";
    if (value)
        snprintf(detail, sizeof detail, " (value 0x%llx, target 0x%llx, place 0x%llx)%s",
                 (unsigned long long)*value, (unsigned long long)(s->S + (uint64_t)s->A),
                 (unsigned long long)s->P, s->fixed && s->h->formula == F_PCREL
                 ? "; the target is outside the unit: compile with -fPIC so it is reached "
                   "through the GOT" : "");
    return objrt_fail(l->ctx, "%s: section %s+0x%llx: relocation %s (type %u) against '%s': %s%s",
                      s->o->name, objrt_sec_name(s->o, s->target),
                      (unsigned long long)s->r->r_offset, s->h ? s->h->name : "unknown", s->type,
                      objrt_sym_name(s->o, s->sym), what, detail);
}

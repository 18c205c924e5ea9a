/*
 * comdat.c - COMDAT groups deduplicated as ld does.
 *
 * C++ compilers put every template instance and inline function a unit emits in a section
 * group (SHT_GROUP, flag GRP_COMDAT) named by a signature symbol. The first group of a
 * signature that enters the link (objects in the order given, then archive members in the
 * order they are pulled) is kept; every later group of that signature is dropped whole:
 * its sections are not placed, their relocations not applied, and the symbols they define
 * are not definitions (references to them bind to the kept group's). parse.c has checked
 * every group's member indexes.
 *
 * A kept section may still refer to a dropped one: .eh_frame holds the FDE of every
 * function of its object, dropped ones included. As in ld's output, such a reference is
 * written as 0, which libgcc's unwinder reads as a discarded FDE. Any other reference to a
 * local symbol of a dropped section is ld's "defined in discarded section" error.
 */
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "symbols/symbols.h"
#include "symbols/comdat.h"
#include "symbols/lookup.h"

#define SHT_X86_64_UNWIND_TYPE 0x70000001

static int drop_group(objrt_link *l, objrt_obj *o, size_t g)
{
    if (!o->sec_dropped && !(o->sec_dropped = calloc(o->shnum, 1)))
        return objrt_fail(l->ctx, "out of memory");
    const Elf64_Shdr *s = &o->sh[g];
    const uint32_t *w = (const uint32_t *)(o->data + s->sh_offset);
    o->sec_dropped[g] = 1;
    for (size_t k = 1; k < s->sh_size / 4; k++) {
        const Elf64_Shdr *m = &o->sh[w[k]];
        o->sec_dropped[w[k]] = 1;
        if (m->sh_flags & SHF_ALLOC)
            l->comdat_bytes_dropped += m->sh_size;
    }
    l->comdat_groups_dropped++;
    return 0;
}

int objrt_comdat_enter(objrt_link *l, objrt_obj *o)
{
    if (!o->sec_group)                      /* parse found no group */
        return 0;
    for (size_t g = 1; g < o->shnum; g++) {
        const Elf64_Shdr *s = &o->sh[g];
        if (s->sh_type != SHT_GROUP || !(*(const uint32_t *)(o->data + s->sh_offset) & GRP_COMDAT))
            continue;
        /* each group gets its own id, so a second group of one object is a duplicate too */
        uint32_t id = (uint32_t)l->comdat_kept.n;
        objrt_strkey k = objrt_strkey_of(objrt_sym_name(o, s->sh_info));
        uint32_t kept = objrt_strmap_intern(&l->comdat_kept, &k, id);
        if (kept == OBJRT_NONE)
            return objrt_fail(l->ctx, "out of memory");
        if (kept != id && drop_group(l, o, g))
            return -1;
    }
    return 0;
}

static bool is_unwind_table(const objrt_obj *o, size_t i)
{
    return o->sh[i].sh_type == SHT_X86_64_UNWIND_TYPE ||
           strcmp(objrt_sec_name(o, i), ".eh_frame") == 0;
}

int objrt_comdat_dropped_ref_slow(objrt_link *l, const objrt_obj *o, size_t target,
                                  const Elf64_Rela *r)
{
    size_t sym = ELF64_R_SYM(r->r_info);
    if (!l->comdat_groups_dropped || !o->sec_dropped || sym >= o->first_global)
        return 0;                           /* globals bind to the kept definitions */
    uint32_t shndx = objrt_sym_shndx(o, sym);
    if (shndx >= o->shnum || !o->sec_dropped[shndx])
        return 0;
    if (is_unwind_table(o, target))
        return 1;
    return objrt_fail(l->ctx, "%s: section %s+0x%llx: '%s' referenced here is defined in "
                      "section %s, discarded with the duplicate COMDAT group %s (a group of "
                      "that signature was kept earlier)", o->name, objrt_sec_name(o, target),
                      (unsigned long long)r->r_offset, objrt_sym_name(o, sym),
                      objrt_sec_name(o, shndx),
                      objrt_sym_name(o, o->sh[o->sec_group[shndx]].sh_info));
}

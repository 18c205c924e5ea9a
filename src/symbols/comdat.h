/*
 * comdat.h - COMDAT groups deduplicated as ld does (comdat.c): resolve enters each object's
 * groups; plan and relocate ask of every relocation whether it refers to a dropped one
 * (inline up to the test almost every relocation fails, the rest in comdat.c).
 */
#ifndef OBJRT_SYMBOLS_COMDAT_H
#define OBJRT_SYMBOLS_COMDAT_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/link.h"

/* COMDAT groups (comdat.c). resolve: the object's COMDAT groups whose signature an
 * earlier group already has are dropped (o->sec_dropped). */
int objrt_comdat_enter(objrt_link *l, objrt_obj *o);
/* plan and relocate: is relocation r of section `target` against a local symbol of a
 * dropped section? 0 no; 1 yes, in .eh_frame: write 0 (a discarded FDE); -1 an error. */
int objrt_comdat_dropped_ref_slow(objrt_link *l, const objrt_obj *o, size_t target,
                                  const Elf64_Rela *r);
/* Asked of every relocation, twice: inline up to the test almost every one fails (no
 * group dropped in this object, or a global symbol, which binds to the kept definition). */
static inline int objrt_comdat_dropped_ref(objrt_link *l, const objrt_obj *o, size_t target,
                                           const Elf64_Rela *r)
{
    if (!o->sec_dropped || ELF64_R_SYM(r->r_info) >= o->first_global)
        return 0;
    return objrt_comdat_dropped_ref_slow(l, o, target, r);
}
static inline bool objrt_sec_dropped(const objrt_obj *o, size_t shndx)
{
    return o->sec_dropped && shndx < o->shnum && o->sec_dropped[shndx];
}

#endif

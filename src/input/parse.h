/*
 * parse.h - one object's bytes validated into objrt_obj (parse.c), link-time-optimisation
 * inputs refused with what to do (lto.c), and the accessors every later stage uses on a
 * parsed object. Below the reader (input.h), which calls in here and is never called.
 */
#ifndef OBJRT_INPUT_PARSE_H
#define OBJRT_INPUT_PARSE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/link.h"

/* Section index of a symbol, following SHN_XINDEX. Reserved st_shndx values come back as
 * SEC_ABS / SEC_COMMON: once SHN_XINDEX is followed, a real index may be 0xfff1 itself. */
#define SEC_UNDEF  0u
#define SEC_ABS    (0xffff0000u | SHN_ABS)
#define SEC_COMMON (0xffff0000u | SHN_COMMON)
static inline uint32_t objrt_sym_shndx(const objrt_obj *o, size_t symidx)
{
    uint16_t shndx = o->syms[symidx].st_shndx;
    if (shndx == SHN_XINDEX)
        return o->xindex[symidx];
    return shndx >= SHN_LORESERVE ? 0xffff0000u | shndx : shndx;
}

/* Names for messages and reports: bounds-checked by parse, "?" when out of range. */
static inline const char *objrt_sec_name(const objrt_obj *o, size_t shndx)
{
    if (shndx >= o->shnum || !o->shstr || o->sh[shndx].sh_name >= o->shstrsz)
        return "?";
    return o->shstr + o->sh[shndx].sh_name;
}

static inline const char *objrt_sym_name(const objrt_obj *o, size_t symidx)
{
    const Elf64_Sym *s = &o->syms[symidx];
    if (ELF64_ST_TYPE(s->st_info) == STT_SECTION)
        return objrt_sec_name(o, objrt_sym_shndx(o, symidx));
    return o->str + s->st_name;
}

/* One object's bytes (`pulled`: an archive member taken for an undefined symbol): 0 and
 * *out, or -1 with the error recorded on l->ctx. */
int objrt_parse_object(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                       bool pulled, objrt_obj **out);
void objrt_obj_free(objrt_obj *o);
/* lto.c: -flto inputs (IR, no machine code) are refused with what to do instead. */
int objrt_lto_check_bytes(objrt_link *l, const char *name, const uint8_t *d, size_t size);
int objrt_lto_check_object(objrt_link *l, const objrt_obj *o);

#endif

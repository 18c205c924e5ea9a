/*
 * input.h - bytes to objects: files and archives (input.c), TVM export_library tars
 * (tar.c), ELF validated into objrt_obj (parse.c), link-time-optimisation inputs refused
 * with what to do (lto.c), and the accessors every later stage uses on a parsed object.
 */
#ifndef OBJRT_INPUT_H
#define OBJRT_INPUT_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "base/link.h"

/* ---- memory made present ahead of the writes (input.c, place.c, gdbjit.c) ----
 * A fresh page costs a fault each when first written; MADV_POPULATE_WRITE makes a range
 * present in one call (Linux >= 5.14; older kernels refuse the advice and the writes fault
 * as before). From OBJRT_HUGE_BLOCK on, mappings start on such a boundary and their whole
 * blocks are offered to transparent huge pages: one huge page is allocated and cleared in
 * a fraction of the time 512 small ones take. Where huge pages are off the kernel uses
 * small ones: the same bytes, slower. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define OBJRT_HUGE_BLOCK ((uint64_t)2 << 20)
/* Advise the whole OBJRT_HUGE_BLOCK blocks of [base + from, base + to) (none unless base
 * starts a block). */
static inline void objrt_offer_huge(uint8_t *base, uint64_t from, uint64_t to)
{
    uint64_t lo = objrt_align_up(from, OBJRT_HUGE_BLOCK), hi = objrt_page_down(to, OBJRT_HUGE_BLOCK);
    if ((uintptr_t)base % OBJRT_HUGE_BLOCK == 0 && hi > lo)
        madvise(base + lo, hi - lo, MADV_HUGEPAGE);     /* advice: may be refused */
}

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

/* Stage input: each returns 0 or -1 with the error recorded on l->ctx. */
int objrt_input_add_file(objrt_link *l, const char *path);
/* The same for n paths, in order: files are read in batches into shared mappings. */
int objrt_input_add_files(objrt_link *l, const char *const *paths, size_t n);
int objrt_input_add_memory(objrt_link *l, const objrt_input *in);
/* tar.c: TVM's export_library tar. Whether the bytes are one, and each *.o member handed
 * to `add` (named "FILE(member)"): 0, or -1 with the error naming the file and member. */
typedef int (*objrt_member_fn)(objrt_link *l, const char *name, const uint8_t *data,
                               size_t size, void *arg);
bool objrt_input_is_tar(const uint8_t *data, size_t size);
int objrt_input_add_tar(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                        objrt_member_fn add, void *arg);
void objrt_input_release(objrt_link *l);        /* objects and mapped files of the link */
int objrt_parse_object(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                       bool pulled, objrt_obj **out);
void objrt_obj_free(objrt_obj *o);
/* lto.c: -flto inputs (IR, no machine code) are refused with what to do instead. */
int objrt_lto_check_bytes(objrt_link *l, const char *name, const uint8_t *d, size_t size);
int objrt_lto_check_object(objrt_link *l, const objrt_obj *o);

#endif

/*
 * symbols.h - binding: the symbol model every stage asks (symbols.c; its fast paths are
 * the inline functions here, beside the slow paths they fall back on), resolution
 * (resolve.c) and interposition (interpose.c). COMDAT groups are symbols/comdat.h; the
 * places outside the unit a name is looked up in, symbols/lookup.h.
 */
#ifndef OBJRT_SYMBOLS_H
#define OBJRT_SYMBOLS_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/link.h"
#include "input/input.h"

/* The section SEC of __start_SEC / __stop_SEC. */
static inline const char *objrt_special_section(const objrt_gsym *g)
{
    return g->name + (g->special == SP_START ? 8 : 7);
}

/* ---- the symbol model (symbols.c): what every stage asks about a symbol ---- */
/* objrt_sym_intern when the memo missed (memo: the name's memo set or NULL). */
uint32_t objrt_sym_intern_slow(objrt_link *l, const char *name, size_t len, uint32_t obj,
                               uint32_t sym, uint32_t *memo);
/* The global symbol `name` (len bytes), entered as G_UNDEF (first seen in obj, sym) if new;
 * OBJRT_NONE with the error recorded when out of memory. Inline: every global symbol of
 * every object comes here, and most names were entered by an earlier object (the memo). */
static inline uint32_t objrt_sym_intern(objrt_link *l, const char *name, size_t len,
                                        uint32_t obj, uint32_t sym)
{
    uint32_t *memo = objrt_strmemo_set(&l->gmemo, name, len);
    for (int w = 0; memo && w < OBJRT_STRMEMO_WAYS; w++) {
        uint32_t g = memo[w];
        if (g != OBJRT_NONE && l->gsyms[g].len == len &&
            objrt_same_bytes(l->gsyms[g].name, name, len))
            return g;                       /* seen before: no hash */
    }
    return objrt_sym_intern_slow(l, name, len, obj, sym, memo);
}
/* Room for n global symbols without growing (0, or -1 with the error recorded). */
int objrt_sym_reserve(objrt_link *l, size_t n);

/* resolve.c: the demangled form of a C++ name (malloc'd), or NULL when it is not one or no
 * demangler is at hand (abi::__cxa_demangle: the host's, else libstdc++.so.6 opened then).
 * For messages and the crash report's source lines; allocates. */
char *objrt_demangle(const char *name);
/* The global behind symbol `symidx` of o, or NULL for a local symbol. */
static inline objrt_gsym *objrt_sym_global(const objrt_link *l, const objrt_obj *o,
                                           size_t symidx)
{
    return symidx < o->first_global ? NULL : &l->gsyms[o->gsym[symidx - o->first_global]];
}
/* objrt_sym_addr's answer for a global symbol, asked of the global itself (unit.c builds
 * the unit's table from the globals). Always inline: as a second level of inlining it made
 * the compiler take objrt_sym_addr out of line (docs/perf-history.md). */
static inline __attribute__((always_inline)) int
objrt_gsym_addr(const objrt_link *l, const objrt_gsym *g, uint64_t *addr, bool *fixed)
{
    *fixed = g->state == G_EXTERNAL || (g->state == G_DEF && !g->placed);
    if (*fixed) {
        if (g->state == G_DEF && objrt_sym_shndx(l->objs[g->obj], g->sym) != SEC_ABS)
            return -1;                      /* defined in a section that is not loaded */
        *addr = g->state == G_DEF ? l->objs[g->obj]->syms[g->sym].st_value : g->addr;
        return 0;
    }
    *addr = (uint64_t)(uintptr_t)l->base + g->off;
    return 0;
}
/* Address of a symbol: absolute when *fixed is set (host, ABS, undefined weak), else
 * base + offset, so with base 0 (before placement) it is the offset in the reservation.
 * Returns -1 when the symbol lies in a section that is not part of the image.
 * Inline: relocate asks it of every relocation. */
static inline int objrt_sym_addr(const objrt_link *l, const objrt_obj *o, size_t symidx,
                                 uint64_t *addr, bool *fixed)
{
    const objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (!g) {                               /* local: its section's address */
        uint32_t shndx = objrt_sym_shndx(o, symidx);
        *fixed = shndx == SEC_ABS || shndx == SEC_UNDEF;
        if (*fixed) {
            *addr = shndx == SEC_ABS ? o->syms[symidx].st_value : 0;
            return 0;
        }
        if (shndx >= o->shnum || !o->sec_placed || !o->sec_placed[shndx])
            return -1;
        *addr = (uint64_t)(uintptr_t)l->base + o->sec_off[shndx] + o->syms[symidx].st_value;
        return 0;
    }
    return objrt_gsym_addr(l, g, addr, fixed);
}
/* The same "fixed" answer as objrt_sym_addr, without computing the address. Inline, as
 * objrt_sym_is_placed: the plan asks both of every relocation. */
static inline bool objrt_sym_is_fixed(const objrt_link *l, const objrt_obj *o, size_t symidx)
{
    const objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (!g) {
        uint32_t shndx = objrt_sym_shndx(o, symidx);
        return shndx == SEC_ABS || shndx == SEC_UNDEF;
    }
    if (g->state == G_DEF)
        return objrt_sym_shndx(l->objs[g->obj], g->sym) == SEC_ABS;
    return g->state == G_EXTERNAL;
}
/* Can a relocation of the image refer to it? Not when it lies in a section that is not
 * part of the image (debug info, a discarded group). Asked before offsets are published. */
static inline bool objrt_sym_is_placed(const objrt_link *l, const objrt_obj *o, size_t symidx)
{
    const objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (g) {
        if (g->state != G_DEF)
            return true;
        o = l->objs[g->obj];
        symidx = g->sym;
    }
    uint32_t shndx = objrt_sym_shndx(o, symidx);
    return shndx == SEC_ABS || shndx == SEC_UNDEF || shndx == SEC_COMMON ||
           (shndx < o->shnum && o->sec_placed && o->sec_placed[shndx]);
}
/* Both answers at once, for the plan's walk over every relocation: is_placed, returned,
 * and is_fixed, in *fixed. */
static inline bool objrt_sym_placed_fixed(const objrt_link *l, const objrt_obj *o,
                                          size_t symidx, bool *fixed)
{
    const objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (g && g->state != G_DEF) {
        *fixed = g->state == G_EXTERNAL;
        return true;
    }
    if (g) {
        o = l->objs[g->obj];
        symidx = g->sym;
    }
    uint32_t shndx = objrt_sym_shndx(o, symidx);
    *fixed = shndx == SEC_ABS || (!g && shndx == SEC_UNDEF);
    return shndx == SEC_ABS || shndx == SEC_UNDEF || shndx == SEC_COMMON ||
           (shndx < o->shnum && o->sec_placed && o->sec_placed[shndx]);
}
/* The answers above, kept per symbol of every pulled object (o->symf, o->symv) so that
 * the walks over relocations (plan.c, relocate.c) ask once per symbol and then read a
 * byte, instead of following symbol, global and section tables at every relocation.
 * objrt_sym_answers_new: the storage, every answer unknown (plan). Then, on first use:
 * objrt_sym_answer_placed (plan) and, once the base is known, objrt_sym_answer_addr
 * (relocate); each returns the symbol's flags. */
enum {
    SF_KNOWN = 1,               /* SF_PLACED and SF_FIXED hold objrt_sym_placed_fixed's */
    SF_PLACED = 2,
    SF_FIXED = 4,               /* from SF_VKNOWN on: objrt_sym_addr's *fixed */
    SF_VKNOWN = 8,              /* SF_ADDR holds whether objrt_sym_addr succeeded */
    SF_ADDR = 16,               /* ... and o->symv its address */
    SF_GOT = 32,                /* plan.c: a GOT slot with slot addend 0 is reserved */
    SF_STUB = 64,               /* plan.c: a stub (and its slot) with slot addend 0 too */
};
int objrt_sym_answers_new(objrt_link *l);
uint8_t objrt_sym_answer_placed(objrt_link *l, const objrt_obj *o, size_t symidx);
uint8_t objrt_sym_answer_addr(objrt_link *l, const objrt_obj *o, size_t symidx);
/* The symbol's flags with SF_KNOWN (resp. SF_VKNOWN) answered: asked on first use only. */
static inline uint8_t objrt_sym_flags_placed(objrt_link *l, const objrt_obj *o, size_t symidx)
{
    uint8_t f = o->symf[symidx];
    return f & SF_KNOWN ? f : objrt_sym_answer_placed(l, o, symidx);
}
static inline uint8_t objrt_sym_flags_addr(objrt_link *l, const objrt_obj *o, size_t symidx)
{
    uint8_t f = o->symf[symidx];
    return f & SF_VKNOWN ? f : objrt_sym_answer_addr(l, o, symidx);
}
/* Is the symbol bound to a function outside the unit? Such a target may be given a stub
 * in the unit to serve as its address for references that cannot reach it. */
bool objrt_sym_is_host_function(objrt_link *l, const objrt_obj *o, size_t symidx);
/* The identity of a GOT slot or stub target, and the address it stands for. */
objrt_slotkey objrt_sym_key(const objrt_obj *o, size_t symidx, int64_t addend);
uint64_t objrt_sym_key_addr(const objrt_link *l, objrt_slotkey k);
/* A global symbol's name as a map key: its hash was made when it was entered. */
static inline objrt_strkey objrt_gsym_key(const objrt_gsym *g)
{
    return g->key;
}

int objrt_resolve(objrt_link *l);
int objrt_interpose(objrt_link *l);

#endif

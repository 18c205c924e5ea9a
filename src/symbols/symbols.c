/*
 * symbols.c - the symbol model every stage shares: the unit's global symbol table, what a
 * symbol's address is and what kind of target it is, and the identity of a GOT slot or
 * stub target (names outside the unit are host.c's).
 *
 * The stages ask; only resolve.c decides what a global symbol is bound to, and only
 * plan.c says where the unit's own definitions go.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"
#include "symbols/lookup.h"

/* ---- the global symbol table of the unit being linked ---- */

int objrt_sym_reserve(objrt_link *l, size_t n)
{
    if (n > l->capgsyms) {
        objrt_gsym *v = objrt_grow(l->ctx, l->gsyms, &l->capgsyms, n, sizeof *v, 256);
        if (!v)
            return -1;
        l->gsyms = v;
    }
    /* the memo at twice the table's estimate: at 1x a set whose names are mostly new (the
     * JIT set) misses it for many of its repeats; 4x costs the larger sets more in
     * clearing it than it saves */
    if (objrt_strindex_reserve(&l->gmap, n) || objrt_strmemo_init(&l->gmemo, 2 * n))
        return objrt_fail(l->ctx, "out of memory");
    return 0;
}

uint32_t objrt_sym_intern_slow(objrt_link *l, const char *name, size_t len, uint32_t obj,
                               uint32_t sym, uint32_t *memo)
{
    if (l->ngsyms == l->capgsyms && objrt_sym_reserve(l, l->ngsyms + 1))
        return OBJRT_NONE;                  /* once per doubling */
    objrt_strkey k = objrt_strkey_len(name, len);
    uint32_t g = objrt_strindex_intern(&l->gmap, l->gsyms, sizeof *l->gsyms, &k,
                                       (uint32_t)l->ngsyms);
    if (memo && g != OBJRT_NONE)
        objrt_strmemo_put(memo, g);
    if (g == l->ngsyms)
        l->gsyms[l->ngsyms++] = (objrt_gsym){ .key = k, .obj = obj, .sym = sym,
                                              .state = G_UNDEF };
    else if (g == OBJRT_NONE)
        objrt_fail(l->ctx, "out of memory");
    return g;
}

/* ---- addresses: objrt_sym_addr is inline in internal.h ---- */

/* ---- predicates (is_fixed and is_placed, asked of every relocation, are inline in
 * internal.h) ---- */

bool objrt_sym_is_host_function(objrt_link *l, const objrt_obj *o, size_t symidx)
{
    objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (!g || g->state != G_EXTERNAL)
        return false;
    if (g->host_func < 0)
        g->host_func = objrt_host_is_code(l->ctx, &g->key, g->addr);
    return g->host_func;
}

/* ---- the per-symbol answers of the walks over relocations ---- */

/* One block for every pulled object's answers, 9 bytes a symbol (the inputs hold 24 for
 * it): the flags zeroed, so that every answer starts unknown and is asked once, when a
 * relocation first names its symbol (most symbols of an object are never named). The
 * addresses are left as they are: one is read only after SF_ADDR says it was written,
 * and zeroing 8 bytes a symbol costs libcrypto's link ~0.8 MB of stores. */
int objrt_sym_answers_new(objrt_link *l)
{
    size_t total = 0, bytes;
    for (size_t m = 0; m < l->nobjs; m++)
        if (l->objs[m]->pulled && __builtin_add_overflow(total, l->objs[m]->nsyms, &total))
            return objrt_fail(l->ctx, "out of memory");
    if (__builtin_mul_overflow(total, sizeof(uint64_t) + 1, &bytes) ||
        !(l->symmem = malloc(bytes ? bytes : 1)))
        return objrt_fail(l->ctx, "out of memory");
    uint64_t *v = l->symmem;
    uint8_t *f = (uint8_t *)(v + total);
    memset(f, 0, total);
    for (size_t m = 0; m < l->nobjs; m++) {
        objrt_obj *o = l->objs[m];
        if (!o->pulled)
            continue;
        o->symv = v;
        o->symf = f;
        v += o->nsyms;
        f += o->nsyms;
    }
    return 0;
}

/* A global's answer is asked by every object that names it: the first asks through the
 * defining object's tables (misses in three of them), the others read it off the global. */
uint8_t objrt_sym_answer_placed(objrt_link *l, const objrt_obj *o, size_t symidx)
{
    objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (g && g->answer)
        return o->symf[symidx] |= g->answer;
    bool fixed;
    bool placed = objrt_sym_placed_fixed(l, o, symidx, &fixed);
    uint8_t f = (uint8_t)(SF_KNOWN | (placed ? SF_PLACED : 0) | (fixed ? SF_FIXED : 0));
    if (g)
        g->answer = f;
    return o->symf[symidx] |= f;
}

uint8_t objrt_sym_answer_addr(objrt_link *l, const objrt_obj *o, size_t symidx)
{
    bool fixed = false;
    uint8_t f = o->symf[symidx] & (uint8_t)~(SF_FIXED | SF_ADDR);
    o->symv[symidx] = 0;
    if (objrt_sym_addr(l, o, symidx, &o->symv[symidx], &fixed) == 0)
        f |= (uint8_t)(SF_ADDR | (fixed ? SF_FIXED : 0));
    return o->symf[symidx] = f | SF_VKNOWN;
}

/* ---- GOT slot and stub targets ---- */

objrt_slotkey objrt_sym_key(const objrt_obj *o, size_t symidx, int64_t addend)
{
    if (symidx >= o->first_global)
        return (objrt_slotkey){ (1ull << 63) | o->gsym[symidx - o->first_global], addend };
    return (objrt_slotkey){ ((uint64_t)o->index << 32) | symidx, addend };
}

uint64_t objrt_sym_key_addr(const objrt_link *l, objrt_slotkey k)
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

/*
 * interpose.c - with objrt_options.earlier_wins, a weak or common definition in the unit
 * being linked yields to a definition of the same name already in the context (an earlier
 * unit or objrt_define()). That is how MCJIT/RuntimeDyld and the dynamic linker's global
 * scope treat a JIT session: the first definition of an inline function or of a tentative
 * global is the one every later module uses, so state kept in such a global (numba's
 * environment pointers) is shared instead of silently duplicated.
 */
#include "symbols/symbols.h"
#include "symbols/lookup.h"

/* Runs after resolve (every symbol bound), before the plan allocates commons. */
int objrt_interpose(objrt_link *l)
{
    if (!l->ctx->opt.earlier_wins)
        return 0;
    for (size_t g = 0; g < l->ngsyms; g++) {
        objrt_gsym *s = &l->gsyms[g];
        if (!(s->state == G_COMMON || (s->state == G_DEF && s->bind == STB_WEAK)))
            continue;
        objrt_strkey k = objrt_gsym_key(s);
        void *p = objrt_sym_loaded(l->ctx, &k);         /* what objrt_sym() would find */
        if (!p)
            continue;
        s->state = G_EXTERNAL;
        s->host_func = -1;
        s->addr = (uint64_t)(uintptr_t)p;
    }
    return 0;
}

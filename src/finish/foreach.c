/* foreach.c - objrt_unit_foreach_sym: walk the table objrt_unit_sym() searches. */
#include "finish/finish.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"
#include "debug/unitinfo.h"

int objrt_unit_foreach_sym(objrt_unit *u, objrt_sym_visitor fn, void *data)
{
    objrt_ctx *ctx = fn ? objrt_unit_begin(u) : NULL;
    if (!ctx)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < u->syms.n && rc == 0; i++) {
        const objrt_strent *e = &u->syms.ents[i];
        rc = fn(data, e->key.s, (void *)(uintptr_t)u->addrs[e->val]);
    }
    objrt_ctx_end(ctx);
    return rc;
}

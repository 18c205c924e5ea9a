/* foreach.c - objrt_unit_foreach_sym: walk the table objrt_unit_sym() searches. */
#include "loader/internal.h"

int objrt_unit_foreach_sym(objrt_unit *u, objrt_sym_visitor fn, void *data)
{
    if (!u || !fn)
        return -1;
    int rc = 0;
    pthread_mutex_lock(&u->ctx->lock);
    for (size_t i = 0; i < u->syms.cap && rc == 0; i++)
        if (u->syms.keys && u->syms.keys[i])
            rc = fn(data, u->syms.keys[i], (void *)(uintptr_t)u->addrs[u->syms.vals[i]]);
    pthread_mutex_unlock(&u->ctx->lock);
    return rc;
}

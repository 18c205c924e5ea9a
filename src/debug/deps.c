/*
 * deps.c - which earlier units a unit is bound to, so objrt_unload() never unmaps code or
 * data that a later unit still calls or reads. Dependencies come from link-time bindings
 * only: a symbol the unit left undefined whose address lies inside another unit of the
 * context (found there by the lookup, or given to objrt_define() pointing into it).
 */
#include <stdlib.h>
#include <string.h>

#include "debug/unitinfo.h"

int objrt_deps_collect(objrt_link *l, objrt_unitinfo *ui)
{
    if (!objrt_registry_next(l->ctx, NULL))
        return 0;                       /* the context's only unit: bound to none */
    for (size_t g = 0; g < l->ngsyms; g++) {
        const objrt_gsym *s = &l->gsyms[g];
        objrt_unit *dep = s->state == G_EXTERNAL && s->addr ? objrt_index_holding(l->ctx, s->addr) : NULL;
        if (!dep || !dep->info)
            continue;
        size_t i = 0;
        while (i < ui->ndeps && ui->deps[i].unit != dep)
            i++;
        if (i < ui->ndeps)
            continue;
        objrt_info_dep *v = realloc(ui->deps, (ui->ndeps + 1) * sizeof *v);
        char *name = v ? strdup(s->name) : NULL;   /* the link's names go with the link */
        if (v)
            ui->deps = v;
        if (!name)
            return objrt_fail(l->ctx, "out of memory");
        v[ui->ndeps++] = (objrt_info_dep){ dep, name };
        dep->ndependants++;             /* until this unit's info goes (unitinfo.c) */
    }
    return 0;
}

/* The unit's name as objrt_unit_name() gives it (read here: unitinfo.c calls into us). */
static const char *name_of(const objrt_unit *u) { return u->info ? u->info->name : "?"; }

static const objrt_info_dep *bound_to(const objrt_unit *by, const objrt_unit *u)
{
    for (size_t i = 0; by->info && i < by->info->ndeps; i++)
        if (by->info->deps[i].unit == u)
            return &by->info->deps[i];
    return NULL;
}

size_t objrt_unit_dependants(objrt_unit *u)
{
    objrt_ctx *ctx = objrt_unit_begin(u);
    if (!ctx)
        return 0;
    size_t n = u->ndependants;
    objrt_ctx_end(ctx);
    return n;
}

int objrt_deps_check_unload(objrt_unit *u)
{
    if (!u->ndependants)
        return 0;                       /* the walk below only names the dependant */
    for (const objrt_unit *v = objrt_registry_next(u->ctx, NULL); v;
         v = objrt_registry_next(u->ctx, v)) {
        const objrt_info_dep *d = v != u ? bound_to(v, u) : NULL;
        if (d)
            return objrt_fail(u->ctx, "cannot unload %s: %s is bound to it ('%s'); unload %s first",
                              name_of(u), name_of(v), d->symbol, name_of(v));
    }
    return 0;
}

/*
 * unitindex.c - a context's indexes over its loaded units, so that a load or an unload
 * costs the same whatever the number of units already loaded (issue 27, item 8):
 *   - names: every global definition of every unit, by name, the newest unit's first
 *     (what a walk of the units newest first finds: objrt_units_lookup);
 *   - addresses: the ranges the units hold (objrt_unit_holds), in a balanced tree
 *     (tsearch), for "which unit holds this address" (deps.c's bindings between units).
 *     A sorted array here cost a memmove of every range after the new one at each load
 *     and unload: linear in the units, 3 ranges a packed unit (issue 40, item 8).
 * Both change only in objrt_registry_add/remove and lookups, with the context's lock held.
 *
 * A name's definitions: the newest unit's node sits in its bucket's chain; the older ones
 * hang from it (`shadow`), newest first. Each node knows the pointer that points to it
 * (`pprev`), so a unit's nodes leave in O(1) each, whichever unit goes.
 */
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "base/context.h"

struct objrt_namedef {
    objrt_namedef *next;        /* the bucket's chain (only a name's newest definition) */
    objrt_namedef *shadow;      /* the same name's older definition, or NULL */
    objrt_namedef **pprev;      /* the pointer that points to this node */
    const objrt_unit *unit;
    uint32_t ent;               /* index into unit->syms.ents */
    bool chained;               /* in a bucket's chain (else in a shadow list) */
};

static const objrt_strkey *key_of(const objrt_namedef *d) { return &d->unit->syms.ents[d->ent].key; }

static bool same_key(const objrt_strkey *a, const objrt_strkey *b)
{
    return a->hash == b->hash && a->len == b->len && objrt_same_bytes(a->s, b->s, a->len);
}

static void chain_push(objrt_namedef **slot, objrt_namedef *d)
{
    d->next = *slot;
    if (d->next)
        d->next->pprev = &d->next;
    d->pprev = slot;
    *slot = d;
    d->chained = true;
}

static int names_grow(objrt_ctx *ctx)
{
    size_t cap = ctx->name_cap ? ctx->name_cap * 2 : 256;
    objrt_namedef **b = calloc(cap, sizeof *b);
    if (!b)
        return -1;
    for (size_t i = 0; i < ctx->name_cap; i++)
        for (objrt_namedef *d = ctx->name_buckets[i], *next; d; d = next) {
            next = d->next;
            chain_push(&b[key_of(d)->hash & (cap - 1)], d);
        }
    free(ctx->name_buckets);
    ctx->name_buckets = b;
    ctx->name_cap = cap;
    return 0;
}

static objrt_namedef *chain_find(const objrt_ctx *ctx, const objrt_strkey *key)
{
    if (!ctx->name_cap)
        return NULL;
    objrt_namedef *d = ctx->name_buckets[key->hash & (ctx->name_cap - 1)];
    while (d && !same_key(key_of(d), key))
        d = d->next;
    return d;
}

static void name_add(objrt_ctx *ctx, objrt_namedef *d)
{
    objrt_namedef *old = chain_find(ctx, key_of(d));
    if (!old) {
        chain_push(&ctx->name_buckets[key_of(d)->hash & (ctx->name_cap - 1)], d);
        ctx->name_count++;
        return;
    }
    /* d takes old's place in the chain; old becomes the first of d's shadows */
    d->next = old->next;
    if (d->next)
        d->next->pprev = &d->next;
    d->pprev = old->pprev;
    *d->pprev = d;
    d->chained = true;
    d->shadow = old;
    old->pprev = &d->shadow;
    old->chained = false;
    old->next = NULL;
}

static void name_remove(objrt_ctx *ctx, objrt_namedef *d)
{
    objrt_namedef *s = d->shadow;
    if (!d->chained) {                  /* an older definition: out of the shadow list */
        *d->pprev = s;
        if (s)
            s->pprev = d->pprev;
        return;
    }
    if (s) {                            /* the next older definition takes d's place */
        s->next = d->next;
        if (s->next)
            s->next->pprev = &s->next;
        s->pprev = d->pprev;
        *s->pprev = s;
        s->chained = true;
        return;
    }
    *d->pprev = d->next;
    if (d->next)
        d->next->pprev = d->pprev;
    ctx->name_count--;
}

/* Enters u's names (u newer than every unit already in): 0, or -1 when out of memory. */
static int names_enter(objrt_ctx *ctx, objrt_unit *u)
{
    size_t n = u->syms.n;
    if (!n)
        return 0;
    while (ctx->name_count + n > ctx->name_cap / 2)      /* at most half full */
        if (names_grow(ctx))
            return -1;
    if (!(u->namedefs = malloc(n * sizeof *u->namedefs)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        u->namedefs[i] = (objrt_namedef){ .unit = u, .ent = (uint32_t)i };
        name_add(ctx, &u->namedefs[i]);
    }
    return 0;
}

/* The names of units loaded since the last lookup go in at the next one (oldest first),
 * so that a context's first unit, or a unit loaded and unloaded before anything is looked
 * up, costs its load nothing here. Out of memory, they stay pending: the lookup asks
 * them first (they are newer than every unit in the index). */
void *objrt_index_lookup(objrt_ctx *ctx, const objrt_strkey *key)
{
    size_t done = 0;
    while (done < ctx->npending && names_enter(ctx, ctx->pending[done]) == 0)
        done++;
    if (done) {
        memmove(ctx->pending, ctx->pending + done, (ctx->npending - done) * sizeof *ctx->pending);
        ctx->npending -= done;
    }
    for (size_t i = ctx->npending; i-- > 0;) {
        const objrt_unit *u = ctx->pending[i];
        uint32_t e = objrt_strmap_find(&u->syms, key);
        if (e != OBJRT_NONE)
            return (void *)(uintptr_t)u->addrs[e];
    }
    const objrt_namedef *d = chain_find(ctx, key);
    return d ? (void *)(uintptr_t)d->unit->addrs[d->unit->syms.ents[d->ent].val] : NULL;
}

/* ---- addresses ---- */

/* Two ranges compare equal when they overlap. The ranges in the tree never do (a
 * reservation, or a packed unit's own chunks), so among them this is a total order, and a
 * one-byte range at addr finds the one range that holds addr. */
static int range_cmp(const void *a, const void *b)
{
    const objrt_range *x = a, *y = b;
    return x->lo + x->size <= y->lo ? -1 : y->lo + y->size <= x->lo ? 1 : 0;
}

/* u's ranges: its reservation, or each of its chunks (size 0: none). */
static void ranges_of(objrt_unit *u, objrt_range r[GRP_COUNT])
{
    for (int g = 0; g < GRP_COUNT; g++)
        r[g] = (objrt_range){ 0, 0, u };
    if (!u->packed)
        r[0] = (objrt_range){ (uintptr_t)u->base, u->size, u };
    for (int g = 0; u->packed && g < GRP_COUNT; g++)
        r[g] = (objrt_range){ u->chunks[g].addr, u->chunks[g].size, u };
}

/* u's ranges out of the tree: those of size 0 never went in. u's extent is what it was
 * at objrt_index_add: it is released (protect.c) only after objrt_registry_remove. */
static void ranges_remove(objrt_ctx *ctx, objrt_unit *u)
{
    for (int g = 0; g < GRP_COUNT; g++)
        if (u->ranges[g].size) {
            tdelete(&u->ranges[g], &ctx->range_tree, range_cmp);
            u->ranges[g].size = 0;
        }
}

/* A range that meets another unit's (which a correct plan never makes) stays out, its
 * size set to 0, rather than hide that unit's. */
static int ranges_enter(objrt_ctx *ctx, objrt_unit *u)
{
    ranges_of(u, u->ranges);
    for (int g = 0; g < GRP_COUNT; g++) {
        objrt_range *r = &u->ranges[g];
        objrt_range **in = r->size ? tsearch(r, &ctx->range_tree, range_cmp) : &r;
        if (!in) {                              /* out of memory: none of u's stays */
            for (int h = g; h < GRP_COUNT; h++)
                u->ranges[h].size = 0;
            ranges_remove(ctx, u);
            return -1;
        }
        if (*in != r)
            r->size = 0;
    }
    return 0;
}

static void range_keep(void *r) { (void)r; }    /* a unit's ranges are the unit's */

objrt_unit *objrt_index_holding(const objrt_ctx *ctx, uint64_t addr)
{
    const objrt_range at = { addr, 1, NULL };
    void *node = tfind(&at, &ctx->range_tree, range_cmp);
    return node ? (*(objrt_range **)node)->unit : NULL;
}

/* ---- both, as a unit comes and goes ---- */

int objrt_index_add(objrt_unit *u)
{
    objrt_ctx *ctx = u->ctx;
    u->namedefs = NULL;
    if (ctx->npending == ctx->cappending) {
        size_t cap = ctx->cappending ? ctx->cappending * 2 : 4;
        objrt_unit **v = realloc(ctx->pending, cap * sizeof *v);
        if (!v)
            return -1;
        ctx->pending = v;
        ctx->cappending = cap;
    }
    if (ranges_enter(ctx, u))
        return -1;
    ctx->pending[ctx->npending++] = u;
    return 0;
}

void objrt_index_remove(objrt_unit *u)
{
    objrt_ctx *ctx = u->ctx;
    for (size_t i = ctx->npending; i-- > 0;)
        if (ctx->pending[i] == u) {
            memmove(&ctx->pending[i], &ctx->pending[i + 1],
                    (ctx->npending - i - 1) * sizeof *ctx->pending);
            ctx->npending--;
            break;
        }
    for (size_t i = 0; u->namedefs && i < u->syms.n; i++)
        name_remove(u->ctx, &u->namedefs[i]);
    free(u->namedefs);
    u->namedefs = NULL;
    ranges_remove(u->ctx, u);
}

void objrt_index_free(objrt_ctx *ctx)
{
    free(ctx->name_buckets);
    tdestroy(ctx->range_tree, range_keep);
    ctx->range_tree = NULL;
    free(ctx->pending);
}

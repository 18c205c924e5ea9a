/*
 * unit.c - what remains of a load: the unit's symbol table (names copied, since inputs
 * may go away), lookups across units, and binding names outside the unit.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal.h"
#include "rt_hooks.h"

void *objrt_builtin_lookup(const char *name);

/* Copies the names of the unit's global definitions into one pool. Local symbols are
 * not indexed: they are private to their object. */
int objrt_unit_index_symbols(objrt_link *l, objrt_unit *u)
{
    size_t bytes = 0, count = 0;
    for (size_t g = 0; g < l->ngsyms; g++)
        if (l->gsyms[g].state == G_DEF || l->gsyms[g].state == G_COMMON) {
            bytes += strlen(l->gsyms[g].name) + 1;
            count++;
        }
    u->names = malloc(bytes ? bytes : 1);
    u->addrs = malloc((count ? count : 1) * sizeof *u->addrs);
    if (!u->names || !u->addrs)
        return objrt_fail(l->ctx, "out of memory");
    char *w = u->names;
    uint32_t n = 0;
    for (size_t g = 0; g < l->ngsyms; g++) {
        const objrt_gsym *s = &l->gsyms[g];
        uint64_t addr;
        bool fixed;
        if ((s->state != G_DEF && s->state != G_COMMON) ||
            objrt_sym_addr(l, l->objs[s->obj], s->sym, &addr, &fixed))
            continue;
        size_t len = strlen(s->name) + 1;
        memcpy(w, s->name, len);
        u->addrs[n] = addr;
        if (objrt_strmap_put_hashed(&u->syms, w, s->hash, n++))
            return objrt_fail(l->ctx, "out of memory");
        w += len;
    }
    return 0;
}

static void *unit_lookup(const objrt_unit *u, const char *name)
{
    uint32_t i = objrt_strmap_get(&u->syms, name);
    return i == OBJRT_NONE ? NULL : (void *)(uintptr_t)u->addrs[i];
}

void *objrt_unit_sym(objrt_unit *u, const char *name)
{
    if (!u || !name)
        return NULL;
    pthread_mutex_lock(&u->ctx->lock);
    void *p = unit_lookup(u, name);
    pthread_mutex_unlock(&u->ctx->lock);
    return p;
}

static void *defined_lookup(objrt_ctx *ctx, const char *name)
{
    uint32_t i = objrt_strmap_get(&ctx->defined, name);
    return i == OBJRT_NONE ? NULL : ctx->defined_addr[i];
}

static void *units_lookup(objrt_ctx *ctx, const char *name)
{
    for (objrt_unit *u = ctx->units; u; u = u->next) {
        void *p = unit_lookup(u, name);
        if (p)
            return p;
    }
    return NULL;
}

static void *libgcc_s;
static void open_libgcc_s(void) { libgcc_s = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL); }

/* Last resort: the compiler's support library, which `cc` links implicitly and which the
 * host may not have loaded (AArch64 long double arithmetic calls __addtf3 and friends). */
static void *compiler_support_lookup(const char *name)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, open_libgcc_s);
    return libgcc_s ? dlsym(libgcc_s, name) : NULL;
}

/* The resolution order outside the unit (called with ctx->lock held). */
void *objrt_lookup_external(objrt_ctx *ctx, const char *name)
{
    void *p;
    if ((p = units_lookup(ctx, name)) || (p = defined_lookup(ctx, name)) ||
        (p = objrt_builtin_lookup(name)) || (p = objrt_rt_lookup(name)) ||
        (p = dlsym(RTLD_DEFAULT, name)))
        return p;
    for (size_t i = 0; i < ctx->nlibs; i++)
        if ((p = dlsym(ctx->libs[i], name)))
            return p;
    return compiler_support_lookup(name);
}

void *objrt_sym(objrt_ctx *ctx, const char *name)
{
    if (!ctx || !name)
        return NULL;
    pthread_mutex_lock(&ctx->lock);
    void *p = units_lookup(ctx, name);
    if (!p)
        p = defined_lookup(ctx, name);
    pthread_mutex_unlock(&ctx->lock);
    return p;
}

int objrt_unit_stats(const objrt_unit *u, objrt_stats *out)
{
    if (!u || !out)
        return -1;
    *out = u->stats;
    return 0;
}

/*
 * unit.c - what remains of a load: the unit's symbol table (names copied, since inputs
 * may go away), lookups across units, and binding names outside the unit.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal.h"
#include "rt_hooks.h"

void *objrt_builtin_lookup(const char *name);

/* How many bytes the loader itself may touch at a unit symbol: its own st_size, cut at the
 * end of its section (parse guarantees st_value <= sh_size). A symbol without a size gets
 * none: the loader never guesses where an object ends. */
static uint64_t symbol_room(const objrt_link *l, const objrt_gsym *s)
{
    if (s->state == G_COMMON)
        return s->common_size;
    const objrt_obj *o = l->objs[s->obj];
    const Elf64_Sym *y = &o->syms[s->sym];
    uint64_t in_section = o->sh[objrt_sym_shndx(o, s->sym)].sh_size - y->st_value;
    return y->st_size < in_section ? y->st_size : in_section;
}

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
    u->room = malloc((count ? count : 1) * sizeof *u->room);
    if (!u->names || !u->addrs || !u->room)
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
        u->room[n] = fixed ? 0 : symbol_room(l, s);
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
    if (!p)
        objrt_fail(u->ctx, "undefined symbol: %s", name);
    pthread_mutex_unlock(&u->ctx->lock);
    return p;
}

/* Bytes from addr to the end of the permission group of the unit holding it (0: none). */
size_t objrt_unit_room(const objrt_unit *u, const void *addr, bool writable)
{
    uintptr_t a = (uintptr_t)addr, base = (uintptr_t)u->base;
    for (int g = writable ? GRP_RW : 0; g < GRP_COUNT; g++) {
        uintptr_t lo = base + u->group_off[g], hi = lo + u->group_size[g];
        if (a >= lo && a < hi)
            return hi - a;
    }
    return 0;
}

static int slot_locked(objrt_unit *u, const char *name, size_t size, bool writable, void **out,
                       size_t *room, char *err, size_t errlen)
{
    uint32_t i = objrt_strmap_get(&u->syms, name);
    if (i == OBJRT_NONE)
        return 0;
    void *p = (void *)(uintptr_t)u->addrs[i];
    const char *why = u->room[i] == 0 ? "absolute, outside the unit or without a size"
                    : u->room[i] < size ? "smaller, or too near the end of its section"
                    : objrt_unit_room(u, p, writable) < size ? "in a read-only section" : NULL;
    if (why) {
        snprintf(err, errlen, "'%s' must be a %s object of %zu bytes inside the unit's own "
                 "sections (it is %s)", name, writable ? "writable" : "readable", size, why);
        return -1;
    }
    *out = p;
    if (room)
        *room = u->room[i];
    return 1;
}

int objrt_unit_slot(objrt_unit *u, const char *name, size_t size, bool writable, void **out,
                    size_t *room, char *err, size_t errlen)
{
    *out = NULL;
    pthread_mutex_lock(&u->ctx->lock);
    int rc = slot_locked(u, name, size, writable, out, room, err, errlen);
    pthread_mutex_unlock(&u->ctx->lock);
    return rc;
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
    if (ctx->resolver && (p = ctx->resolver(ctx->resolver_data, name)))
        return p;
    return compiler_support_lookup(name);
}

int objrt_set_resolver(objrt_ctx *ctx, objrt_resolver fn, void *data)
{
    if (!ctx)
        return -1;
    pthread_mutex_lock(&ctx->lock);
    ctx->resolver = fn;
    ctx->resolver_data = data;
    pthread_mutex_unlock(&ctx->lock);
    return 0;
}

void *objrt_sym(objrt_ctx *ctx, const char *name)
{
    if (!ctx || !name)
        return NULL;
    pthread_mutex_lock(&ctx->lock);
    void *p = units_lookup(ctx, name);
    if (!p)
        p = defined_lookup(ctx, name);
    if (!p)
        objrt_fail(ctx, "undefined symbol: %s", name);
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

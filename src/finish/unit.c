/*
 * unit.c - what remains of a load: the unit's symbol table (names copied, since inputs
 * may go away) and the checked ways into it (objrt_unit_sym, objrt_unit_slot,
 * objrt_unit_extent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "finish/finish.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"
#include "debug/unitinfo.h"
#include "finish/unit.h"

static bool in_table(const objrt_gsym *s) { return s->state == G_DEF || s->state == G_COMMON; }

/* Copies the names of the unit's global definitions into one pool. Local symbols are
 * not indexed: they are private to their object. Global names are unique, and each comes
 * with the hash it was entered with. */
static int index_symbols(objrt_link *l, objrt_unit *u)
{
    size_t bytes = 0, count = 0;
    for (size_t g = 0; g < l->ngsyms; g++)
        if (in_table(&l->gsyms[g])) {
            bytes += l->gsyms[g].len + 1;
            count++;
        }
    u->names = malloc(bytes ? bytes : 1);
    u->addrs = malloc((count ? count : 1) * sizeof *u->addrs);
    u->extent = malloc((count ? count : 1) * sizeof *u->extent);
    u->type = malloc(count ? count : 1);
    if (!u->names || !u->addrs || !u->extent || !u->type || objrt_strmap_reserve(&u->syms, count))
        return objrt_fail(l->ctx, "out of memory");
    char *w = u->names;
    uint32_t n = 0;
    for (size_t g = 0; g < l->ngsyms; g++) {
        const objrt_gsym *s = &l->gsyms[g];
        uint64_t addr;
        bool fixed;
        if (!in_table(s) || objrt_gsym_addr(l, s, &addr, &fixed))  /* not via its object */
            continue;
        memcpy(w, s->name, s->len + 1);
        u->addrs[n] = addr;
        u->extent[n] = fixed ? 0 : s->size;  /* resolve.c: st_size within its section */
        u->type[n] = s->state == G_COMMON ? STT_OBJECT
                   : ELF64_ST_TYPE(l->objs[s->obj]->syms[s->sym].st_info);
        if (objrt_strmap_add_new(&u->syms, &(objrt_strkey){ w, s->len, s->hash }, n++))
            return objrt_fail(l->ctx, "out of memory");
        w += s->len + 1;
    }
    return 0;
}

/* Bytes from addr to the end of the permission group of the unit holding it (0: none). */
size_t objrt_unit_extent(const objrt_unit *u, const void *addr, bool writable)
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
                       size_t *extent, char *err, size_t errlen)
{
    uint32_t i = objrt_strmap_get(&u->syms, name);
    if (i == OBJRT_NONE)
        return 0;
    void *p = (void *)(uintptr_t)u->addrs[i];
    const char *why = u->extent[i] == 0 ? "absolute, outside the unit or without a size"
                    : u->extent[i] < size ? "smaller, or too near the end of its section"
                    : objrt_unit_extent(u, p, writable) < size ? "in a read-only section"
                    : writable && (uintptr_t)p % size ? "misaligned for its size" : NULL;
    if (why) {
        snprintf(err, errlen, "'%s' must be a %s object of %zu bytes inside the unit's own "
                 "sections (it is %s)", name, writable ? "writable" : "readable", size, why);
        return -1;
    }
    *out = p;
    if (extent)
        *extent = u->extent[i];
    return 1;
}

int objrt_unit_slot(objrt_unit *u, const char *name, size_t size, bool writable, void **out,
                    size_t *extent, char *err, size_t errlen)
{
    *out = NULL;
    pthread_mutex_lock(&u->ctx->lock);
    int rc = slot_locked(u, name, size, writable, out, extent, err, errlen);
    pthread_mutex_unlock(&u->ctx->lock);
    return rc;
}

/* What a symbol of the unit is, for a message saying why it is not a function. */
static const char *type_name(uint8_t t)
{
    switch (t) {
    case STT_OBJECT:  return "a data object (STT_OBJECT)";
    case STT_NOTYPE:  return "an untyped symbol (STT_NOTYPE; code needs .type NAME, @function)";
    case STT_TLS:     return "a thread-local variable (STT_TLS)";
    case STT_SECTION: return "a section";
    case STT_FILE:    return "a file name";
    case STT_FUNC:    return "a function outside the unit's executable pages";
    default:          return "a symbol of an unknown type";
    }
}

/* The rule for every name a graph, `objrt call -f`, packed() or TVMModGetFunction asks to
 * call: an STT_FUNC (or STT_GNU_IFUNC, bound to what its resolver chose) that lies in the
 * unit's executable group. Anything else would be jumped into as code. */
static bool in_code(const objrt_unit *u, uintptr_t a)
{
    uintptr_t lo = (uintptr_t)u->base + u->group_off[GRP_RX];
    return a >= lo && a - lo < u->group_size[GRP_RX];
}

static int func_locked(objrt_unit *u, const char *name, void **out, char *err, size_t errlen)
{
    uint32_t i = objrt_strmap_get(&u->syms, name);
    if (i == OBJRT_NONE)
        return 0;
    uintptr_t a = (uintptr_t)u->addrs[i];
    bool code = in_code(u, a);
    if ((u->type[i] == STT_FUNC || u->type[i] == STT_GNU_IFUNC) && code) {
        *out = (void *)a;
        return 1;
    }
    objrt_location loc = { 0 };
    if (u->info)
        objrt_unitinfo_describe(u->info, a, &loc);
    char ename[OBJRT_ESC_MAX];
    snprintf(err, errlen, "'%s' is not a function of the unit: it is %s%s%s%s%s",
             objrt_escape(name, ename, sizeof ename), type_name(u->type[i]),
             loc.section ? " in " : u->extent[i] == 0 && !code ? " (absolute)" : "",
             loc.section ? loc.section : "", loc.object ? " of " : "",
             loc.object ? loc.object : "");
    return -1;
}

int objrt_unit_func(objrt_unit *u, const char *name, void **out, char *err, size_t errlen)
{
    *out = NULL;
    pthread_mutex_lock(&u->ctx->lock);
    int rc = func_locked(u, name, out, err, errlen);
    pthread_mutex_unlock(&u->ctx->lock);
    return rc;
}

int objrt_unit_code(const objrt_unit *u, const char *name, const void *addr, char *err,
                    size_t errlen)
{
    uintptr_t a = (uintptr_t)addr;
    uint32_t i = objrt_strmap_get(&u->syms, name);
    void *unused;
    if (in_code(u, a))
        return 1;
    if (i != OBJRT_NONE && u->addrs[i] == a && func_locked((objrt_unit *)u, name, &unused, err,
                                                            errlen) < 0)
        return -1;                          /* registered as itself: its symbol says what */
    objrt_location loc = { 0 };
    if (u->info)
        objrt_unitinfo_describe(u->info, a, &loc);
    char ename[OBJRT_ESC_MAX];
    snprintf(err, errlen, "'%s' is not a function of the unit: it is registered at %p, %s%s%s%s",
             objrt_escape(name, ename, sizeof ename), addr,
             loc.section ? "in " : objrt_unit_extent(u, addr, false) ? "in the unit's data"
                                                                      : "outside the unit",
             loc.section ? loc.section : "", loc.object ? " of " : "",
             loc.object ? loc.object : "");
    return -1;
}

int objrt_unit_build(objrt_link *l, objrt_unit *u)
{
    u->base = l->base;
    u->size = l->plan.total;
    u->packed = l->plan.packed;
    u->exit_handlers = l->dso_handle_used;
    memcpy(u->chunks, l->plan.chunks, sizeof u->chunks);
    l->unit_owns_base = true;
    memcpy(u->group_off, l->plan.group_off, sizeof u->group_off);
    memcpy(u->group_size, l->plan.group_size, sizeof u->group_size);
    return index_symbols(l, u);
}

void objrt_unit_free(objrt_unit *u)
{
    objrt_unitinfo_detach(u);
    objrt_unprotect_release(u);
    objrt_memdso_close(u->tls_module, u->tls_fd);   /* after the code that reaches it */
    objrt_memdso_close(u->export_module, u->export_fd);
    objrt_strmap_free(&u->syms);
    free(u->addrs);
    free(u->extent);
    free(u->type);
    free(u->names);
    free(u->eh_frames);
    free(u->dtors.fn);
    free(u);
}

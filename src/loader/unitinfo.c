/*
 * unitinfo.c - the map from addresses back to inputs: every placed section and every
 * named symbol of the unit's objects (locals too), sorted by address, with the strings
 * copied (the inputs are released after the load). Units are also kept in a process-wide
 * registry, so a crash handler can name an address without knowing the context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/unitinfo.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static objrt_unitinfo *registry;   /* newest first; read without the lock when crashing */

/* ---- strings: sized first, then copied into one pool ---- */
typedef struct pool {
    char *p;
    size_t used, cap;
} pool;

static const char *pool_add(pool *s, const char *str, size_t len)
{
    char *at = s->p + s->used;        /* cap was summed from the same strings */
    memcpy(at, str, len);
    at[len] = '\0';
    s->used += len + 1;
    return at;
}

static bool sym_wanted(const objrt_obj *o, size_t i)
{
    const Elf64_Sym *y = &o->syms[i];
    int t = ELF64_ST_TYPE(y->st_info);
    uint32_t shndx = objrt_sym_shndx(o, i);
    return y->st_name && (t == STT_FUNC || t == STT_OBJECT || t == STT_NOTYPE ||
                          t == STT_GNU_IFUNC) &&
           shndx != SEC_UNDEF && shndx != SEC_ABS && shndx != SEC_COMMON && shndx < o->shnum &&
           o->sec_placed && o->sec_placed[shndx];
}

static size_t name_len(const objrt_obj *o, size_t i)
{
    return strlen(o->str + o->syms[i].st_name);
}

/* Bytes of every string the info will hold, and its section and symbol counts. */
static size_t measure(const objrt_link *l, size_t *nsecs, size_t *nsyms)
{
    size_t bytes = 0;
    *nsecs = l->plan.nitems;
    *nsyms = 0;
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        if (!o->pulled)
            continue;
        bytes += 2 * (strlen(o->name) + 1);
        for (size_t i = 1; i < o->shnum; i++)
            if (o->sec_placed && o->sec_placed[i])
                bytes += strlen(objrt_sec_name(o, i)) + 1;
        for (size_t i = 1; i < o->nsyms; i++)
            if (sym_wanted(o, i)) {
                bytes += name_len(o, i) + 1;
                (*nsyms)++;
            }
    }
    for (size_t g = 0; g < l->ngsyms; g++)
        if (l->gsyms[g].state == G_COMMON) {
            bytes += strlen(l->gsyms[g].name) + 1;
            (*nsyms)++;
        }
    return bytes + 64;                /* ".got", ".stubs", "COMMON" */
}

/* "libk.a(m.o)" -> file "libk.a", member "m.o"; anything else is a plain file. */
static void add_object(pool *s, objrt_info_obj *out, const char *name)
{
    size_t n = strlen(name);
    const char *open = strrchr(name, '(');
    out->object = pool_add(s, name, n);
    if (n && name[n - 1] == ')' && open && open > name) {
        out->file = pool_add(s, name, (size_t)(open - name));
        const char *mem = open + 1;
        out->member = pool_add(s, mem, (size_t)(name + n - 1 - mem));
    } else {
        out->file = out->object;
        out->member = NULL;
    }
}

static int cmp_sec(const void *a, const void *b)
{
    const objrt_info_sec *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Equal addresses: the preferred name sorts last (the lookup takes the last <= addr). */
static int cmp_sym(const void *a, const void *b)
{
    const objrt_info_sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->local != y->local)
        return x->local ? -1 : 1;
    if ((x->size != 0) != (y->size != 0))
        return x->size ? 1 : -1;
    return strcmp(y->name, x->name);
}

static const char *item_name(const objrt_link *l, const objrt_item *it)
{
    switch (it->kind) {
    case IT_GOT:   return ".got";
    case IT_STUBS: return ".stubs";
    case IT_COMMON: return "COMMON";
    default:       return objrt_sec_name(l->objs[it->obj], it->shndx);
    }
}

/* Section index (into the sorted secs) holding addr, or OBJRT_NONE. */
static uint32_t sec_at(const objrt_unitinfo *ui, uint64_t addr)
{
    size_t lo = 0, hi = ui->nsecs;
    while (lo < hi) {                 /* first section starting after addr */
        size_t mid = (lo + hi) / 2;
        if (ui->secs[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {   /* empty sections may share a start */
        const objrt_info_sec *s = &ui->secs[i];
        if (addr - s->addr < s->size || (s->size == 0 && addr == s->addr))
            return (uint32_t)i;
        if (s->size)
            break;
    }
    return OBJRT_NONE;
}

static void fill_sections(const objrt_link *l, objrt_unitinfo *ui, pool *s,
                          const uint32_t *obj_slot)
{
    uint64_t base = (uint64_t)(uintptr_t)l->base;
    for (size_t i = 0; i < l->plan.nitems; i++) {
        const objrt_item *it = &l->plan.items[i];
        bool from_obj = it->kind == IT_SECTION || it->kind == IT_EH_FRAME;
        const char *name = item_name(l, it);
        objrt_info_sec *d = &ui->secs[ui->nsecs++];
        *d = (objrt_info_sec){ base + it->off, it->size,
                               from_obj ? obj_slot[it->obj]
                               : it->kind == IT_COMMON ? obj_slot[l->gsyms[it->obj].obj]
                                                       : OBJRT_NONE,
                               pool_add(s, name, strlen(name)) };
    }
    qsort(ui->secs, ui->nsecs, sizeof *ui->secs, cmp_sec);
}

static void fill_symbols(const objrt_link *l, objrt_unitinfo *ui, pool *s)
{
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        for (size_t i = 1; o->pulled && i < o->nsyms; i++) {
            if (!sym_wanted(o, i))
                continue;
            uint32_t shndx = objrt_sym_shndx(o, i);
            uint64_t addr = (uint64_t)(uintptr_t)l->base + o->sec_off[shndx] +
                            o->syms[i].st_value;
            ui->syms[ui->nsyms++] = (objrt_info_sym){
                addr, o->syms[i].st_size, sec_at(ui, addr),
                pool_add(s, o->str + o->syms[i].st_name, name_len(o, i)), i < o->first_global };
        }
    }
    for (size_t g = 0; g < l->ngsyms; g++) {
        const objrt_gsym *c = &l->gsyms[g];
        if (c->state != G_COMMON)
            continue;
        uint64_t addr = (uint64_t)(uintptr_t)l->base + c->off;
        ui->syms[ui->nsyms++] = (objrt_info_sym){ addr, c->common_size, sec_at(ui, addr),
                                                  pool_add(s, c->name, strlen(c->name)), false };
    }
    qsort(ui->syms, ui->nsyms, sizeof *ui->syms, cmp_sym);
}

static void info_free(objrt_unitinfo *ui)
{
    if (!ui)
        return;
    free(ui->pool);
    free(ui->objs);
    free(ui->secs);
    free(ui->syms);
    free(ui->deps);
    free(ui->jit);
    free(ui);
}

static objrt_unitinfo *build(objrt_link *l)
{
    size_t nsecs, nsyms, bytes = measure(l, &nsecs, &nsyms);
    objrt_unitinfo *ui = calloc(1, sizeof *ui);
    uint32_t *obj_slot = calloc(l->nobjs + 1, sizeof *obj_slot);
    pool s = { malloc(bytes), 0, bytes };
    if (ui) {
        ui->pool = s.p;
        ui->objs = calloc(l->nobjs + 1, sizeof *ui->objs);
        ui->secs = calloc(nsecs + 1, sizeof *ui->secs);
        ui->syms = calloc(nsyms + 1, sizeof *ui->syms);
    }
    if (!ui || !obj_slot || !s.p || !ui->objs || !ui->secs || !ui->syms) {
        if (!ui)
            free(s.p);
        info_free(ui);
        free(obj_slot);
        objrt_fail(l->ctx, "out of memory");
        return NULL;
    }
    for (size_t m = 0; m < l->nobjs; m++) {
        obj_slot[m] = OBJRT_NONE;
        if (l->objs[m]->pulled) {
            obj_slot[m] = (uint32_t)ui->nobjs;
            add_object(&s, &ui->objs[ui->nobjs++], l->objs[m]->name);
        }
    }
    ui->name = ui->nobjs ? ui->objs[0].object : pool_add(&s, "(empty)", 7);
    fill_sections(l, ui, &s, obj_slot);
    fill_symbols(l, ui, &s);
    free(obj_slot);
    return ui;
}

static const char *const off_env = "OBJRT_GDB_JIT";

int objrt_unitinfo_attach(objrt_link *l, objrt_unit *u)
{
    objrt_unitinfo *ui = build(l);
    if (!ui)
        return -1;
    ui->unit = u;
    u->info = ui;
    const char *gdb = getenv(off_env);
    if (objrt_deps_collect(l, ui) ||
        ((!gdb || strcmp(gdb, "0") != 0) && objrt_gdbjit_register(l, ui)))
        return -1;                    /* the caller's free_unit() detaches */
    pthread_mutex_lock(&registry_lock);
    ui->next = registry;
    registry = ui;
    pthread_mutex_unlock(&registry_lock);
    return 0;
}

void objrt_unitinfo_detach(objrt_unit *u)
{
    objrt_unitinfo *ui = u->info;
    if (!ui)
        return;
    pthread_mutex_lock(&registry_lock);
    for (objrt_unitinfo **p = &registry; *p; p = &(*p)->next)
        if (*p == ui) {
            *p = ui->next;
            break;
        }
    pthread_mutex_unlock(&registry_lock);
    objrt_gdbjit_unregister(ui);
    u->info = NULL;
    info_free(ui);
}

const objrt_unitinfo *objrt_unitinfo_find_unlocked(const objrt_ctx *ctx, uintptr_t addr)
{
    for (const objrt_unitinfo *ui = registry; ui; ui = ui->next) {
        const objrt_unit *u = ui->unit;
        if ((!ctx || u->ctx == ctx) && addr >= (uintptr_t)u->base &&
            addr - (uintptr_t)u->base < u->size)
            return ui;
    }
    return NULL;
}

/* Last symbol at or below addr within section `sec`, or NULL. */
static const objrt_info_sym *nearest_symbol(const objrt_unitinfo *ui, uint32_t sec, uint64_t addr)
{
    size_t lo = 0, hi = ui->nsyms;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ui->syms[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        if (ui->syms[i].sec == sec)
            return &ui->syms[i];
        if (sec != OBJRT_NONE && ui->syms[i].addr < ui->secs[sec].addr)
            break;                    /* before the section: nothing of it is left */
    }
    return NULL;
}

void objrt_unitinfo_describe(const objrt_unitinfo *ui, uintptr_t addr, objrt_location *out)
{
    memset(out, 0, sizeof *out);
    out->unit = ui->unit;
    uint32_t sec = sec_at(ui, addr);
    if (sec == OBJRT_NONE)
        return;                       /* padding between groups */
    const objrt_info_sec *s = &ui->secs[sec];
    if (s->obj != OBJRT_NONE) {
        out->object = ui->objs[s->obj].object;
        out->file = ui->objs[s->obj].file;
        out->member = ui->objs[s->obj].member;
    }
    out->section = s->name;
    out->section_addr = (void *)(uintptr_t)s->addr;
    out->offset = addr - s->addr;
    const objrt_info_sym *y = nearest_symbol(ui, sec, addr);
    if (y) {
        out->symbol = y->name;
        out->symbol_addr = (void *)(uintptr_t)y->addr;
        out->symbol_size = y->size;
        out->offset = addr - y->addr;
        out->local = y->local;
    }
}

int objrt_addr_info(objrt_ctx *ctx, const void *addr, objrt_location *info)
{
    if (!info)
        return ctx ? objrt_fail(ctx, "objrt_addr_info: no result buffer") : -1;
    if (ctx)
        pthread_mutex_lock(&ctx->lock);
    pthread_mutex_lock(&registry_lock);
    const objrt_unitinfo *ui = objrt_unitinfo_find_unlocked(ctx, (uintptr_t)addr);
    if (ui)
        objrt_unitinfo_describe(ui, (uintptr_t)addr, info);
    pthread_mutex_unlock(&registry_lock);
    if (ctx)
        pthread_mutex_unlock(&ctx->lock);
    if (!ui)
        return ctx ? objrt_fail(ctx, "address %p is not inside a loaded unit", addr) : -1;
    return 0;
}

const char *objrt_unit_name(const objrt_unit *u)
{
    return u && u->info ? u->info->name : NULL;
}

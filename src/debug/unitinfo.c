/*
 * unitinfo.c - the map from addresses back to inputs. Each object keeps the compact ELF
 * image gdbjit.c builds for the debugger (section headers carry the loaded addresses, the
 * symbol table is the object's own, locals included); a lookup scans it, which costs
 * nothing at load time beyond that one copy. Units are also kept in a process-wide
 * registry, so a crash handler can name an address without knowing the context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debug/unitinfo.h"
#include "base/fork.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static objrt_unitinfo *registry;   /* newest first; read without the lock when crashing */

/* ---- building ---- */

/* Bytes for every object's strings (pool_add() writes them). */
static size_t object_bytes(const objrt_link *l)
{
    size_t n = 0;
    for (size_t m = 0; m < l->nobjs; m++)
        if (l->objs[m]->pulled)
            n += 2 * (strlen(l->objs[m]->name) + 1);  /* object, then file and member */
    return n;
}

static bool is_extra(const objrt_item *it)
{
    return it->kind == IT_GOT || it->kind == IT_STUBS || it->kind == IT_COMMON;
}

/* Where the plan's extras are: how many, the bytes of their strings ("COMMON" symbols'
 * names), and the range of items that holds them (the plan adds them after the sections,
 * so the fill walks a few items rather than all of them again). */
typedef struct extras {
    size_t n, bytes;
    size_t first, end;          /* items [first, end) hold every extra */
} extras;

static extras find_extras(const objrt_link *l)
{
    extras x = { 0, 32, 0, 0 };                      /* ".got", ".stubs", "COMMON" */
    for (size_t i = 0; i < l->plan.nitems; i++) {
        const objrt_item *it = &l->plan.items[i];
        if (!is_extra(it))
            continue;
        if (!x.n++)
            x.first = i;
        x.end = i + 1;
        if (it->kind == IT_COMMON)
            x.bytes += l->gsyms[it->obj].len + 1;
    }
    return x;
}

static const char *pool_add(char **at, const char *s, size_t len)
{
    char *p = *at;                    /* build() sized the pool for every string */
    memcpy(p, s, len);
    p[len] = '\0';
    *at += len + 1;
    return p;
}

/* "libk.a(m.o)" -> file "libk.a", member "m.o"; anything else is a plain file. */
static void name_object(char **pool, objrt_info_obj *out, const char *name)
{
    size_t n = strlen(name);
    const char *open = n && name[n - 1] == ')' ? strrchr(name, '(') : NULL;
    out->object = pool_add(pool, name, n);
    if (open && open > name) {
        out->file = pool_add(pool, name, (size_t)(open - name));
        out->member = pool_add(pool, open + 1, (size_t)(name + n - 2 - open));
    } else {
        out->file = out->object;
        out->member = NULL;
    }
}

static void add_extras(const objrt_link *l, objrt_unitinfo *ui, char **pool,
                       const uint32_t *obj_slot, const extras *x)
{
    const char *got = pool_add(pool, ".got", 4), *stubs = pool_add(pool, ".stubs", 6);
    const char *common = pool_add(pool, "COMMON", 6);
    uint64_t base = (uint64_t)(uintptr_t)l->base;
    for (size_t i = x->first; i < x->end; i++) {
        const objrt_item *it = &l->plan.items[i];
        objrt_info_extra e = { base + it->off, it->size, NULL, NULL, OBJRT_NONE };
        if (it->kind == IT_GOT) {
            e.section = got;
        } else if (it->kind == IT_STUBS) {
            e.section = stubs;
        } else if (it->kind == IT_COMMON) {
            const objrt_gsym *g = &l->gsyms[it->obj];
            e.section = common;
            e.symbol = pool_add(pool, g->name, g->len);
            e.obj = obj_slot[g->obj];
        } else {
            continue;
        }
        ui->extras[ui->nextras++] = e;
    }
}

static void info_free(objrt_unitinfo *ui)
{
    if (!ui)
        return;
    objrt_gdbjit_release(ui);
    for (size_t i = 0; i < ui->ndeps; i++)
        free(ui->deps[i].symbol);
    free(ui->objs);                   /* one block: objects, extras, then the strings */
    free(ui->deps);
    free(ui);
}

static bool wanted(const objrt_obj *o) { return o->pulled && o->sec_placed; }

/* The objects, the extras and their strings in one block; then the objects' images. */
static int build(objrt_link *l, objrt_unitinfo *ui)
{
    size_t nobjs = 0;
    for (size_t m = 0; m < l->nobjs; m++)
        nobjs += wanted(l->objs[m]);
    extras x = find_extras(l);
    size_t head = nobjs * sizeof *ui->objs + x.n * sizeof *ui->extras;
    ui->objs = malloc(head + object_bytes(l) + x.bytes);      /* bounded by the inputs' */
    uint32_t *obj_slot = malloc((l->nobjs + 1) * sizeof *obj_slot);
    if (!ui->objs || !obj_slot) {
        free(obj_slot);
        return objrt_fail(l->ctx, "out of memory");
    }
    ui->extras = (objrt_info_extra *)(ui->objs + nobjs);
    char *pool = (char *)ui->objs + head;
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        obj_slot[m] = OBJRT_NONE;
        if (!wanted(o))
            continue;
        objrt_info_obj *d = &ui->objs[ui->nobjs];
        name_object(&pool, d, o->name);
        d->jit = NULL;
        obj_slot[m] = (uint32_t)ui->nobjs++;
    }
    ui->name = ui->nobjs ? ui->objs[0].object : pool_add(&pool, "(empty)", 7);
    add_extras(l, ui, &pool, obj_slot, &x);
    int rc = objrt_gdbjit_build(l, ui, obj_slot);
    free(obj_slot);
    return rc;
}

int objrt_unitinfo_attach(objrt_link *l, objrt_unit *u)
{
    objrt_unitinfo *ui = calloc(1, sizeof *ui);
    if (!ui)
        return objrt_fail(l->ctx, "out of memory");
    ui->unit = u;
    u->info = ui;                     /* on failure the caller's free_unit() detaches */
    if (build(l, ui) || objrt_deps_collect(l, ui))
        return -1;
    const char *gdb = getenv("OBJRT_GDB_JIT");
    if (!gdb || strcmp(gdb, "0") != 0)
        objrt_gdbjit_register(ui);
    pthread_mutex_lock(&registry_lock);
    ui->next = registry;
    if (ui->next)
        ui->next->pprev = &ui->next;
    ui->pprev = &registry;
    registry = ui;              /* the crash handler may read from here on, unlocked */
    pthread_mutex_unlock(&registry_lock);
    return 0;
}

void objrt_unitinfo_detach(objrt_unit *u)
{
    objrt_unitinfo *ui = u->info;
    if (!ui)
        return;
    pthread_mutex_lock(&registry_lock);
    if (ui->pprev) {
        *ui->pprev = ui->next;
        if (ui->next)
            ui->next->pprev = ui->pprev;
    }
    pthread_mutex_unlock(&registry_lock);
    for (size_t i = 0; i < ui->ndeps; i++)
        ui->deps[i].unit->ndependants--;    /* deps.c counted them */
    objrt_gdbjit_unregister(ui);
    u->info = NULL;
    info_free(ui);
}

/* ---- lookup: no allocation, no lock (the crash handler uses it) ---- */

const objrt_unitinfo *objrt_unitinfo_find_unlocked(const objrt_ctx *ctx, uintptr_t addr)
{
    for (const objrt_unitinfo *ui = registry; ui; ui = ui->next) {
        const objrt_unit *u = ui->unit;
        if ((!ctx || u->ctx == ctx) && objrt_unit_holds(u, addr))
            return ui;
    }
    return NULL;
}

typedef struct image {          /* views into one object's image (built by gdbjit.c) */
    const Elf64_Shdr *sh;
    size_t shnum;
    const char *shstr;
    const Elf64_Sym *syms;
    size_t nsyms, first_global;
    const char *str;
    const Elf32_Word *xindex;
} image;

static void open_image(const uint8_t *img, image *v)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    memset(v, 0, sizeof *v);
    v->sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    v->shnum = eh->e_shnum ? eh->e_shnum : v->sh[0].sh_size;
    size_t shstrndx = eh->e_shstrndx == SHN_XINDEX ? v->sh[0].sh_link : eh->e_shstrndx;
    if (shstrndx && shstrndx < v->shnum)      /* parse.c checked every sh_name against it */
        v->shstr = (const char *)img + v->sh[shstrndx].sh_offset;
    for (size_t i = 1; i < v->shnum; i++) {
        if (v->sh[i].sh_type == SHT_SYMTAB) {
            v->syms = (const Elf64_Sym *)(img + v->sh[i].sh_offset);
            v->nsyms = v->sh[i].sh_size / sizeof(Elf64_Sym);
            v->first_global = v->sh[i].sh_info;
            v->str = (const char *)img + v->sh[v->sh[i].sh_link].sh_offset;
        } else if (v->sh[i].sh_type == SHT_SYMTAB_SHNDX) {
            v->xindex = (const Elf32_Word *)(img + v->sh[i].sh_offset);
        }
    }
}

static size_t sym_section(const image *v, size_t i)
{
    uint16_t s = v->syms[i].st_shndx;
    return s == SHN_XINDEX && v->xindex ? v->xindex[i] : s >= SHN_LORESERVE ? 0 : s;
}

/* Named functions and data; not the assembler's own labels (".LC0" stays in the symbol
 * table when a mergeable string refers to it) nor AArch64 mapping symbols ("$x", "$d"). */
static bool sym_wanted(const image *v, size_t i)
{
    const Elf64_Sym *y = &v->syms[i];
    int t = ELF64_ST_TYPE(y->st_info);
    const char *name = v->str + y->st_name;
    bool label = i < v->first_global && ((name[0] == '.' && name[1] == 'L') || name[0] == '$');
    return y->st_name && !label &&
           (t == STT_FUNC || t == STT_OBJECT || t == STT_NOTYPE || t == STT_GNU_IFUNC);
}

/* Between two candidates at the same address: a global, then a sized one, wins. */
static bool better(const image *v, size_t a, size_t b)
{
    if (v->syms[a].st_value != v->syms[b].st_value)
        return v->syms[a].st_value > v->syms[b].st_value;
    bool ga = a >= v->first_global, gb = b >= v->first_global;
    if (ga != gb)
        return ga;
    return v->syms[a].st_size && !v->syms[b].st_size;
}

static bool describe_in_object(const objrt_info_obj *ob, uintptr_t addr, objrt_location *out)
{
    image v;
    open_image(objrt_gdbjit_bytes(ob->jit), &v);
    size_t sec = 0;
    for (size_t i = 1; i < v.shnum && !sec; i++)
        if ((v.sh[i].sh_flags & SHF_ALLOC) && v.sh[i].sh_addr && addr - v.sh[i].sh_addr < v.sh[i].sh_size)
            sec = i;
    for (size_t i = 1; i < v.shnum && !sec; i++)     /* an empty section names its start */
        if ((v.sh[i].sh_flags & SHF_ALLOC) && v.sh[i].sh_addr == addr && addr)
            sec = i;
    if (!sec)
        return false;
    out->object = ob->object;
    out->file = ob->file;
    out->member = ob->member;
    out->section = v.shstr ? v.shstr + v.sh[sec].sh_name : "?";
    out->section_addr = (void *)(uintptr_t)v.sh[sec].sh_addr;
    uint64_t off = addr - v.sh[sec].sh_addr;
    out->offset = off;
    size_t best = 0;
    for (size_t i = 1; i < v.nsyms; i++)
        if (sym_section(&v, i) == sec && v.syms[i].st_value <= off && sym_wanted(&v, i) &&
            (!best || better(&v, i, best)))
            best = i;
    if (best) {
        out->symbol = v.str + v.syms[best].st_name;
        out->symbol_addr = (void *)(uintptr_t)(v.sh[sec].sh_addr + v.syms[best].st_value);
        out->symbol_size = v.syms[best].st_size;
        out->offset = off - v.syms[best].st_value;
        out->local = best < v.first_global;
    }
    return true;
}

void objrt_unitinfo_describe(const objrt_unitinfo *ui, uintptr_t addr, objrt_location *out)
{
    memset(out, 0, sizeof *out);
    out->unit = ui->unit;
    for (size_t i = 0; i < ui->nobjs; i++)
        if (describe_in_object(&ui->objs[i], addr, out))
            return;
    for (size_t i = 0; i < ui->nextras; i++) {
        const objrt_info_extra *e = &ui->extras[i];
        if (addr - e->addr >= e->size)
            continue;
        if (e->obj != OBJRT_NONE) {
            out->object = ui->objs[e->obj].object;
            out->file = ui->objs[e->obj].file;
            out->member = ui->objs[e->obj].member;
        }
        out->section = e->section;
        out->section_addr = (void *)(uintptr_t)e->addr;
        out->offset = addr - e->addr;
        if (e->symbol) {
            out->symbol = e->symbol;
            out->symbol_addr = out->section_addr;
            out->symbol_size = e->size;
        }
        return;
    }
}

int objrt_addr_info(objrt_ctx *ctx, const void *addr, objrt_location *info)
{
    if (!info)
        return ctx ? objrt_fail(ctx, "objrt_addr_info: no result buffer") : -1;
    if (ctx && !objrt_ctx_begin(ctx))
        return -1;                      /* closing: "context is closed" */
    pthread_mutex_lock(&registry_lock);
    const objrt_unitinfo *ui = objrt_unitinfo_find_unlocked(ctx, (uintptr_t)addr);
    if (ui)
        objrt_unitinfo_describe(ui, (uintptr_t)addr, info);
    pthread_mutex_unlock(&registry_lock);
    if (ctx)
        objrt_ctx_end(ctx);
    if (!ui)
        return ctx ? objrt_fail(ctx, "address %p is not inside a loaded unit", addr) : -1;
    return 0;
}

const char *objrt_unit_name(const objrt_unit *u)
{
    objrt_ctx *ctx = objrt_unit_begin(u);
    if (!ctx)
        return NULL;
    const char *name = u->info ? u->info->name : NULL;
    objrt_ctx_end(ctx);
    return name;
}

OBJRT_FORK_LOCK(registry_lock)

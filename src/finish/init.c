/*
 * init.c - constructors and destructors, in the order a static link would run them.
 *
 * GNU ld builds one .init_array from .init_array.N and .ctors.N sections sorted by
 * priority (a .ctors.N section has priority 65535 - N), then the plain .init_array and
 * .ctors sections in input order; the entries of every .ctors section are reversed on
 * the way. The program runs that array first to last. .fini_array is built the same way
 * from .fini_array and .dtors sections and is run last to first. objrt reproduces both
 * arrays, so mixed old and new objects run in the order they would natively.
 * .preinit_array (ld keeps it whole, in input order, without priorities) runs before all
 * of .init_array, as the dynamic linker runs an executable's: a unit is linked like one.
 */
#include <stdlib.h>
#include <string.h>

#include "finish/finish.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"
#include "debug/unitinfo.h"

enum { GROUP_PREINIT, GROUP_INIT, GROUP_FINI, GROUP_NONE };

/* One array section of the unit, as the plan's check found it (plan.items[item]). */
typedef struct objrt_initarr {
    uint32_t item;
    uint8_t group;
    bool legacy;                /* .ctors/.dtors: entries stored in reverse */
    unsigned prio;              /* 65536 for an array without priority */
} objrt_initarr;

typedef struct arr {            /* one array of the unit, with its entries */
    int group;
    bool legacy;
    unsigned prio;
    size_t seq;                 /* input order, keeps the sort stable */
    const uintptr_t *v;
    size_t n;
} arr;

static int classify(const char *name, unsigned *prio, bool *legacy)
{
    static const struct { const char *name; size_t len; int group; bool legacy; } k[] = {
        { ".init_array", 11, GROUP_INIT, false }, { ".fini_array", 11, GROUP_FINI, false },
        { ".ctors", 6, GROUP_INIT, true },        { ".dtors", 6, GROUP_FINI, true },
        { ".preinit_array", 14, GROUP_PREINIT, false },
    };
    size_t i;                           /* every item of every load comes here: the */
    if (name[0] != '.')                 /* first bytes reject most names before a call */
        return GROUP_NONE;
    switch (name[1]) {
    case 'i': i = 0; break;
    case 'f': i = 1; break;
    case 'c': i = 2; break;
    case 'd': i = 3; break;
    case 'p': i = 4; break;
    default: return GROUP_NONE;
    }
    size_t n = k[i].len;
    if (name[2] != k[i].name[2] || strncmp(name, k[i].name, n) != 0)
        return GROUP_NONE;
    *legacy = k[i].legacy;
    if (name[n] == '\0') {
        *prio = 65536;
        return k[i].group;
    }
    if (name[n] == '.' && name[n + 1] >= '0' && name[n + 1] <= '9' && k[i].group != GROUP_PREINIT) {
        unsigned long v = strtoul(name + n + 1, NULL, 10);
        *prio = (unsigned)(k[i].legacy ? 65535 - (v > 65535 ? 65535 : v) : v);
        return k[i].group;
    }
    return GROUP_NONE;
}

static int cmp_arr(const void *a, const void *b)
{
    const arr *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio < y->prio ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool real_fn(uintptr_t f) { return f != 0 && f != (uintptr_t)-1; }

/* The array ld would build for `group`, in array order. */
static void build_array(objrt_fnlist *out, const arr *a, size_t na, int group)
{
    for (size_t j = 0; j < na; j++) {
        if (a[j].group != group)
            continue;
        for (size_t e = 0; e < a[j].n; e++) {
            uintptr_t f = a[j].v[a[j].legacy ? a[j].n - 1 - e : e];
            if (real_fn(f))
                out->fn[out->n++] = f;
        }
    }
}

/* Every array is an array of pointers: the plan refuses other shapes, for `objrt layout`
 * and for a load alike. The arrays with bytes are listed for objrt_collect_init (the plan
 * may lay out twice: the list is made anew each time, its items stay the same). This is
 * the one walk over every item's section name. */
int objrt_init_arrays_check(objrt_link *l)
{
    const objrt_plan *p = &l->plan;
    l->ninit_arrays = 0;
    for (size_t i = 0; i < p->nitems; i++) {
        const objrt_item *it = &p->items[i];
        if (it->kind != IT_SECTION)
            continue;
        const objrt_obj *o = l->objs[it->obj];
        const char *name = objrt_sec_name(o, it->shndx);
        unsigned prio;
        bool legacy;
        int group = classify(name, &prio, &legacy);
        if (group == GROUP_NONE)
            continue;
        if ((it->off | it->size) % sizeof(uintptr_t))
            return objrt_fail(l->ctx, "%s: section %s: %llu bytes at offset 0x%llx is not an "
                              "array of pointers", o->name, name,
                              (unsigned long long)it->size, (unsigned long long)it->off);
        if (o->sh[it->shndx].sh_type == SHT_NOBITS)
            continue;                   /* all zeros: nothing to call, never read */
        objrt_initarr *v = objrt_grow(l->ctx, l->init_arrays, &l->capinit_arrays,
                                      l->ninit_arrays + 1, sizeof *v, 8);
        if (!v)
            return -1;
        l->init_arrays = v;
        v[l->ninit_arrays++] = (objrt_initarr){ (uint32_t)i, (uint8_t)group, legacy, prio };
    }
    return 0;
}

/* Entries worth calling in one array. */
static size_t count_fns(const arr *a)
{
    size_t n = 0;
    for (size_t e = 0; e < a->n; e++)
        n += real_fn(a->v[e]);
    return n;
}

int objrt_collect_init(objrt_link *l, objrt_unit *u, objrt_fnlist *ctors)
{
    size_t na = l->ninit_arrays, total = 0;
    arr *a = malloc((na ? na : 1) * sizeof *a);
    if (!a)
        return objrt_fail(l->ctx, "out of memory");
    for (size_t j = 0; j < na; j++) {
        const objrt_initarr *c = &l->init_arrays[j];
        const objrt_item *it = &l->plan.items[c->item];
        a[j] = (arr){ c->group, c->legacy, c->prio, c->item,
                      (const uintptr_t *)(l->base + it->off), it->size / sizeof(uintptr_t) };
        total += count_fns(&a[j]);
    }
    qsort(a, na, sizeof *a, cmp_arr);
    ctors->fn = malloc((total ? total : 1) * sizeof(uintptr_t));
    u->dtors.fn = malloc((total ? total : 1) * sizeof(uintptr_t));
    if (!ctors->fn || !u->dtors.fn) {   /* the caller frees neither on failure */
        free(a);
        free(ctors->fn);
        free(u->dtors.fn);
        ctors->fn = NULL;
        u->dtors.fn = NULL;
        return objrt_fail(l->ctx, "out of memory");
    }
    build_array(ctors, a, na, GROUP_PREINIT);  /* as an executable: before .init_array */
    build_array(ctors, a, na, GROUP_INIT);
    build_array(&u->dtors, a, na, GROUP_FINI);
    for (size_t i = 0, j = u->dtors.n; i < j / 2; i++) {    /* .fini_array runs backwards */
        uintptr_t t = u->dtors.fn[i];
        u->dtors.fn[i] = u->dtors.fn[j - 1 - i];
        u->dtors.fn[j - 1 - i] = t;
    }
    free(a);
    return 0;
}

extern char **environ;

void objrt_run_fns(const objrt_fnlist *fns)
{
    /* glibc passes (argc, argv, envp) to init_array entries; the unit has no argv yet. */
    for (size_t i = 0; i < fns->n; i++)
        ((void (*)(int, char **, char **))fns->fn[i])(0, NULL, environ);
}

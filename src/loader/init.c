/*
 * init.c - constructors and destructors, in the order a static link would run them.
 *
 * GNU ld builds one .init_array from .init_array.N and .ctors.N sections sorted by
 * priority (a .ctors.N section has priority 65535 - N), then the plain .init_array and
 * .ctors sections in input order; the entries of every .ctors section are reversed on
 * the way. The program runs that array first to last. .fini_array is built the same way
 * from .fini_array and .dtors sections and is run last to first. objrt reproduces both
 * arrays, so mixed old and new objects run in the order they would natively.
 */
#include <stdlib.h>
#include <string.h>

#include "loader/internal.h"

enum { GROUP_INIT, GROUP_FINI, GROUP_NONE };

typedef struct arr {            /* one array section of the unit */
    int group;
    bool legacy;                /* .ctors/.dtors: entries stored in reverse */
    unsigned prio;              /* 65536 for an array without priority */
    size_t seq;                 /* input order, keeps the sort stable */
    const uintptr_t *v;
    size_t n;
} arr;

static int classify(const char *name, unsigned *prio, bool *legacy)
{
    static const struct { const char *name; int group; bool legacy; } k[] = {
        { ".init_array", GROUP_INIT, false }, { ".fini_array", GROUP_FINI, false },
        { ".ctors", GROUP_INIT, true },       { ".dtors", GROUP_FINI, true },
    };
    if (name[0] != '.')                 /* every item of every load comes here */
        return GROUP_NONE;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (name[1] != k[i].name[1])    /* cheap reject before the calls */
            continue;
        size_t n = strlen(k[i].name);
        if (strncmp(name, k[i].name, n) != 0)
            continue;
        *legacy = k[i].legacy;
        if (name[n] == '\0') {
            *prio = 65536;
            return k[i].group;
        }
        if (name[n] == '.' && name[n + 1] >= '0' && name[n + 1] <= '9') {
            unsigned long v = strtoul(name + n + 1, NULL, 10);
            *prio = (unsigned)(k[i].legacy ? 65535 - (v > 65535 ? 65535 : v) : v);
            return k[i].group;
        }
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

/* The section of item i when it is a constructor or destructor array, else NULL. */
static const char *array_section(const objrt_link *l, const objrt_item *it, int *group,
                                 unsigned *prio, bool *legacy)
{
    if (it->kind != IT_SECTION)
        return NULL;
    const char *name = objrt_sec_name(l->objs[it->obj], it->shndx);
    return (*group = classify(name, prio, legacy)) == GROUP_NONE ? NULL : name;
}

/* Every array is an array of pointers: the plan refuses other shapes, for `objrt layout`
 * and for a load alike. */
int objrt_init_arrays_check(objrt_link *l)
{
    const objrt_plan *p = &l->plan;
    for (size_t i = 0; i < p->nitems; i++) {
        const objrt_item *it = &p->items[i];
        unsigned prio;
        bool legacy;
        int group;
        const char *name = array_section(l, it, &group, &prio, &legacy);
        if (name && (it->off | it->size) % sizeof(uintptr_t))
            return objrt_fail(l->ctx, "%s: section %s: %llu bytes at offset 0x%llx is not an "
                              "array of pointers", l->objs[it->obj]->name, name,
                              (unsigned long long)it->size, (unsigned long long)it->off);
    }
    return 0;
}

/* Entries worth calling in one array. A NOBITS array is all zeros: it has none, however
 * large it claims to be, and is never read (the work stays bounded by the input's bytes). */
static size_t count_fns(const arr *a)
{
    size_t n = 0;
    for (size_t e = 0; e < a->n; e++)
        n += real_fn(a->v[e]);
    return n;
}

int objrt_collect_init(objrt_link *l, objrt_unit *u, objrt_fnlist *ctors)
{
    const objrt_plan *p = &l->plan;
    arr *a = malloc((p->nitems ? p->nitems : 1) * sizeof *a);
    size_t na = 0, total = 0;
    if (!a)
        return objrt_fail(l->ctx, "out of memory");
    for (size_t i = 0; i < p->nitems; i++) {
        const objrt_item *it = &p->items[i];
        unsigned prio;
        bool legacy;
        int group;
        if (!array_section(l, it, &group, &prio, &legacy) ||
            l->objs[it->obj]->sh[it->shndx].sh_type == SHT_NOBITS)
            continue;
        a[na] = (arr){ group, legacy, prio, i, (const uintptr_t *)(l->base + it->off),
                       it->size / sizeof(uintptr_t) };
        total += count_fns(&a[na++]);
    }
    qsort(a, na, sizeof *a, cmp_arr);
    ctors->fn = malloc((total ? total : 1) * sizeof(uintptr_t));
    u->dtors.fn = malloc((total ? total : 1) * sizeof(uintptr_t));
    if (!ctors->fn || !u->dtors.fn) {
        free(a);
        return objrt_fail(l->ctx, "out of memory");
    }
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

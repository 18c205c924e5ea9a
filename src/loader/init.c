/*
 * init.c - constructors and destructors, in the order a static link would run them.
 *
 * Constructors: .init_array.NNNNN by ascending priority, then plain .init_array, each in
 * link order; then legacy .ctors, whose entries run last-to-first. Destructors run in the
 * reverse of that: .fini_array last-to-first (so the highest priority number first), then
 * legacy .dtors first-to-last.
 */
#include <stdlib.h>
#include <string.h>

#include "loader/internal.h"

enum { K_INIT, K_FINI, K_CTORS, K_DTORS, K_NONE };

typedef struct arr {            /* one array section of the unit */
    int kind;
    unsigned prio;              /* 65536 for an array without priority */
    size_t seq;                 /* link order, keeps the sort stable */
    const uintptr_t *v;
    size_t n;
} arr;

static int classify(const char *name, unsigned *prio)
{
    static const struct { const char *name; int kind; } k[] = {
        { ".init_array", K_INIT }, { ".fini_array", K_FINI },
        { ".ctors", K_CTORS },     { ".dtors", K_DTORS },
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        size_t n = strlen(k[i].name);
        if (strncmp(name, k[i].name, n) != 0)
            continue;
        if (name[n] == '\0') {
            *prio = 65536;
            return k[i].kind;
        }
        if (name[n] == '.' && name[n + 1] >= '0' && name[n + 1] <= '9') {
            *prio = (unsigned)strtoul(name + n + 1, NULL, 10);
            return k[i].kind;
        }
    }
    return K_NONE;
}

static int cmp_arr(const void *a, const void *b)
{
    const arr *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio < y->prio ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool real_fn(uintptr_t f) { return f != 0 && f != (uintptr_t)-1; }

/* Append the entries of every array of `kind`, forwards or backwards. */
static void append(objrt_fnlist *out, const arr *a, size_t na, int kind, bool backwards)
{
    for (size_t j = 0; j < na; j++) {
        const arr *x = &a[backwards ? na - 1 - j : j];
        if (x->kind != kind)
            continue;
        for (size_t e = 0; e < x->n; e++) {
            uintptr_t f = x->v[backwards ? x->n - 1 - e : e];
            if (real_fn(f))
                out->fn[out->n++] = f;
        }
    }
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
        int kind;
        if (it->kind != IT_SECTION ||
            (kind = classify(objrt_sec_name(l->objs[it->obj], it->shndx), &prio)) == K_NONE)
            continue;
        a[na] = (arr){ kind, prio, i, (const uintptr_t *)(l->base + it->off), it->size / 8 };
        total += a[na++].n;
    }
    qsort(a, na, sizeof *a, cmp_arr);
    ctors->fn = malloc((total ? total : 1) * sizeof(uintptr_t));
    u->dtors.fn = malloc((total ? total : 1) * sizeof(uintptr_t));
    if (!ctors->fn || !u->dtors.fn) {
        free(a);
        return objrt_fail(l->ctx, "out of memory");
    }
    append(ctors, a, na, K_INIT, false);
    append(ctors, a, na, K_CTORS, true);
    append(&u->dtors, a, na, K_FINI, true);
    append(&u->dtors, a, na, K_DTORS, false);
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

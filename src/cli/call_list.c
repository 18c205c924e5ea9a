/* call_list.c - what a unit offers to `objrt call -f`: --list, and "did you mean" for a
 * name it does not have. The names are the unit's system-lib registrations and its global
 * symbols that the runtime accepts as functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "cli.h"

typedef struct names {
    char **v;
    size_t n, cap;
    int failed;
} names;

static int add_name(void *data, const char *name)
{
    names *ns = data;
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? 2 * ns->cap : 64;
        char **grown = realloc(ns->v, cap * sizeof *grown);
        if (!grown) {
            ns->failed = 1;
            return 1;
        }
        ns->v = grown;
        ns->cap = cap;
    }
    if (!(ns->v[ns->n] = strdup(name))) {
        ns->failed = 1;
        return 1;
    }
    ns->n++;
    return 0;
}

static int add_sym(void *data, const char *name, void *addr)
{
    (void)addr;
    return add_name(data, name);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(names *ns)
{
    for (size_t i = 0; i < ns->n; i++)
        free(ns->v[i]);
    free(ns->v);
}

/* TVM's own plumbing (__tvm_main__, __tvm_module_ctx, __TVMFuncCall slots, ...), never
 * a kernel. */
static int internal_name(const char *name)
{
    size_t n = strlen(name), k = strlen("__tvm_main__");
    if (strncmp(name, "__tvm_", 6) == 0 || strncmp(name, "__TVM", 5) == 0 ||
        strcmp(name, "TVMSystemLibEntryPoint") == 0)
        return 1;
    /* "<prefix>__tvm_main__" registrations; AOT's tvmgen_<n>___tvm_main__ is a function */
    return n > k && strcmp(name + n - k, "__tvm_main__") == 0 && strncmp(name, "tvmgen_", 7) != 0;
}

/* Sorted, without duplicates, only what objrt_tvm_func finds. The symbols are filtered
 * after the walk: the visitor runs with the loader's lock held. */
static int callable_names(objrt_unit *u, names *out)
{
    names all = { 0 };
    objrt_tvm_foreach_registered(u, add_name, &all);
    objrt_unit_foreach_sym(u, add_sym, &all);
    if (all.failed) {
        free_names(&all);
        return -1;
    }
    if (all.n)
        qsort(all.v, all.n, sizeof *all.v, cmp_str);
    for (size_t i = 0; i < all.n; i++) {
        int dup = i && strcmp(all.v[i], all.v[i - 1]) == 0;
        if (!dup && !internal_name(all.v[i]) && objrt_tvm_func(u, all.v[i]) &&
            add_name(out, all.v[i]) != 0)
            break;
    }
    free_names(&all);
    return out->failed ? -1 : 0;
}

static int is_registered(void *data, const char *name)
{
    return strcmp(data, name) == 0;
}

int call_registers(objrt_unit *u, const char *name)
{
    return objrt_tvm_foreach_registered(u, is_registered, (void *)name) == 1;
}

/* What is known of how `name` is called: registrations are packed by TVM's contract, AOT
 * entries by their release, a C symbol's parameters are not recorded anywhere. */
static const char *abi_text(objrt_unit *u, const char *name)
{
    int abi = call_abi_by_name(u, name);
    size_t n = strlen(name);
    if (call_registers(u, name))
        return "packed (system-lib registration)";
    if (abi < 0)
        return "AOT entry of a release objrt cannot tell (say --aot or --packed)";
    if (abi != ABI_PACKED || (strncmp(name, "tvmgen_", 7) == 0 && n > 4 &&
                              strcmp(name + n - 4, "_run") == 0))
        return call_abi_name(abi);
    if (strncmp(name, "tvmgen_", 7) == 0 && strstr(name, "___tvm_main__"))
        return "unpacked (the AOT model's main; call its _run entry)";
    return "packed, assumed (a C symbol does not record its parameters)";
}

int call_list(objrt_unit *u)
{
    names ns = { 0 };
    TVMFunctionHandle main_fn = objrt_tvm_main(u);
    const char *main_name = main_fn ? objrt_tvm_func_name(main_fn) : NULL;
    if (callable_names(u, &ns) != 0) {
        fprintf(stderr, "objrt: --list: out of memory\n");
        return EXIT_OBJRT;
    }
    for (size_t i = 0; i < ns.n; i++)
        printf("%-40s %s%s\n", ns.v[i], abi_text(u, ns.v[i]), main_name && strcmp(main_name, ns.v[i]) == 0 ? "; __tvm_main__ (the default)" : "");
    free_names(&ns);
    return 0;
}

/* Levenshtein distance, or a large number for names too long to compare. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[257];
    if (la > 256 || lb > 256)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

void call_suggest(objrt_unit *u, const char *f)
{
    names ns = { 0 };
    size_t best = (size_t)-1, limit = strlen(f) / 3 + 2;
    const char *pick = NULL;
    if (callable_names(u, &ns) == 0)
        for (size_t i = 0; i < ns.n; i++) {
            size_t d = distance(f, ns.v[i]);
            if (d < best) {
                best = d;
                pick = ns.v[i];
            }
        }
    if (pick && best <= limit)
        fprintf(stderr, "objrt: did you mean '%s'? (objrt call --list FILE... lists them all)\n",
                pick);
    else
        fprintf(stderr, "objrt: objrt call --list FILE... lists the functions the unit has\n");
    free_names(&ns);
}

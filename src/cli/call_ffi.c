/* call_ffi.c - `objrt call` on a TVM-FFI unit (TVM 0.21-0.26): the function is
 * __tvm_ffi_FUNC (a system-lib prefix optional; 0.21: FUNC), without -f the entry
 * (__tvm_ffi_main; 0.21: the function __tvm_main__ names); tensors are passed as DLTensor
 * pointers (type index 7); a raised error is printed as "<kind>: <message>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "cli.h"
#include "objrt/tvm_ffi.h"

typedef struct ffi_call {
    TVMFFIObjectHandle f;
    TVMFFIAny *args;
    int nargs;
} ffi_call;

int call_ffi_wanted(objrt_unit *u, const char *func)
{
    char sym[512];
    snprintf(sym, sizeof sym, "__tvm_ffi_%s", func ? func : "main");
    return objrt_ffi_unit(u) || objrt_unit_sym(u, sym) != NULL;
}

static int call_once(const void *p)
{
    const ffi_call *c = p;
    TVMFFIAny ret = { .type_index = kTVMFFINone };
    int rc = TVMFFIFunctionCall(c->f, c->args, c->nargs, &ret);
    if (rc == 0 && ret.type_index >= kTVMFFIStaticObjectBegin)
        TVMFFIObjectDecRef(ret.v_obj);        /* a result nobody reads */
    return rc;
}

int call_ffi_run(objrt_unit *u, const char *func, DLTensor **t, int n, long repeat)
{
    ffi_call c = { .nargs = n };
    char err[2048];
    const char *name = func ? func : "__tvm_ffi_main";
    int rc = 0;
    if (objrt_ffi_func(u, func, &c.f) != 0) {
        objrt_ffi_error_text(err, sizeof err);
        fprintf(stderr, "objrt: %s%s: %s\n", func ? "-f " : "no -f FUNC given: ", name, err);
        return EXIT_NOENTRY;
    }
    if (!(c.args = calloc((size_t)n + 1, sizeof *c.args))) {
        fprintf(stderr, "objrt: out of memory\n");
        TVMFFIObjectDecRef(c.f);
        return EXIT_OBJRT;
    }
    for (int i = 0; i < n; i++)
        c.args[i] = (TVMFFIAny){ .type_index = kTVMFFIDLTensorPtr, .v_ptr = t[i] };
    if (repeat ? cli_repeat_timed(call_once, &c, repeat, name, "call") : call_once(&c)) {
        if (!objrt_ffi_error_text(err, sizeof err) && !err[0])
            snprintf(err, sizeof err, "RuntimeError: %s returned an error and raised none", name);
        fprintf(stderr, "objrt: %s failed: %s\n", name, err);
        rc = EXIT_KERNEL;
    }
    free(c.args);
    TVMFFIObjectDecRef(c.f);
    return rc;
}

typedef struct ffi_names {
    char **v;
    size_t n, cap;
    int plain;                    /* TVM 0.21: unprefixed names */
} ffi_names;

/* __tvm_ffi_NAME symbols, NAME kept (__tvm_ffi__* are tvm-ffi's own: context, binary);
 * for 0.21, every name not starting with "__". */
static int collect(void *data, const char *name, void *addr)
{
    ffi_names *ns = data;
    (void)addr;
    if (ns->plain ? strncmp(name, "__", 2) == 0 :
        strncmp(name, "__tvm_ffi_", 10) != 0 || name[10] == '_' || !name[10] ||
        strcmp(name, "__tvm_ffi_library_ctx") == 0)   /* TVM 0.21's context */
        return 0;
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? 2 * ns->cap : 32;
        char **grown = realloc(ns->v, cap * sizeof *grown);
        if (!grown)
            return 1;
        ns->v = grown;
        ns->cap = cap;
    }
    return (ns->v[ns->n] = strdup(ns->plain ? name : name + 10)) ? (ns->n++, 0) : 1;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int call_ffi_list(objrt_unit *u)
{
    ffi_names ns = { 0 };
    int rc = objrt_unit_foreach_sym(u, collect, &ns) == 0 ? 0 : EXIT_OBJRT;
    if (!rc && !ns.n && !objrt_ffi_unit(u))
        return -2;                          /* no TVM-FFI function: not a TVM-FFI unit */
    if (!rc && !ns.n) {
        ns.plain = 1;
        rc = objrt_unit_foreach_sym(u, collect, &ns) == 0 ? 0 : EXIT_OBJRT;
    }
    if (rc)
        fprintf(stderr, "objrt: --list: out of memory\n");
    if (ns.n)
        qsort(ns.v, ns.n, sizeof *ns.v, cmp_name);
    for (size_t i = 0; i < ns.n; i++) {
        TVMFFIObjectHandle f = NULL;
        char err[256];
        if (!rc && objrt_ffi_func(u, ns.v[i], &f) == 0)   /* functions only, as -f takes them */
            printf("%-40s TVM-FFI (%s%s)%s\n", ns.v[i], ns.plain ? "TVM 0.21: " : "__tvm_ffi_",
                   ns.v[i], strcmp(ns.v[i], "main") == 0 ? "; the default" : "");
        else
            objrt_ffi_error_text(err, sizeof err);
        TVMFFIObjectDecRef(f);
        free(ns.v[i]);
    }
    free(ns.v);
    return rc;
}

/* t_names.c - names of any length compared whole (issue 40, item 1; base/names.h).
 * usage: t_names FFI_UNIT.o SYSLIB_UNIT.o
 * Globals, a TVM-FFI unit's functions and an old-ABI system-lib prefix, each 600 bytes
 * before the bytes that tell two names apart: each name must reach its own function, and
 * a name nobody registered must be an error. The control runs the globals check through a
 * lookup that cuts names at 511 bytes (what objrt did) and must see it fail. And one case
 * of the rule of registrations called as code (issue 40, the module registry's lookup). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objrt.h"
#include "objrt/tvm_backend.h"
#include "objrt/tvm_ffi.h"
#include "report.h"
#include "long_names.h"

#define GLOBAL(tag) "probe3.global." LONG600 tag

static char why[1024];
static objrt_unit *ffi_unit, *syslib_unit;

typedef int (*lookup_fn)(TVMFFIObjectHandle mod, const char *name, TVMFFIObjectHandle *out);

static int real_lookup(TVMFFIObjectHandle mod, const char *name, TVMFFIObjectHandle *out)
{
    return TVMFFIEnvModLookupFromImports(mod, name, out);
}

static int cut_lookup(TVMFFIObjectHandle mod, const char *name, TVMFFIObjectHandle *out)
{
    char cut[512];
    snprintf(cut, sizeof cut, "%s", name);
    return TVMFFIEnvModLookupFromImports(mod, cut, out);
}

static int answer_of(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)a; (void)n;
    r->type_index = kTVMFFIInt;
    r->zero_padding = 0;
    r->v_int64 = (int64_t)(intptr_t)self;
    return 0;
}

static int64_t call0(TVMFFIObjectHandle f)
{
    TVMFFIAny r = { .type_index = kTVMFFINone };
    if (TVMFFIFunctionCall(f, NULL, 0, &r) != 0 || r.type_index != kTVMFFIInt)
        return -1;
    return r.v_int64;
}

/* The kind of the error raised last ("" when none), moved out. */
static const char *raised_kind(void)
{
    static char kind[64];
    TVMFFIObjectHandle e = NULL;
    TVMFFIErrorMoveFromRaised(&e);
    if (!e)
        return "";
    const TVMFFIErrorCell *cell = (const void *)((char *)e + sizeof(TVMFFIObject));
    snprintf(kind, sizeof kind, "%.*s", (int)cell->kind.size, cell->kind.data);
    TVMFFIObjectDecRef(e);
    return kind;
}

static int register_globals(void)
{
    static int done;
    const char *names[] = { GLOBAL("_a"), GLOBAL("_b") };
    for (int i = 0; i < 2 && !done; i++) {
        TVMFFIObjectHandle f = NULL;
        TVMFFIByteArray n = { names[i], strlen(names[i]) };
        if (TVMFFIFunctionCreate((void *)(intptr_t)(i + 1), answer_of, NULL, &f) != 0 ||
            TVMFFIFunctionSetGlobal(&n, f, 0) != 0)
            return snprintf(why, sizeof why, "registering global %d failed", i), 0;
        TVMFFIObjectDecRef(f);
    }
    done = 1;
    return 1;
}

/* Global _a answers 1, _b answers 2, _c (never registered) is a RuntimeError. */
static int globals_check(lookup_fn lookup)
{
    TVMFFIObjectHandle mod = objrt_ffi_module(ffi_unit), f = NULL;
    const char *tags[] = { GLOBAL("_a"), GLOBAL("_b") };
    if (!mod || !register_globals())
        return snprintf(why, sizeof why, "no module: %s", objrt_last_error()), 0;
    for (int i = 0; i < 2; i++) {
        int rc = lookup(mod, tags[i], &f);
        int64_t got = rc == 0 && f ? call0(f) : -1;
        if (got != i + 1)
            return snprintf(why, sizeof why, "global _%c: rc %d, answered %lld, not %d (%s)",
                            'a' + i, rc, (long long)got, i + 1, raised_kind()), 0;
    }
    f = NULL;
    int rc = lookup(mod, GLOBAL("_c"), &f);
    const char *kind = raised_kind();
    if (rc == 0 || f || strcmp(kind, "RuntimeError") != 0)
        return snprintf(why, sizeof why, "unregistered global _c: rc %d, function %p, raised '%s' "
                        "(expected RuntimeError)", rc, f, kind), 0;
    return 1;
}

static int t_globals(void) { return globals_check(real_lookup); }

static int t_unit_functions(void)
{
    const char *names[] = { LONG600 "_a", LONG600 "_b" };
    for (int i = 0; i < 2; i++) {
        TVMFFIObjectHandle f = NULL;
        int rc = objrt_ffi_func(ffi_unit, names[i], &f);
        int64_t got = rc == 0 ? call0(f) : -1;
        if (f)
            TVMFFIObjectDecRef(f);
        if (got != i + 1)
            return snprintf(why, sizeof why, "function _%c: rc %d, answered %lld, not %d (%s)",
                            'a' + i, rc, (long long)got, i + 1, raised_kind()), 0;
    }
    TVMFFIObjectHandle f = NULL;
    if (objrt_ffi_func(ffi_unit, LONG600 "_c", &f) == 0 || f)
        return snprintf(why, sizeof why, "function _c, which the unit lacks, was found"), 0;
    raised_kind();
    return 1;
}

/* ffi.ModuleGetFunction(module, name, false) with the long names. */
static int t_module_get_function(void)
{
    TVMFFIByteArray g = { "ffi.ModuleGetFunction", 21 };
    TVMFFIObjectHandle get = NULL, mod = objrt_ffi_module(ffi_unit);
    const char *names[] = { LONG600 "_a", LONG600 "_b", LONG600 "_c" };
    if (TVMFFIFunctionGetGlobal(&g, &get) != 0 || !get || !mod)
        return snprintf(why, sizeof why, "no ffi.ModuleGetFunction or module"), 0;
    for (int i = 0; i < 3; i++) {
        TVMFFIAny a[3] = { { .type_index = kTVMFFIModule, .v_obj = mod },
                           { .type_index = kTVMFFIRawStr, .v_c_str = names[i] },
                           { .type_index = kTVMFFIBool, .v_int64 = 0 } };
        TVMFFIAny r = { .type_index = kTVMFFINone };
        int rc = TVMFFIFunctionCall(get, a, 3, &r);
        int64_t got = rc == 0 && r.type_index == kTVMFFIFunction ? call0(r.v_obj) : -1;
        if (r.type_index >= kTVMFFIStaticObjectBegin && r.v_obj)
            TVMFFIObjectDecRef(r.v_obj);
        if (got != (i < 2 ? i + 1 : -1) || (i == 2 && (rc != 0 || r.type_index != kTVMFFINone)))
            return snprintf(why, sizeof why, "name _%c: rc %d, type %d, answered %lld", 'a' + i,
                            rc, (int)r.type_index, (long long)got), 0;
    }
    TVMFFIObjectDecRef(get);
    return 1;
}

/* A registration of data under a function's name is refused, never handed out as code. */
static int t_registered_data(void)
{
    TVMFFIObjectHandle f = NULL;
    int rc = objrt_ffi_func(ffi_unit, "not_code", &f);
    const char *kind = raised_kind();
    if (rc == 0 || f || strcmp(kind, "RuntimeError") != 0)
        return snprintf(why, sizeof why, "rc %d, function %p, raised '%s': the registered "
                        "read-only data was handed out as a function", rc, f, kind), 0;
    return 1;
}

static int t_syslib_prefix(void)
{
    TVMFunctionHandle h = objrt_tvm_func(syslib_unit, "fn");
    TVMValue ret = { 0 };
    int code = 0;
    if (!h || TVMFuncCall(h, NULL, NULL, 0, &ret, &code) != 0)
        return snprintf(why, sizeof why, "fn: %s", objrt_last_error()), 0;
    if (ret.v_int64 != 7)
        return snprintf(why, sizeof why, "fn answered %lld: the unprefixed registration, not "
                        "\"<600-byte prefix>fn\" (7)", (long long)ret.v_int64), 0;
    return 1;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {
        "long global names: each its own function",
        "long function names of a TVM-FFI unit: each its own",
        "ffi.ModuleGetFunction with long names",
        "a 600-byte system-lib prefix is kept whole",
        "TVM-FFI: a registered data pointer is not a function",
        "HARNESS a lookup that cuts names at 511 bytes is caught", NULL };
    t_declare(names);
    if (argc != 3)
        return fprintf(stderr, "usage: t_names FFI_UNIT.o SYSLIB_UNIT.o\n"), 2;
    objrt_ctx *ctx = objrt_new();
    const char *p1[] = { argv[1] }, *p2[] = { argv[2] };
    if (!(ffi_unit = objrt_load(ctx, p1, 1)) || !(syslib_unit = objrt_load(ctx, p2, 1)))
        return fprintf(stderr, "load: %s\n", objrt_error(ctx)), 2;
    t_run(names[0], t_globals, why);
    t_run(names[1], t_unit_functions, why);
    t_run(names[2], t_module_get_function, why);
    t_run(names[3], t_syslib_prefix, why);
    t_run(names[4], t_registered_data, why);
    if (t_selected(names[5] + 8)) {
        int caught = !globals_check(cut_lookup);
        t_harness(names[5] + 8, caught, "the check passed through a lookup that cuts names");
    }
    objrt_free(ctx);
    return t_exit_status();
}

/* ffi_env.c - what a loaded TVM-FFI unit sees: its Module (the value of
 * __tvm_ffi__library_ctx), the DSO-mode context slots, system-lib registrations kept per
 * unit, lookups from imports, the ffi.SystemLib view, and the loader's hooks for all that. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ffi_internal.h"
#include "base/names.h"
#include "finish/unit.h"

#define CTX22 "__tvm_ffi__library_ctx"      /* TVM 0.22+ */
#define CTX21 "__tvm_ffi_library_ctx"       /* TVM 0.21 */
#define FN_PREFIX "__tvm_ffi_"
#define MAX_NESTED 16                       /* loads started from constructors, per thread */
#define WHY_LEN 1200

typedef struct ffi_reg {                    /* one TVMFFIEnvModRegister*Symbol() */
    struct ffi_reg *next;
    void *ptr;
    char name[];
} ffi_reg;

typedef struct ffi_cached {                 /* a Function handed out, owned by its module */
    struct ffi_cached *next;
    TVMFFIObjectHandle f;
    char name[];                            /* the symbol it calls */
} ffi_cached;

typedef struct ffi_module {                 /* a Module object (type 73) */
    TVMFFIObject hdr;
    struct ffi_module *next;
    objrt_unit *unit;                       /* NULL: the host's registrations, or a view */
    int syslib;                             /* an ffi.SystemLib view of every module */
    int v21;                                /* TVM 0.21: unprefixed names, __tvm_main__ */
    ffi_reg *regs;
    ffi_cached *funcs;
    char *prefix;                           /* from "<prefix>__tvm_ffi__library_ctx"; NULL: none
                                               (freed with the object) */
} ffi_module;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {                             /* an allocation header before it, as for all */
    TVMFFIObjectAllocHeader alloc;
    ffi_module mod;
} host_block = { .mod = { .hdr = { .combined_ref_count = 1ULL << 40, .type_index = kTVMFFIModule } } };
_Static_assert(offsetof(__typeof__(host_block), mod) == sizeof(TVMFFIObjectAllocHeader),
               "the host's module right after its header");
#define host_mod host_block.mod
static ffi_module *units;                   /* loaded units' modules, latest first */
static ffi_module *views;                   /* ffi.SystemLib views, one per prefix */
static ffi_reg *ctx_syms;                   /* TVMFFIEnvModRegisterContextSymbol() */

static __thread struct { objrt_unit *unit; ffi_module *mod; } loading[MAX_NESTED];
static __thread int nloading;

static void module_deleter(void *self, int flags)
{
    if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
        free(((ffi_module *)self)->prefix);
        ffi_object_free(self);
    }
}

static const char *prefix_of(const ffi_module *m)
{
    return m->prefix ? m->prefix : "";
}

static int known_locked(const void *p)
{
    if (p == &host_mod)
        return 1;
    for (ffi_module *m = units; m; m = m->next)
        if (m == p)
            return 1;
    for (ffi_module *m = views; m; m = m->next)
        if (m == p)
            return 1;
    return 0;
}

static ffi_module *unit_module_locked(const objrt_unit *unit)
{
    for (ffi_module *m = units; m; m = m->next)
        if (m->unit == unit)
            return m;
    return NULL;
}

static ffi_module *module_new_locked(objrt_unit *unit)
{
    ffi_module *m = ffi_object_new(sizeof *m, kTVMFFIModule, module_deleter);
    if (!m)
        return NULL;
    m->unit = unit;
    m->next = units;
    units = m;
    return m;
}

static ffi_reg *reg_find(ffi_reg *r, const char *name)
{
    for (; r; r = r->next)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

/* Length of the prefix of "<prefix>__tvm_ffi__library_ctx" (or the 0.21 name), or -1. */
static long ctx_prefix_len(const char *name, int *v21)
{
    size_t len = strlen(name), l22 = strlen(CTX22), l21 = strlen(CTX21);
    if (len >= l22 && strcmp(name + len - l22, CTX22) == 0)
        return *v21 = 0, (long)(len - l22);
    if (len >= l21 && strcmp(name + len - l21, CTX21) == 0)
        return *v21 = 1, (long)(len - l21);
    return -1;
}

static int reg_add_locked(ffi_reg **list, ffi_module *m, const char *name, void *ptr)
{
    ffi_reg *r = reg_find(*list, name);
    size_t len = strlen(name);
    int v21;
    long plen = ctx_prefix_len(name, &v21);
    char *prefix = NULL;
    if (m && plen >= 0 && !(prefix = strndup(name, (size_t)plen)))
        return -1;
    if (!r && (r = malloc(sizeof *r + len + 1))) {
        memcpy(r->name, name, len + 1);
        r->next = *list;
        *list = r;
    }
    if (!r) {
        free(prefix);
        return -1;
    }
    r->ptr = ptr;                            /* re-registration wins, as in tvm-ffi */
    if (prefix) {
        free(m->prefix);
        m->prefix = prefix;
        m->v21 = v21;
    }
    return 0;
}

/* ---- Lookups ---- */

typedef struct ffi_names {                  /* the names a function may be held under */
    char *s[5];
    int n;
} ffi_names;

static void names_free(ffi_names *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->s[i]);
    c->n = 0;
}

/* The i-th name, now the caller's to free. */
static char *names_take(ffi_names *c, int i)
{
    char *s = c->s[i];
    c->s[i] = NULL;
    return s;
}

/* The symbol names that may hold function `name` of a module with `prefix`, in order,
 * each whole (base/names.h); -1 when out of memory. */
static int candidates(const char *name, const char *prefix, int v21, ffi_names *out)
{
    int n = 0, ok = 1;
    if (strncmp(name, FN_PREFIX, strlen(FN_PREFIX)) == 0)
        out->s[n++] = objrt_name_join(name, NULL, NULL);
    if (prefix[0])
        out->s[n++] = objrt_name_join(FN_PREFIX, prefix, name);
    out->s[n++] = objrt_name_join(FN_PREFIX, name, NULL);
    if (v21 && prefix[0])
        out->s[n++] = objrt_name_join(prefix, name, NULL);
    if (v21)
        out->s[n++] = objrt_name_join(name, NULL, NULL);
    out->n = n;
    for (int i = 0; i < n; i++)
        ok &= out->s[i] != NULL;
    if (!ok)
        names_free(out);
    return ok ? 0 : -1;
}

static ffi_cached *cached_find_locked(ffi_module *m, const char *sym)
{
    for (ffi_cached *c = m->funcs; c; c = c->next)
        if (strcmp(c->name, sym) == 0)
            return c;
    return NULL;
}

/* A registration among every module (a system-lib view): the host's, then units' (latest
 * first), each tried with every name it may hold the function under. The name it was found
 * under goes to *sym (the caller frees it). -1 when out of memory. */
static int view_find_locked(const ffi_module *view, const char *name, ffi_module **owner,
                            char **sym, void **code)
{
    ffi_names cand;
    *code = NULL;
    for (ffi_module *m = &host_mod; m; m = m == &host_mod ? units : m->next) {
        if (candidates(name, prefix_of(view), m->v21, &cand) < 0)   /* 0.21: unprefixed */
            return -1;
        for (int i = 0; i < cand.n && !*code; i++) {
            ffi_reg *r = reg_find(m->regs, cand.s[i]);
            if (r && r->ptr) {
                *owner = m;
                *sym = names_take(&cand, i);
                *code = r->ptr;
            }
        }
        names_free(&cand);
        if (*code)
            break;
    }
    return 0;
}

/* The code of function `name` of m and the module owning it: registrations, then the
 * unit's own symbols (looked up without our lock: the loader holds its own around our
 * hooks). A name from an input is called as code, so a symbol must be a function of the
 * unit (finish/unit.h, objrt_unit_func): when it is not, NULL with the reason in why. The
 * name it was found under goes to *sym (the caller frees it). */
static void *module_code(ffi_module *m, const char *name, ffi_module **owner, char **sym,
                         char why[WHY_LEN])
{
    ffi_names cand = { .n = 0 };
    objrt_unit *unit;                        /* of the module whose registration p is */
    void *p = NULL;
    int rc;
    *sym = NULL;
    *owner = m;
    pthread_mutex_lock(&lock);
    rc = m->syslib ? view_find_locked(m, name, owner, sym, &p)
                   : candidates(name, prefix_of(m), m->v21, &cand);
    for (int i = 0; rc == 0 && !m->syslib && i < cand.n && !p; i++) {
        ffi_reg *r = reg_find(m->regs, cand.s[i]);
        if (r && r->ptr) {
            p = r->ptr;
            *sym = names_take(&cand, i);
        }
    }
    unit = (*owner)->unit;
    pthread_mutex_unlock(&lock);
    if (rc < 0) {
        snprintf(why, WHY_LEN, "out of memory looking up a TVM-FFI function");
        return NULL;
    }
    /* called as code: a unit's registration must point at its code (finish/unit.h) */
    if (p && unit && objrt_unit_code(unit, *sym, p, why, WHY_LEN) < 0) {
        names_free(&cand);
        free(*sym);
        *sym = NULL;
        return NULL;
    }
    for (int i = 0; i < cand.n && !p && m->unit; i++) {
        int found = objrt_unit_func(m->unit, cand.s[i], &p, why, WHY_LEN);
        if (found < 0) {
            names_free(&cand);
            return NULL;
        }
        if (found)
            *sym = names_take(&cand, i);
    }
    names_free(&cand);
    return p;
}

/* A borrowed Function for `name` in m (cached in the owning module), or NULL (with a
 * reason in why when a symbol of that name is not a function). */
static TVMFFIObjectHandle module_function(ffi_module *m, const char *name, char why[WHY_LEN])
{
    ffi_module *owner = NULL;
    char *sym = NULL;
    ffi_cached *c;
    TVMFFIObjectHandle f;
    void *code;
    why[0] = '\0';
    if (!(code = module_code(m, name, &owner, &sym, why)) || !sym) {
        free(sym);
        return NULL;
    }
    size_t len = strlen(sym);
    pthread_mutex_lock(&lock);
    c = cached_find_locked(owner, sym);
    f = c ? c->f : NULL;
    pthread_mutex_unlock(&lock);
    if (f || !(f = ffi_function_of((TVMFFISafeCallType)code))) {
        free(sym);
        return f;
    }
    pthread_mutex_lock(&lock);
    if ((c = cached_find_locked(owner, sym))) {      /* another thread was first */
        pthread_mutex_unlock(&lock);
        free(sym);
        TVMFFIObjectDecRef(f);
        return c->f;
    }
    if ((c = malloc(sizeof *c + len + 1))) {
        memcpy(c->name, sym, len + 1);
        c->f = f;
        c->next = owner->funcs;
        owner->funcs = c;
    }
    pthread_mutex_unlock(&lock);
    free(sym);
    if (!c) {
        TVMFFIObjectDecRef(f);
        return NULL;
    }
    return f;
}

/* A global function, kept by m so that the reference handed out stays borrowed. */
static TVMFFIObjectHandle module_global(ffi_module *m, const char *name)
{
    TVMFFIByteArray n = { name, strlen(name) };
    TVMFFIObjectHandle f = NULL;
    char *key = objrt_name_join("global:", name, NULL);
    ffi_cached *c;
    if (!key)
        return NULL;
    pthread_mutex_lock(&lock);
    c = cached_find_locked(m, key);
    pthread_mutex_unlock(&lock);
    if (c || ffi_core_get()->get_global(&n, &f) != 0 || !f) {
        free(key);
        return c ? c->f : NULL;
    }
    pthread_mutex_lock(&lock);
    if ((c = malloc(sizeof *c + strlen(key) + 1))) {
        strcpy(c->name, key);
        c->f = f;
        c->next = m->funcs;
        m->funcs = c;
    }
    pthread_mutex_unlock(&lock);
    free(key);
    return f;                                /* out of memory: kept by nobody; rare, leaks */
}

int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char *func_name,
                                  TVMFFIObjectHandle *out)
{
    TVMFFIObjectHandle f = NULL;
    int known;
    if (!out || !func_name) {
        ffi_raise("ValueError", "TVMFFIEnvModLookupFromImports: NULL name or out");
        return -1;
    }
    pthread_mutex_lock(&lock);
    known = known_locked(library_ctx);
    pthread_mutex_unlock(&lock);
    if (!known) {
        *out = NULL;
        ffi_raise("RuntimeError", "TVMFFIEnvModLookupFromImports: %p is not a library "
                  "context of objrt (looking up %s)", library_ctx, func_name);
        return -1;
    }
    char why[WHY_LEN];
    if (!(f = module_function(library_ctx, func_name, why)) && !why[0])
        f = module_global(library_ctx, func_name);
    *out = f;
    if (why[0]) {
        ffi_raise("RuntimeError", "%s", why);
        return -1;
    }
    if (!f) {
        ffi_raise("RuntimeError", "Cannot find function %s in the imported modules or global "
                  "registry", func_name);
        return -1;
    }
    return 0;
}

int rt_ffi_get_func_from_env(void *mod, const char *name, void **out, int *rc)
{
    int known;
    pthread_mutex_lock(&lock);
    known = known_locked(mod);
    pthread_mutex_unlock(&lock);
    if (!known)
        return 0;
    *rc = TVMFFIEnvModLookupFromImports(mod, name, out);
    return 1;
}

/* ---- Registrations ---- */

int TVMFFIEnvModRegisterContextSymbol(const char *name, void *symbol)
{
    int rc;
    if (!name) {
        ffi_raise("ValueError", "TVMFFIEnvModRegisterContextSymbol: NULL name");
        return -1;
    }
    pthread_mutex_lock(&lock);
    rc = reg_add_locked(&ctx_syms, NULL, name, symbol);
    pthread_mutex_unlock(&lock);
    if (rc)
        ffi_raise("MemoryError", "TVMFFIEnvModRegisterContextSymbol: out of memory");
    return rc;
}

int TVMFFIEnvModRegisterSystemLibSymbol(const char *name, void *symbol)
{
    ffi_module *m = &host_mod;
    int rc = 0, v21;
    if (!name) {
        ffi_raise("ValueError", "TVMFFIEnvModRegisterSystemLibSymbol: NULL name");
        return -1;
    }
    pthread_mutex_lock(&lock);
    if (nloading > 0) {                      /* a unit's constructor: the unit's module */
        int top = nloading - 1;
        if (!loading[top].mod)
            loading[top].mod = module_new_locked(loading[top].unit);
        m = loading[top].mod;
    }
    if (!m || reg_add_locked(&m->regs, m, name, symbol) != 0)
        rc = -1;
    pthread_mutex_unlock(&lock);
    if (rc) {
        ffi_raise("MemoryError", "TVMFFIEnvModRegisterSystemLibSymbol: out of memory for %s", name);
        return -1;
    }
    /* linked into the host, the library context is known now */
    if (m == &host_mod && symbol && ctx_prefix_len(name, &v21) >= 0)
        *(void **)symbol = &host_mod;
    return 0;
}

/* ---- Built-in globals ---- */

static void *module_arg(const TVMFFIAny *a)
{
    int known;
    if (a->type_index != kTVMFFIModule)
        return NULL;
    pthread_mutex_lock(&lock);
    known = known_locked(a->v_obj);
    pthread_mutex_unlock(&lock);
    return known ? a->v_obj : NULL;
}

static ffi_module *view_get(const char *prefix)
{
    ffi_module *m;
    pthread_mutex_lock(&lock);
    for (m = views; m; m = m->next)
        if (strcmp(prefix_of(m), prefix) == 0)
            break;
    if (!m && (m = ffi_object_new(sizeof *m, kTVMFFIModule, module_deleter))) {
        m->syslib = 1;
        if ((m->prefix = strdup(prefix))) {
            m->next = views;
            views = m;
        } else {
            ffi_object_free(m);
            m = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return m;
}

int ffi_builtin_system_lib(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret)
{
    char *prefix = n == 1 ? ffi_arg_str(&args[0]) : strdup("");
    ffi_module *m;
    (void)self;
    if (n > 1 || !prefix) {
        free(prefix);
        ffi_raise("TypeError", "ffi.SystemLib: takes no argument or one str (the prefix)");
        return -1;
    }
    m = view_get(prefix);
    free(prefix);
    if (!m) {
        ffi_raise("MemoryError", "ffi.SystemLib: out of memory");
        return -1;
    }
    TVMFFIObjectIncRef(m);
    ret->type_index = kTVMFFIModule;
    ret->zero_padding = 0;
    ret->v_obj = &m->hdr;
    return 0;
}

int ffi_builtin_module_get_function(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret)
{
    char *name = n >= 2 ? ffi_arg_str(&args[1]) : NULL;
    ffi_module *m = n >= 2 ? module_arg(&args[0]) : NULL;
    TVMFFIObjectHandle f;
    (void)self;
    if (!m || !name || n > 3) {
        free(name);
        ffi_raise("TypeError", "ffi.ModuleGetFunction: expects (Module of objrt, str, bool)");
        return -1;
    }
    char why[WHY_LEN];
    f = module_function(m, name, why);
    if (!f && !why[0] && n == 3 && args[2].type_index <= kTVMFFIBool && args[2].v_int64)
        f = module_global(m, name);          /* query_imports: the globals are the imports */
    free(name);
    if (why[0]) {
        ffi_raise("RuntimeError", "%s", why);
        return -1;
    }
    ret->zero_padding = 0;
    if (!f) {
        ret->type_index = kTVMFFINone;
        ret->v_int64 = 0;
        return 0;
    }
    TVMFFIObjectIncRef(f);
    ret->type_index = kTVMFFIFunction;
    ret->v_obj = f;
    return 0;
}

/* ---- The loader's hooks ---- */

/* Core names a unit binds to (the process's core), and the environment's (objrt's). */
void *rt_ffi_lookup(const char *name)
{
    const ffi_core *c;
    if (strncmp(name, "TVMFFI", 6) != 0)
        return NULL;
    if (strcmp(name, "TVMFFIEnvModLookupFromImports") == 0)
        return (void *)TVMFFIEnvModLookupFromImports;
    if (strcmp(name, "TVMFFIEnvModRegisterSystemLibSymbol") == 0)
        return (void *)TVMFFIEnvModRegisterSystemLibSymbol;
    if (strcmp(name, "TVMFFIEnvModRegisterContextSymbol") == 0)
        return (void *)TVMFFIEnvModRegisterContextSymbol;
    c = ffi_core_get();
    static const struct { const char *name; size_t off; } core_names[] = {
        {"TVMFFIFunctionCall", offsetof(ffi_core, function_call)},
        {"TVMFFIObjectIncRef", offsetof(ffi_core, inc_ref)},
        {"TVMFFIObjectDecRef", offsetof(ffi_core, dec_ref)},
        {"TVMFFIErrorSetRaised", offsetof(ffi_core, set_raised)},
        {"TVMFFIErrorSetRaisedFromCStrParts", offsetof(ffi_core, set_raised_parts)},
        {"TVMFFIHandleInitOnce", offsetof(ffi_core, init_once)},
        {"TVMFFIHandleDeinitOnce", offsetof(ffi_core, deinit_once)},
    };
    for (size_t i = 0; i < sizeof core_names / sizeof core_names[0]; i++)
        if (strcmp(name, core_names[i].name) == 0)
            return *(void **)((char *)c + core_names[i].off);
    if (strcmp(name, "TVMFFIErrorSetRaisedFromCStr") == 0)
        return c->external ? (void *)c->set_raised_cstr : (void *)TVMFFIErrorSetRaisedFromCStr;
    if (strcmp(name, "TVMFFIErrorMoveFromRaised") == 0)
        return c->external ? (void *)c->move_from_raised : (void *)TVMFFIErrorMoveFromRaised;
    if (strcmp(name, "TVMFFIFunctionCreate") == 0)
        return c->external ? (void *)c->function_create : (void *)TVMFFIFunctionCreate;
    if (strcmp(name, "TVMFFIFunctionGetGlobal") == 0)
        return c->external ? (void *)c->get_global : (void *)TVMFFIFunctionGetGlobal;
    if (strcmp(name, "TVMFFIFunctionSetGlobal") == 0)
        return c->external ? (void *)c->set_global : (void *)TVMFFIFunctionSetGlobal;
    return NULL;
}

/* objrt's value of DSO-mode slot `name` ("__" + function), or NULL when it is not one. */
static void *default_slot(const char *name)
{
    for (size_t i = RT_OLD_ONLY_SLOTS; i < RT_NDSO_SLOTS; i++)   /* the runtime's list */
        if (strcmp(name, rt_dso_slots[i].name) == 0)
            return rt_dso_slots[i].addr;
    return strncmp(name, "__TVMFFI", 8) == 0 ? rt_ffi_lookup(name + 2) : NULL;
}

/* The TVM-FFI slots; a TVM-FFI unit's TVMBackend slots are the runtime's (rt_dso_slots). */
static const char *const ffi_slots[] = {
    "__TVMFFIFunctionCall", "__TVMFFIErrorSetRaisedFromCStr",
    "__TVMFFIErrorSetRaisedFromCStrParts", "__TVMFFIEnvModLookupFromImports",
    "__TVMFFIHandleInitOnce",
};
#define NFFI_SLOTS (sizeof ffi_slots / sizeof ffi_slots[0])
#define NSLOTS (NFFI_SLOTS + RT_NDSO_SLOTS - RT_OLD_ONLY_SLOTS)

/* The value for slot `name`: the host's registration, else objrt's. */
static void *slot_value_locked(const char *name)
{
    ffi_reg *r = reg_find(ctx_syms, name);
    return r ? r->ptr : default_slot(name);
}

/* Check (write == 0) or fill (write == 1) every slot the unit defines; -1 with err set when
 * one is not an aligned, writable pointer of the unit itself. */
static int slots(objrt_unit *unit, int write, char *err, size_t errlen)
{
    size_t n = NSLOTS, i = 0;
    const char **names;
    void *at, *val;
    int rc = 0;
    pthread_mutex_lock(&lock);
    for (ffi_reg *r = ctx_syms; r; r = r->next)
        n++;
    if ((names = calloc(n, sizeof *names))) {
        for (; i < NFFI_SLOTS; i++)
            names[i] = ffi_slots[i];
        for (size_t k = RT_OLD_ONLY_SLOTS; k < RT_NDSO_SLOTS; k++)
            names[i++] = rt_dso_slots[k].name;
        for (ffi_reg *r = ctx_syms; r; r = r->next)
            names[i++] = r->name;             /* registrations are never freed */
    }
    pthread_mutex_unlock(&lock);
    if (!names) {
        snprintf(err, errlen, "kernel runtime: out of memory filling TVM-FFI slots");
        return -1;
    }
    for (i = 0; i < n && rc == 0; i++) {
        int found = objrt_unit_slot(unit, names[i], sizeof(void *), true, &at, NULL, err, errlen);
        if (found < 0)
            rc = -1;
        else if (found && write) {
            pthread_mutex_lock(&lock);
            val = slot_value_locked(names[i]);
            pthread_mutex_unlock(&lock);
            if (val)
                *(void **)at = val;
        }
    }
    free(names);
    return rc;
}

int rt_ffi_before_init(objrt_unit *unit, char *err, size_t errlen)
{
    void *c22 = NULL, *c21 = NULL;
    ffi_module *m = NULL;
    if (nloading == MAX_NESTED) {
        snprintf(err, errlen, "kernel runtime: more than %d loads nested in constructors",
                 MAX_NESTED);
        return -1;
    }
    if (objrt_unit_slot(unit, CTX22, sizeof(void *), true, &c22, NULL, err, errlen) < 0 ||
        objrt_unit_slot(unit, CTX21, sizeof(void *), true, &c21, NULL, err, errlen) < 0)
        return -1;
    if (c22 || c21) {                        /* DSO mode: slots and the context now */
        ffi_core_get();
        if (slots(unit, 0, err, errlen) < 0)
            return -1;
        pthread_mutex_lock(&lock);
        m = module_new_locked(unit);
        if (m)
            m->v21 = !c22;
        pthread_mutex_unlock(&lock);
        if (!m) {
            snprintf(err, errlen, "kernel runtime: out of memory creating the TVM-FFI module");
            return -1;
        }
        slots(unit, 1, err, errlen);
        *(void **)(c22 ? c22 : c21) = m;
    }
    loading[nloading].unit = unit;
    loading[nloading].mod = m;
    nloading++;
    return 0;
}

/* Write m into every library context registered for it: each an aligned, writable pointer
 * inside the unit (all checked before the first write). */
static int publish_locked(ffi_module *m, char *err, size_t errlen)
{
    int v21;
    for (ffi_reg *r = m->regs; r; r = r->next)
        if (r->ptr && ctx_prefix_len(r->name, &v21) >= 0 &&
            (objrt_unit_extent(m->unit, r->ptr, true) < sizeof(void *) ||
             (uintptr_t)r->ptr % sizeof(void *))) {
            snprintf(err, errlen, "'%s' registered at %p must be an aligned, writable pointer "
                     "inside the unit's own sections", r->name, r->ptr);
            return -1;
        }
    for (ffi_reg *r = m->regs; r; r = r->next)
        if (r->ptr && ctx_prefix_len(r->name, &v21) >= 0)
            *(void **)r->ptr = m;
    return 0;
}

int rt_ffi_after_init(objrt_unit *unit, const rt_sym *old, char *err, size_t errlen)
{
    ffi_module *m = NULL;
    int rc = 0, v21 = 0, is21 = 0;
    if (nloading > 0 && loading[nloading - 1].unit == unit)
        nloading--;
    for (const rt_sym *s = old; s; s = s->next)   /* 0.21 registers the old way */
        is21 |= ctx_prefix_len(s->name, &v21) >= 0;
    pthread_mutex_lock(&lock);
    m = unit_module_locked(unit);
    if (is21 && !m)
        m = module_new_locked(unit);
    for (const rt_sym *s = old; is21 && m && s && rc == 0; s = s->next)
        rc = reg_add_locked(&m->regs, m, s->name, s->ptr);
    if (rc)
        snprintf(err, errlen, "kernel runtime: out of memory for TVM 0.21 registrations");
    else if (is21 && !m) {
        snprintf(err, errlen, "kernel runtime: out of memory creating the TVM-FFI module");
        rc = -1;
    } else if (m)
        rc = publish_locked(m, err, errlen);
    pthread_mutex_unlock(&lock);
    return rc;
}

void rt_ffi_unload(objrt_unit *unit)
{
    ffi_module **pp, *m = NULL;
    pthread_mutex_lock(&lock);
    for (pp = &units; *pp; pp = &(*pp)->next)
        if ((*pp)->unit == unit) {
            m = *pp;
            *pp = m->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    if (nloading > 0 && loading[nloading - 1].unit == unit)
        nloading--;
    if (!m)
        return;
    while (m->regs) {
        ffi_reg *r = m->regs;
        m->regs = r->next;
        free(r);
    }
    while (m->funcs) {
        ffi_cached *c = m->funcs;
        m->funcs = c->next;
        TVMFFIObjectDecRef(c->f);
        free(c);
    }
    m->unit = NULL;
    TVMFFIObjectDecRef(m);
}

/* ---- objrt's API ---- */

static ffi_module *find_unit(objrt_unit *unit)
{
    ffi_module *m;
    pthread_mutex_lock(&lock);
    m = unit ? unit_module_locked(unit) : NULL;
    pthread_mutex_unlock(&lock);
    return m;
}

TVMFFIObjectHandle objrt_ffi_module(objrt_unit *unit)
{
    ffi_module *m = find_unit(unit);
    if (!m)
        objrt_set_last_error("objrt_ffi_module: %p is not a loaded TVM-FFI unit", (void *)unit);
    return m;
}

int objrt_ffi_unit(objrt_unit *unit)
{
    return find_unit(unit) != NULL;
}

/* The code of the unit's function `name` (ffi_loader.c): 1 with it in *code, 0 when the
 * unit has none, -1 with an error raised (a symbol of that name that is not a function). */
int ffi_unit_code(objrt_unit *unit, const char *name, void **code)
{
    ffi_module *m, *owner = NULL;
    char *sym = NULL, why[WHY_LEN];
    pthread_mutex_lock(&lock);
    if (!(m = unit_module_locked(unit)))    /* plain C exports: a module without a context */
        m = module_new_locked(unit);
    pthread_mutex_unlock(&lock);
    if (!m) {
        ffi_raise("MemoryError", "objrt: out of memory looking up %s", name);
        return -1;
    }
    why[0] = '\0';
    *code = module_code(m, name, &owner, &sym, why);
    free(sym);
    if (why[0]) {
        ffi_raise("RuntimeError", "%s", why);
        return -1;
    }
    return *code != NULL;
}

/* Whether a loaded unit defines __tvm_ffi_<name> (C code exporting the ABI by hand). */
static int exports_ffi(objrt_unit *unit, const char *name)
{
    char *sym = objrt_name_join(FN_PREFIX, name, NULL);
    int found = sym && objrt_unit_sym(unit, sym) != NULL;
    free(sym);
    return found;
}

/* ---- an old-ABI packed function seen as a TVM-FFI Function ---- */

/* TVMFFIAny -> TVMValue and type code; -1 for a type the old ABI has no code for. */
static int to_old(const TVMFFIAny *a, TVMValue *v, int *code)
{
    switch (a->type_index) {
    case kTVMFFINone: v->v_handle = NULL; *code = kTVMNullptr; return 0;
    case kTVMFFIInt: case kTVMFFIBool: v->v_int64 = a->v_int64; *code = kTVMArgInt; return 0;
    case kTVMFFIFloat: v->v_float64 = a->v_float64; *code = kTVMArgFloat; return 0;
    case kTVMFFIOpaquePtr: v->v_handle = a->v_ptr; *code = kTVMOpaqueHandle; return 0;
    case kTVMFFIDataType: v->v_type = a->v_dtype; *code = kTVMDataType; return 0;
    case kTVMFFIDevice: v->v_device = a->v_device; *code = kDLDevice; return 0;
    case kTVMFFIDLTensorPtr: v->v_handle = a->v_ptr; *code = kTVMDLTensorHandle; return 0;
    case kTVMFFIRawStr: v->v_str = a->v_c_str; *code = kTVMStr; return 0;
    case kTVMFFITensor:                      /* the DLTensor follows the object header */
        v->v_handle = (char *)a->v_obj + sizeof(TVMFFIObject);
        *code = kTVMDLTensorHandle;
        return 0;
    default: return -1;
    }
}

#define OLD_MAX_ARGS 64

static int old_call(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret)
{
    TVMValue v[OLD_MAX_ARGS], rv = { 0 };
    int codes[OLD_MAX_ARGS], rcode = kTVMNullptr;
    if (n < 0 || n > OLD_MAX_ARGS) {
        ffi_raise("ValueError", "%s: at most %d arguments through the old ABI",
                  objrt_tvm_func_name(self), OLD_MAX_ARGS);
        return -1;
    }
    for (int32_t i = 0; i < n; i++)
        if (to_old(&args[i], &v[i], &codes[i]) != 0) {
            ffi_raise("TypeError", "%s: argument #%d has type index %d, which TVM's old packed "
                      "ABI cannot pass", objrt_tvm_func_name(self), (int)i, args[i].type_index);
            return -1;
        }
    objrt_set_last_error("%s", "");
    if (TVMFuncCall(self, v, codes, n, &rv, &rcode) != 0) {
        ffi_raise("RuntimeError", "%s", objrt_last_error()[0] ? objrt_last_error() :
                  "the kernel failed and set no error message");
        return -1;
    }
    ret->zero_padding = 0;
    switch (rcode) {
    case kTVMArgInt: ret->type_index = kTVMFFIInt; ret->v_int64 = rv.v_int64; break;
    case kTVMArgFloat: ret->type_index = kTVMFFIFloat; ret->v_float64 = rv.v_float64; break;
    case kTVMNullptr: ret->type_index = kTVMFFINone; ret->v_int64 = 0; break;
    default: ret->type_index = kTVMFFIOpaquePtr; ret->v_ptr = rv.v_handle; break;
    }
    return 0;
}

int objrt_ffi_func(objrt_unit *unit, const char *name, TVMFFIObjectHandle *out)
{
    ffi_module *m = find_unit(unit);
    TVMFFIObjectHandle f = NULL;
    const char *want = name ? name : "main";
    if (out)
        *out = NULL;
    if (!out) {
        ffi_raise("ValueError", "objrt_ffi_func: NULL out");
        return -1;
    }
    if (!m && unit && exports_ffi(unit, want)) {   /* pure C exports: no library context */
        pthread_mutex_lock(&lock);
        if (!(m = unit_module_locked(unit)))
            m = module_new_locked(unit);
        pthread_mutex_unlock(&lock);
    }
    if (!m && unit) {                        /* an old-ABI unit: its packed function, adapted */
        TVMFunctionHandle h = name ? objrt_tvm_func(unit, name) : objrt_tvm_main(unit);
        if (!h) {
            ffi_raise("RuntimeError", "%s", objrt_last_error());
            return -1;
        }
        return ffi_core_get()->function_create(h, old_call, NULL, out);
    }
    if (!m) {
        ffi_raise("RuntimeError", "objrt_ffi_func: NULL unit");
        return -1;
    }
    if (!name && m->v21) {                   /* 0.21: the function __tvm_main__ names */
        TVMFunctionHandle h = objrt_tvm_main(unit);
        if (!h) {
            ffi_raise("RuntimeError", "%s", objrt_last_error());
            return -1;
        }
        want = objrt_tvm_func_name(h);
    }
    char why[WHY_LEN];
    if (!(f = module_function(m, want, why)) && why[0]) {
        ffi_raise("RuntimeError", "%s", why);
        return -1;
    }
    if (!f) {
        ffi_raise("RuntimeError", "Cannot find function %s in %s", name ? name : FN_PREFIX "main",
                  objrt_unit_name(unit));
        return -1;
    }
    TVMFFIObjectIncRef(f);
    *out = f;
    return 0;
}

/* What the runtime's lower files reach of this one, handed to them before main: the
 * built-in globals (ffi_object.c) and the module lookup of TVMBackendGetFuncFromEnv
 * (modules.c). */
static const ffi_builtin env_builtins[] = {
    {"ffi.SystemLib", ffi_builtin_system_lib},
    {"ffi.ModuleGetFunction", ffi_builtin_module_get_function},
};

__attribute__((constructor)) static void ffi_env_register(void)
{
    ffi_core_builtins(env_builtins, sizeof env_builtins / sizeof env_builtins[0]);
    rt_modules_env_lookup(rt_ffi_get_func_from_env);
}

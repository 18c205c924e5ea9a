/* ffi_env.c - TVM-FFI's module model: a loaded unit's Module (the value of
 * __tvm_ffi__library_ctx), its system-lib registrations, the lookups a unit makes from its
 * imports, the ffi.SystemLib view, on the model both ABIs share (runtime/model.h). What a
 * load does with it is ffi_provider.c's; how the old ABI reaches it, ffi_bridge.c's. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ffi_internal.h"
#include "base/names.h"
#include "finish/unit.h"

#define FN_PREFIX "__tvm_ffi_"
#define MAX_NESTED 16                       /* loads started from constructors, per thread */
#define WHY_LEN FFI_WHY_LEN
#define IS_CTX21 1                          /* ctx_names[1]: TVM 0.21's */

typedef struct ffi_cached {                 /* a Function handed out, owned by its module */
    struct ffi_cached *next;
    TVMFFIObjectHandle f;
    char name[];                            /* the symbol it calls */
} ffi_cached;

struct ffi_module {                         /* a Module object (type 73) */
    TVMFFIObject hdr;
    rt_mod mod;                             /* in `model`: the unit (NULL: the host's
                                               registrations, or a view), registrations, the
                                               prefix (freed with the object) */
    int v21;                                /* TVM 0.21: unprefixed names, __tvm_main__ */
    ffi_cached *funcs;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {                             /* an allocation header before it, as for all */
    TVMFFIObjectAllocHeader alloc;
    ffi_module mod;
} host_block = { .mod = { .hdr = { .combined_ref_count = 1ULL << 40, .type_index = kTVMFFIModule },
                          .mod = { .handle = &host_block.mod } } };
_Static_assert(offsetof(__typeof__(host_block), mod) == sizeof(TVMFFIObjectAllocHeader),
               "the host's module right after its header");
#define host_mod host_block.mod
static const char *const ctx_names[] = { FFI_CTX22, FFI_CTX21 };
static rt_model model = { .ctx_names = ctx_names, .nctx = 2, .host = &host_mod.mod };

static __thread struct { objrt_unit *unit; ffi_module *mod; } loading[MAX_NESTED];
static __thread int nloading;

static void module_deleter(void *self, int flags)
{
    if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
        free(((ffi_module *)self)->mod.prefix);
        ffi_object_free(self);
    }
}

static const char *prefix_of(const ffi_module *m)
{
    return rt_mod_prefix(&m->mod);
}

static ffi_module *unit_module_locked(const objrt_unit *unit)
{
    rt_mod *m = rt_model_unit(&model, unit);
    return m ? m->handle : NULL;
}

static ffi_module *module_new_locked(objrt_unit *unit)
{
    ffi_module *m = ffi_object_new(sizeof *m, kTVMFFIModule, module_deleter);
    if (!m)
        return NULL;
    m->mod.handle = m;
    m->mod.unit = unit;
    if (rt_model_add_unit(&model, &m->mod) < 0) {
        ffi_object_free(m);
        return NULL;
    }
    return m;
}

static rt_reg *reg_find(rt_reg *r, const char *name)
{
    return rt_reg_find(r, NULL, name);
}

static int reg_add_locked(ffi_module *m, const char *name, void *ptr)
{
    int ctx;
    if (rt_mod_register(&model, &m->mod, name, ptr, &ctx) != 0)
        return -1;
    if (ctx >= 0)
        m->v21 = ctx == IS_CTX21;
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
    for (rt_mod *b = model.host; b; b = rt_model_next(&model, b)) {
        ffi_module *m = b->handle;
        if (candidates(name, prefix_of(view), m->v21, &cand) < 0)   /* 0.21: unprefixed */
            return -1;
        for (int i = 0; i < cand.n && !*code; i++) {
            rt_reg *r = reg_find(b->regs, cand.s[i]);
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
    rc = m->mod.syslib ? view_find_locked(m, name, owner, sym, &p)
                   : candidates(name, prefix_of(m), m->v21, &cand);
    for (int i = 0; rc == 0 && !m->mod.syslib && i < cand.n && !p; i++) {
        rt_reg *r = reg_find(m->mod.regs, cand.s[i]);
        if (r && r->ptr) {
            p = r->ptr;
            *sym = names_take(&cand, i);
        }
    }
    unit = (*owner)->mod.unit;
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
    for (int i = 0; i < cand.n && !p && m->mod.unit; i++) {
        int found = objrt_unit_func(m->mod.unit, cand.s[i], &p, why, WHY_LEN);
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
TVMFFIObjectHandle ffi_module_function(ffi_module *m, const char *name, char why[WHY_LEN])
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
    known = rt_model_known(&model, library_ctx);
    pthread_mutex_unlock(&lock);
    if (!known) {
        *out = NULL;
        ffi_raise("RuntimeError", "TVMFFIEnvModLookupFromImports: %p is not a library "
                  "context of objrt (looking up %s)", library_ctx, func_name);
        return -1;
    }
    char why[WHY_LEN];
    if (!(f = ffi_module_function(library_ctx, func_name, why)) && !why[0])
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

int TVMFFIEnvModRegisterSystemLibSymbol(const char *name, void *symbol)
{
    ffi_module *m = &host_mod;
    int rc = 0, ctx;
    if (!name) {
        ffi_raise("ValueError", "TVMFFIEnvModRegisterSystemLibSymbol: NULL name");
        return -1;
    }
    pthread_mutex_lock(&lock);
    if (nloading > 0) {                      /* a unit's constructor: the unit's module */
        int top = nloading - 1;
        if (!loading[top].mod && !(loading[top].mod = unit_module_locked(loading[top].unit)))
            loading[top].mod = module_new_locked(loading[top].unit);
        m = loading[top].mod;
    }
    if (!m || reg_add_locked(m, name, symbol) != 0)
        rc = -1;
    pthread_mutex_unlock(&lock);
    if (rc) {
        ffi_raise("MemoryError", "TVMFFIEnvModRegisterSystemLibSymbol: out of memory for %s", name);
        return -1;
    }
    /* linked into the host, the library context is known now */
    if (m == &host_mod && symbol && rt_model_ctx_prefix(&model, name, &ctx) >= 0)
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
    known = rt_model_known(&model, a->v_obj);
    pthread_mutex_unlock(&lock);
    return known ? a->v_obj : NULL;
}

static ffi_module *view_get(const char *prefix)
{
    ffi_module *m;
    pthread_mutex_lock(&lock);
    rt_mod *b = rt_model_view(&model, prefix);
    m = b ? b->handle : NULL;
    if (!m && (m = ffi_object_new(sizeof *m, kTVMFFIModule, module_deleter))) {
        m->mod.handle = m;
        m->mod.syslib = 1;
        if ((m->mod.prefix = strdup(prefix)))
            rt_model_add_view(&model, &m->mod);
        else {
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
    f = ffi_module_function(m, name, why);
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

/* ---- What a load does (ffi_provider.c's hooks) ---- */

int ffi_loading_push(objrt_unit *unit, char *err, size_t errlen)
{
    if (nloading == MAX_NESTED) {
        snprintf(err, errlen, "kernel runtime: more than %d loads nested in constructors",
                 MAX_NESTED);
        return -1;
    }
    loading[nloading].unit = unit;
    loading[nloading].mod = NULL;
    nloading++;
    return 0;
}

void ffi_loading_pop(objrt_unit *unit)
{
    if (nloading > 0 && loading[nloading - 1].unit == unit)
        nloading--;
}

ffi_module *ffi_module_open(objrt_unit *unit, int v21)
{
    ffi_module *m;
    pthread_mutex_lock(&lock);
    if ((m = module_new_locked(unit)))
        m->v21 = v21;
    pthread_mutex_unlock(&lock);
    if (m && nloading > 0 && loading[nloading - 1].unit == unit)
        loading[nloading - 1].mod = m;
    return m;
}

int ffi_module_finish(objrt_unit *unit, const rt_reg *old, char *err, size_t errlen)
{
    ffi_module *m = NULL;
    int rc = 0, ctx, is21 = 0;
    for (const rt_reg *s = old; s; s = s->next)   /* 0.21 registers the old way */
        is21 |= rt_model_ctx_prefix(&model, s->name, &ctx) >= 0;
    pthread_mutex_lock(&lock);
    m = unit_module_locked(unit);
    if (is21 && !m)
        m = module_new_locked(unit);
    for (const rt_reg *s = old; is21 && m && s && rc == 0; s = s->next)
        rc = reg_add_locked(m, s->name, s->ptr);
    if (rc)
        snprintf(err, errlen, "kernel runtime: out of memory for TVM 0.21 registrations");
    else if (is21 && !m) {
        snprintf(err, errlen, "kernel runtime: out of memory creating the TVM-FFI module");
        rc = -1;
    } else if (m)
        rc = rt_mod_publish(&model, &m->mod, err, errlen);
    pthread_mutex_unlock(&lock);
    return rc;
}

void ffi_module_close(objrt_unit *unit)
{
    ffi_module *m;
    pthread_mutex_lock(&lock);
    if ((m = unit_module_locked(unit)))
        rt_model_remove_unit(&model, &m->mod);
    pthread_mutex_unlock(&lock);
    if (!m)
        return;
    rt_regs_free(&m->mod.regs);
    while (m->funcs) {
        ffi_cached *c = m->funcs;
        m->funcs = c->next;
        TVMFFIObjectDecRef(c->f);
        free(c);
    }
    m->mod.unit = NULL;
    TVMFFIObjectDecRef(m);
}

/* ---- objrt's API ---- */

ffi_module *ffi_module_of(objrt_unit *unit, int create)
{
    ffi_module *m;
    pthread_mutex_lock(&lock);
    m = unit ? unit_module_locked(unit) : NULL;
    if (!m && unit && create)
        m = module_new_locked(unit);
    pthread_mutex_unlock(&lock);
    return m;
}

int ffi_module_v21(const ffi_module *m)
{
    return m->v21;
}

int ffi_module_known(const void *p)
{
    int known;
    pthread_mutex_lock(&lock);
    known = rt_model_known(&model, p);
    pthread_mutex_unlock(&lock);
    return known;
}

/* Calls on the unit's context, as every public function given a unit (rt_unit_enter). */
TVMFFIObjectHandle objrt_ffi_module(objrt_unit *unit)
{
    objrt_ctx *ctx = rt_unit_enter("objrt_ffi_module", unit);
    if (!ctx)
        return NULL;
    ffi_module *m = ffi_module_of(unit, 0);
    objrt_ctx_leave(ctx);
    if (!m)
        objrt_set_last_error("objrt_ffi_module: %p is not a loaded TVM-FFI unit", (void *)unit);
    return m;
}

int objrt_ffi_unit(objrt_unit *unit)
{
    objrt_ctx *ctx = rt_unit_enter("objrt_ffi_unit", unit);
    if (!ctx)
        return 0;
    int is = ffi_module_of(unit, 0) != NULL;
    objrt_ctx_leave(ctx);
    return is;
}

/* The code of the unit's function `name` (ffi_loader.c): 1 with it in *code, 0 when the
 * unit has none, -1 with an error raised (a symbol of that name that is not a function). */
int ffi_unit_code(objrt_unit *unit, const char *name, void **code)
{
    ffi_module *m, *owner = NULL;
    char *sym = NULL, why[WHY_LEN];
    if (!(m = ffi_module_of(unit, 1))) {   /* plain C exports: a module without a context */
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

/* The built-in globals, handed to ffi_object.c (below this file) before main. */
static const ffi_builtin env_builtins[] = {
    {"ffi.SystemLib", ffi_builtin_system_lib},
    {"ffi.ModuleGetFunction", ffi_builtin_module_get_function},
};

__attribute__((constructor)) static void ffi_env_register(void)
{
    ffi_core_builtins(env_builtins, sizeof env_builtins / sizeof env_builtins[0]);
}

/* modules.c - what a loaded unit looks like to TVM code: a module handle (written into
 * __tvm_module_ctx), its system-lib registrations, and packed-function handles for
 * TVMBackendGetFuncFromEnv / TVMFuncCall. Host-registered functions live in host_module. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modules.h"
#include "base/names.h"
#include "finish/unit.h"

static const char *const ctx_names[] = { "__tvm_module_ctx" };
static rt_module host_module = { .mod = { .handle = &host_module } };
static rt_model model = { .ctx_names = ctx_names, .nctx = 1, .host = &host_module.mod };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread rt_module *tl_initialising;

static rt_module *find_unit_locked(objrt_unit *unit)
{
    rt_mod *m = rt_model_unit(&model, unit);
    return m ? m->handle : NULL;
}

static int is_ctx(const char *name)
{
    int ctx;
    return rt_model_ctx_prefix(&model, name, &ctx) >= 0;
}

static int sym_add_locked(rt_module *m, const char *name, void *ptr)
{
    int ctx;
    return rt_mod_register(&model, &m->mod, name, ptr, &ctx);
}

/* A registered symbol of m: "<prefix>name" first, then "name". */
static void *registered_locked(rt_module *m, const char *name)
{
    rt_reg *s = m->mod.prefix ? rt_reg_find(m->mod.regs, m->mod.prefix, name) : NULL;
    if (!s)
        s = rt_reg_find(m->mod.regs, NULL, name);
    return s ? s->ptr : NULL;
}

static rt_func *handle_locked(rt_module *m, const char *name, TVMBackendPackedCFunc fn)
{
    size_t len = strlen(name);
    rt_func *f;
    for (f = m->funcs; f; f = f->next)
        if (f->fn == fn && strcmp(f->name, name) == 0)
            return f;
    if (!(f = malloc(sizeof *f + len + 1)))
        return NULL;
    f->fn = fn;
    memcpy(f->name, name, len + 1);
    f->next = m->funcs;
    m->funcs = f;
    return f;
}

/* A system library's registration `name`: the host's, then each unit's (latest first);
 * with the library's prefix, "<prefix>name" only, else as each module registered it. */
static void *syslib_find_locked(const rt_module *lib, const char *name, rt_module **owner)
{
    const char *prefix = rt_mod_prefix(&lib->mod);
    void *p;
    for (rt_mod *b = model.host; b; b = rt_model_next(&model, b)) {
        rt_module *m = b->handle;
        rt_reg *s = prefix[0] ? rt_reg_find(b->regs, prefix, name) : NULL;
        p = prefix[0] ? (s ? s->ptr : NULL) : registered_locked(m, name);
        if (p) {
            *owner = m;
            return p;
        }
    }
    return NULL;
}

static rt_func *refuse(const char *why, bool *refused)
{
    objrt_set_last_error("%s", why);
    *refused = true;
    return NULL;
}

/* Where a unit's code finds `name`: its registrations, its own symbols, then the host's (a
 * system library: every module's registrations). A name from an input is called as code,
 * so whatever gives it, a registration or a symbol, must be a function of the unit
 * (finish/unit.h: objrt_unit_code, objrt_unit_func); the host's are the host's own.
 * objrt_unit_*() are called without our lock held: the loader calls our hooks with its
 * own lock held, so holding ours across a call into it could deadlock. */
static rt_func *lookup(rt_module *m, const char *name, bool *refused)
{
    rt_module *owner = m;
    objrt_unit *unit;
    rt_func *f = NULL;
    void *fn;
    char why[1200];
    *refused = false;
    pthread_mutex_lock(&lock);
    fn = m->mod.syslib ? syslib_find_locked(m, name, &owner) : registered_locked(m, name);
    unit = owner->mod.unit;
    pthread_mutex_unlock(&lock);
    if (fn && unit && objrt_unit_code(unit, name, fn, why, sizeof why) < 0)
        return refuse(why, refused);
    if (!fn && !m->mod.syslib && unit && objrt_unit_func(unit, name, &fn, why, sizeof why) < 0)
        return refuse(why, refused);
    pthread_mutex_lock(&lock);
    if (!fn && !m->mod.syslib) {
        owner = &host_module;
        fn = registered_locked(owner, name);
    }
    if (fn && rt_model_known(&model, owner))          /* not unloaded while we were checking */
        f = handle_locked(owner, name, (TVMBackendPackedCFunc)fn);
    pthread_mutex_unlock(&lock);
    return f;
}

int TVMBackendRegisterSystemLibSymbol(const char *name, void *ptr)
{
    rt_module *m = tl_initialising ? tl_initialising : &host_module;
    int rc;
    if (!name) {
        objrt_set_last_error("TVMBackendRegisterSystemLibSymbol: null name");
        return -1;
    }
    pthread_mutex_lock(&lock);
    rc = sym_add_locked(m, name, ptr);
    pthread_mutex_unlock(&lock);
    if (rc != 0) {
        objrt_set_last_error("TVMBackendRegisterSystemLibSymbol: out of memory for '%s'", name);
        return -1;
    }
    /* outside a load (a system lib linked into the host) the context is known now */
    if (m == &host_module && ptr && is_ctx(name))
        *(void **)ptr = &host_module;
    return 0;
}

int objrt_register_packed(const char *name, TVMBackendPackedCFunc fn)
{
    int rc;
    if (!name || !fn) {
        objrt_set_last_error("objrt_register_packed: null name or function");
        return -1;
    }
    pthread_mutex_lock(&lock);
    rc = sym_add_locked(&host_module, name, (void *)fn);
    pthread_mutex_unlock(&lock);
    if (rc != 0)
        objrt_set_last_error("objrt_register_packed: out of memory for '%s'", name);
    return rc;
}

/* The packed function `name` of m, or NULL with the last error set: `missing` is the message
 * (a format for the name). */
static rt_func *lookup_or_error(rt_module *m, const char *name, const char *missing)
{
    bool refused = false;
    rt_func *f = m && name ? lookup(m, name, &refused) : NULL;
    if (!f && !refused)
        objrt_set_last_error(missing, name ? name : "(null)");
    return f;
}

static _Atomic(rt_env_lookup_fn) env_lookup;

void rt_modules_env_lookup(rt_env_lookup_fn fn)
{
    atomic_store_explicit(&env_lookup, fn, memory_order_release);
}

int TVMBackendGetFuncFromEnv(void *mod_node, const char *func_name, TVMFunctionHandle *out)
{
    rt_func *f = NULL;
    int known, rc;
    rt_env_lookup_fn env = atomic_load_explicit(&env_lookup, memory_order_acquire);
    if (env && env(mod_node, func_name, out, &rc))
        return rc;                           /* a TVM-FFI unit: a TVM-FFI Function */
    pthread_mutex_lock(&lock);
    known = rt_model_known(&model, mod_node);
    pthread_mutex_unlock(&lock);
    if (known)
        f = lookup_or_error(mod_node, func_name,
                            "TVMBackendGetFuncFromEnv: packed function '%s' not found");
    else
        objrt_set_last_error("TVMBackendGetFuncFromEnv: %p is not a module context of objrt "
                             "(looking up '%s')", mod_node, func_name ? func_name : "(null)");
    if (out)
        *out = f;
    return f ? 0 : -1;
}

int TVMFuncCall(TVMFunctionHandle func, TVMValue *args, int *type_codes, int num_args,
                TVMValue *ret_val, int *ret_type_code)
{
    rt_func *f = func;
    TVMValue rv;
    int rcode = kTVMNullptr;
    if (!f) {
        objrt_set_last_error("TVMFuncCall: null function handle");
        return -1;
    }
    if (rt_config_get()->check_align && rt_check_args(f->name, args, type_codes, num_args) != 0)
        return -1;
    if (f->fn(args, type_codes, num_args, ret_val ? ret_val : &rv,
              ret_type_code ? ret_type_code : &rcode, NULL) != 0)
        return -1;
    return 0;
}

/* The public functions given a unit are calls on its context (objrt.h, "Threads"): a unit
 * no longer loaded is never read, and objrt_free waits for them. NULL with the last error
 * set when the unit is not loaded or its context is closing. */
objrt_ctx *rt_unit_enter(const char *who, const objrt_unit *unit)
{
    const char *why;
    objrt_ctx *ctx = objrt_unit_call(unit, &why);
    if (!ctx)
        objrt_set_last_error("%s: unit %p: %s", who, (const void *)unit, why);
    return ctx;
}

TVMFunctionHandle objrt_tvm_func(objrt_unit *unit, const char *name)
{
    objrt_ctx *ctx = rt_unit_enter("objrt_tvm_func", unit);
    if (!ctx)
        return NULL;
    pthread_mutex_lock(&lock);
    rt_module *m = find_unit_locked(unit);
    pthread_mutex_unlock(&lock);
    TVMFunctionHandle f = lookup_or_error(m, name, "objrt_tvm_func: packed function '%s' not "
                                          "found in the unit");
    objrt_ctx_leave(ctx);
    return f;
}

/* The names are copied first: fn runs without our lock, so it may look functions up. */
int objrt_tvm_foreach_registered(objrt_unit *unit, int (*fn)(void *data, const char *name),
                                 void *data)
{
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    objrt_ctx *ctx = rt_unit_enter("objrt_tvm_foreach_registered", unit);
    if (!ctx)
        return -1;
    pthread_mutex_lock(&lock);
    rt_module *m = find_unit_locked(unit);
    for (rt_reg *s = m ? m->mod.regs : NULL; s && rc == 0; s = s->next) {
        if (is_ctx(s->name))
            continue;
        if (n == cap) {
            char **grown = realloc(names, (cap ? 2 * cap : 16) * sizeof *names);
            if (!grown) {
                rc = -1;
                break;
            }
            names = grown;
            cap = cap ? 2 * cap : 16;
        }
        if (!(names[n] = strdup(s->name)))
            rc = -1;
        else
            n++;
    }
    pthread_mutex_unlock(&lock);
    if (!m)
        rc = -1;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = fn(data, names[i]);
        free(names[i]);
    }
    free(names);
    objrt_ctx_leave(ctx);
    return rc;
}

/* The entry's name is a string of the unit's own, terminated within `extent` bytes. */
static bool unit_string(objrt_unit *unit, const char *s, size_t extent)
{
    size_t in_unit = objrt_unit_extent(unit, s, false);
    return in_unit && memchr(s, '\0', extent < in_unit ? extent : in_unit);
}

static TVMFunctionHandle tvm_main(objrt_unit *unit)
{
    const char *entry;
    rt_module *m;
    char err[256];
    void *sym;
    size_t extent = SIZE_MAX;     /* a registered name: bounded by its permission group */
    pthread_mutex_lock(&lock);
    m = find_unit_locked(unit);
    entry = m ? registered_locked(m, "__tvm_main__") : NULL;
    pthread_mutex_unlock(&lock);
    if (!entry && unit) {       /* the symbol: bounded by its own size too */
        if (objrt_unit_slot(unit, "__tvm_main__", 1, false, &sym, &extent, err, sizeof err) < 0) {
            objrt_set_last_error("objrt_tvm_main: %s", err);
            return NULL;
        }
        entry = sym;
    }
    if (!entry) {
        objrt_set_last_error("objrt_tvm_main: the unit defines no __tvm_main__");
        return NULL;
    }
    if (!unit_string(unit, entry, extent)) {
        objrt_set_last_error("objrt_tvm_main: __tvm_main__ is not a string inside the unit");
        return NULL;
    }
    return objrt_tvm_func(unit, entry);
}

TVMFunctionHandle objrt_tvm_main(objrt_unit *unit)
{
    objrt_ctx *ctx = rt_unit_enter("objrt_tvm_main", unit);
    if (!ctx)
        return NULL;
    TVMFunctionHandle f = tvm_main(unit);
    objrt_ctx_leave(ctx);
    return f;
}

TVMBackendPackedCFunc objrt_tvm_func_ptr(TVMFunctionHandle f)
{
    return f ? ((rt_func *)f)->fn : NULL;
}

const char *objrt_tvm_func_name(TVMFunctionHandle f)
{
    return f ? ((rt_func *)f)->name : "";
}

TVMModuleHandle objrt_tvm_module(objrt_unit *unit)
{
    objrt_ctx *ctx = rt_unit_enter("objrt_tvm_module", unit);
    if (!ctx)
        return NULL;
    pthread_mutex_lock(&lock);
    rt_module *m = find_unit_locked(unit);
    pthread_mutex_unlock(&lock);
    objrt_ctx_leave(ctx);
    if (!m)
        objrt_set_last_error("objrt_tvm_module: %p is not a loaded unit", (void *)unit);
    return m;
}

/* ---- for host_api.c ---- */

rt_module *rt_syslib(const char *prefix)
{
    rt_module *m;
    rt_mod *b;
    pthread_mutex_lock(&lock);
    m = (b = rt_model_view(&model, prefix)) ? b->handle : NULL;
    if (!m && (m = calloc(1, sizeof *m))) {
        m->mod.handle = m;
        m->mod.syslib = 1;
        if ((m->mod.prefix = strdup(prefix)))
            rt_model_add_view(&model, &m->mod);
        else {
            free(m);
            m = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return m;
}

rt_func *rt_module_lookup(rt_module *m, const char *name, bool *refused)
{
    return lookup(m, name, refused);
}

int rt_module_known(const void *mod)
{
    int known;
    pthread_mutex_lock(&lock);
    known = rt_model_known(&model, mod);
    pthread_mutex_unlock(&lock);
    return known;
}

rt_func *rt_host_func(const char *name, TVMBackendPackedCFunc builtin)
{
    rt_func *f = NULL;
    void *fn;
    pthread_mutex_lock(&lock);
    fn = builtin ? (void *)builtin : registered_locked(&host_module, name);
    if (fn)
        f = handle_locked(&host_module, name, (TVMBackendPackedCFunc)fn);
    pthread_mutex_unlock(&lock);
    return f;
}

/* The string a module's "__tvm_main__" names: a unit's symbol or registration (checked to
 * lie inside the unit), or a system library's registration. NULL with the last error set. */
const char *rt_module_main_name(rt_module *m)
{
    rt_module *owner = m;
    const char *entry;
    if (m->mod.unit) {
        TVMFunctionHandle h = objrt_tvm_main(m->mod.unit);
        return h ? ((rt_func *)h)->name : NULL;
    }
    pthread_mutex_lock(&lock);
    entry = m->mod.syslib ? syslib_find_locked(m, "__tvm_main__", &owner)
                      : registered_locked(m, "__tvm_main__");
    pthread_mutex_unlock(&lock);
    if (entry && owner->mod.unit && !unit_string(owner->mod.unit, entry, SIZE_MAX)) {
        objrt_set_last_error("__tvm_main__ is not a string inside the unit");
        return NULL;
    }
    if (!entry)
        objrt_set_last_error("the module registers no __tvm_main__");
    return entry;
}

/* ---- the loader's view (called from loader_hooks.c) ---- */

rt_module *rt_module_open(objrt_unit *unit)
{
    rt_module *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->mod.handle = m;
    m->mod.unit = unit;
    pthread_mutex_lock(&lock);
    if (rt_model_add_unit(&model, &m->mod) < 0) {
        pthread_mutex_unlock(&lock);
        free(m);
        return NULL;
    }
    pthread_mutex_unlock(&lock);
    m->outer = tl_initialising;               /* a constructor may load another unit */
    tl_initialising = m;
    return m;
}

rt_module *rt_module_close_init(objrt_unit *unit)
{
    rt_module *m;
    pthread_mutex_lock(&lock);
    m = find_unit_locked(unit);
    pthread_mutex_unlock(&lock);
    if (m && tl_initialising == m)
        tl_initialising = m->outer;
    return m;
}

/* Write the module handle into every context address registered for m (model.h: each
 * checked to be a writable pointer of the unit first). */
int rt_module_publish(rt_module *m, char *err, size_t errlen)
{
    int rc;
    pthread_mutex_lock(&lock);
    rc = rt_mod_publish(&model, &m->mod, err, errlen);
    pthread_mutex_unlock(&lock);
    return rc;
}

const rt_reg *rt_module_syms(objrt_unit *unit)
{
    pthread_mutex_lock(&lock);
    rt_module *m = find_unit_locked(unit);
    pthread_mutex_unlock(&lock);
    return m ? m->mod.regs : NULL;
}

void rt_module_forget(objrt_unit *unit)
{
    pthread_mutex_lock(&lock);
    rt_module *m = find_unit_locked(unit);
    if (m)
        rt_model_remove_unit(&model, &m->mod);
    pthread_mutex_unlock(&lock);
    if (!m)
        return;
    if (tl_initialising == m)
        tl_initialising = m->outer;
    rt_regs_free(&m->mod.regs);
    while (m->funcs) {
        rt_func *f = m->funcs;
        m->funcs = f->next;
        free(f);
    }
    free(m->mod.prefix);
    free(m);
}

/* fork(): a load takes this lock in the provider hooks, inside the context's lock, so the
 * loader's handler (loader/fork.c, registered at the first objrt_new, after this one)
 * takes the contexts' first; the child makes it anew (base/fork.h). */
static void fork_prepare(void) { pthread_mutex_lock(&lock); }
static void fork_parent(void) { pthread_mutex_unlock(&lock); }
static void fork_child(void) { pthread_mutex_init(&lock, NULL); }
__attribute__((constructor)) static void fork_register(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

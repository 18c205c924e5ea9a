/* modules.h - the old ABI's modules (modules.c, on the model both ABIs share: model.h),
 * used by loader_hooks.c, host_api.c and, from above, tvm_ffi/. */
#ifndef OBJRT_RT_MODULES_H
#define OBJRT_RT_MODULES_H

#include <stdbool.h>
#include "base/context.h"
#include "base/provider.h"
#include "model.h"
#include "rt_internal.h"

#pragma GCC visibility push(hidden)

typedef struct rt_func {             /* a TVMFunctionHandle */
    struct rt_func *next;
    TVMBackendPackedCFunc fn;
    char name[];
} rt_func;

typedef struct rt_module {           /* what __tvm_module_ctx points to */
    rt_mod mod;                      /* in modules.c's model (model.h): the unit, its
                                        registrations, the prefix; NULL unit: the host or a
                                        runtime.SystemLib view */
    struct rt_module *outer;         /* unit being initialised when this one started */
    rt_func *funcs;
} rt_module;

/* Start attributing registrations on this thread to a new module of `unit`. */
rt_module *rt_module_open(objrt_unit *unit);
/* Stop attributing; returns the unit's module (NULL if none). */
rt_module *rt_module_close_init(objrt_unit *unit);
/* Fill the unit's registered module-context addresses; -1 (message in err) when one is not a
 * writable pointer of the unit, and then none is written. */
int rt_module_publish(rt_module *m, char *err, size_t errlen);
void rt_module_forget(objrt_unit *unit);

/* host_api.c: the system library with `prefix` ("" for none), created on first use and
 * kept for the life of the process. NULL when out of memory. */
rt_module *rt_syslib(const char *prefix);
/* A call on the unit's context for a public function (`who`, named in the last error). */
objrt_ctx *rt_unit_enter(const char *who, const objrt_unit *unit);
/* The handle of `name` in module m (a unit, the host or a system library), or NULL; with
 * *refused set (and the last error saying what it is) when the unit defines `name` but not
 * as a function (objrt_unit_func). */
rt_func *rt_module_lookup(rt_module *m, const char *name, bool *refused);
/* Whether mod is a module handle objrt gave out (and has not forgotten). */
int rt_module_known(const void *mod);
/* A handle of host function `name` (objrt_register_packed), created on first use. */
rt_func *rt_host_func(const char *name, TVMBackendPackedCFunc builtin);
/* The function name a module's "__tvm_main__" string gives, or NULL with the last error set. */
const char *rt_module_main_name(rt_module *m);

/* crt_registry.c: a CRT system library's TVMSystemLibEntryPoint registry, registered to
 * the module being initialised; 0 (also for a unit without one), or -1 with `err` set. */
int rt_crt_register(objrt_unit *unit, char *err, size_t errlen);

/* The TVMBackendRegisterSystemLibSymbol registrations of unit's module (NULL: none): for
 * a provider above the runtime (tvm_ffi/), after the unit's constructors made them. */
const rt_reg *rt_module_syms(objrt_unit *unit);
/* loader_hooks.c: the DSO-mode slots ("__" + function) and objrt's value of each, in one
 * list: the old ABI's own first (__TVMFuncCall, __TVMAPISetLastError), then the five
 * __TVMBackend* ones that TVM-FFI units (0.22+) define too. */
#define RT_NDSO_SLOTS 7
#define RT_OLD_ONLY_SLOTS 2
extern const objrt_provided rt_dso_slots[RT_NDSO_SLOTS];
/* loader_hooks.c: register the runtime as a provider of the loader (base/provider.h), once;
 * a provider that must come after the runtime calls it before registering itself. */
void rt_register_provider(void);

#pragma GCC visibility pop
/* TVMBackendGetFuncFromEnv asks env_lookup first, when set: 1 with the result in *rc when
 * mod is its module, else 0. tvm_ffi/ffi_provider.c sets it at start-up (modules.c names nothing
 * of it). */
typedef int (*rt_env_lookup_fn)(void *mod, const char *name, void **out, int *rc);
void rt_modules_env_lookup(rt_env_lookup_fn fn);

#endif

/* ffi_internal.h - shared internals of TVM-FFI (ffi_object.c, the object/function/error
 * core; ffi_env.c, the module model; ffi_provider.c, the loader's hooks and the one table
 * of names loaded code binds to; ffi_bridge.c, between the two TVM ABIs). It stands on the
 * kernel runtime (runtime/), which names nothing of it. */
#ifndef OBJRT_FFI_INTERNAL_H
#define OBJRT_FFI_INTERNAL_H

#include <stdbool.h>
#include "objrt/tvm_ffi.h"
#include "runtime/modules.h"

#pragma GCC visibility push(hidden)

/* The core a process uses: objrt's own, or another library's (tvm_ffi.h, "One TVM-FFI per
 * process"). Every field is set; an external library's missing optional functions are
 * objrt's (built on the external ones it has). */
typedef struct ffi_core {
    int external;
    int (*function_create)(void *, TVMFFISafeCallType, void (*)(void *), TVMFFIObjectHandle *);
    int (*get_global)(const TVMFFIByteArray *, TVMFFIObjectHandle *);
    int (*set_global)(const TVMFFIByteArray *, TVMFFIObjectHandle, int);
    void (*set_raised_cstr)(const char *, const char *);
    void (*move_from_raised)(TVMFFIObjectHandle *);
    /* what a loaded unit's reference to a core name binds to */
    void *function_call, *inc_ref, *dec_ref, *set_raised, *set_raised_parts, *init_once,
         *deinit_once;
} ffi_core;
const ffi_core *ffi_core_get(void);

/* A new object (one strong, one weak reference, zeroed body) preceded by tvm-ffi's
 * allocation header, and the release of its block (ffi_object.c). */
TVMFFIObjectHandle ffi_object_new(size_t size, int32_t type_index, void (*deleter)(void *, int));
void ffi_object_free(void *obj);
/* Raise kind ("RuntimeError", ...) with a printf-style message, through the core. */
void ffi_raise(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A Function whose safe_call is `fn` itself (through the core; handle ignored by fn). */
TVMFFIObjectHandle ffi_function_of(TVMFFISafeCallType fn);
/* A string argument (RawStr, SmallStr, Str) as a NUL-terminated copy, whole, that the
 * caller frees; NULL when it is not a string, holds a NUL, or out of memory. */
char *ffi_arg_str(const TVMFFIAny *a);

/* ffi_env.c: the module model (a Module per unit, on runtime/model.h) and its lookups. */
typedef struct ffi_module ffi_module;
#define FFI_CTX22 "__tvm_ffi__library_ctx"  /* a unit's library context, TVM 0.22+ */
#define FFI_CTX21 "__tvm_ffi_library_ctx"   /* TVM 0.21's */
#define FFI_WHY_LEN 1200
/* The unit's module, or NULL; with create, made when it has none yet (NULL: out of memory). */
ffi_module *ffi_module_of(objrt_unit *unit, int create);
/* Whether p is a module handle objrt gave out (and has not forgotten). */
int ffi_module_known(const void *p);
/* Whether m's unit is TVM 0.21's (unprefixed names, __tvm_main__ names the entry). */
int ffi_module_v21(const ffi_module *m);
/* A borrowed Function for `name` in m (cached in the module owning it), or NULL, with the
 * reason in why when a symbol of that name is not a function. */
TVMFFIObjectHandle ffi_module_function(ffi_module *m, const char *name, char why[FFI_WHY_LEN]);
/* The code of a unit's function `name`: 1 (in *code), 0 none, -1 raised. */
int ffi_unit_code(objrt_unit *unit, const char *name, void **code);
/* What a load does (ffi_provider.c's hooks): the unit is the one loading on this thread
 * (-1 with err when too many loads nest in constructors) until popped; registrations
 * made meanwhile go to its module. */
int ffi_loading_push(objrt_unit *unit, char *err, size_t errlen);
void ffi_loading_pop(objrt_unit *unit);
/* A DSO-mode unit's module, made before its constructors run; NULL when out of memory. */
ffi_module *ffi_module_open(objrt_unit *unit, int v21);
/* After the constructors: the old ABI's registrations `old` adopted when they are TVM
 * 0.21's, and the module written into its registered contexts (model.h, rt_mod_publish). */
int ffi_module_finish(objrt_unit *unit, const rt_reg *old, char *err, size_t errlen);
void ffi_module_close(objrt_unit *unit);
/* ffi_bridge.c: TVMBackendGetFuncFromEnv given a TVM-FFI module: 1 and the result in *rc,
 * else 0 (the lookup modules.c asks first: rt_modules_env_lookup). */
int ffi_bridge_get_func_from_env(void *mod, const char *name, void **out, int *rc);
/* The built-in globals, created with the core. ffi_object.c, below ffi_env.c, names none of
 * ffi_env.c: ffi_env.c hands it the table at start-up (a constructor), before any core. */
typedef struct ffi_builtin {
    const char *name;
    TVMFFISafeCallType fn;
} ffi_builtin;
void ffi_core_builtins(const ffi_builtin *table, size_t n);
int ffi_builtin_system_lib(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret);
int ffi_builtin_module_get_function(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret);

#pragma GCC visibility pop
#endif

/* ffi_internal.h - shared internals of TVM-FFI (ffi_object.c, the object/function/error
 * core; ffi_env.c, modules, globals and what a load does; ffi_provider.c, how the loader
 * reaches them). It stands on the kernel runtime (runtime/), which names nothing of it. */
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

/* ffi_env.c: the loader's side (the hooks ffi_provider.c registers). */
void *rt_ffi_lookup(const char *name);
int rt_ffi_before_init(objrt_unit *unit, char *err, size_t errlen);
/* old: the unit's TVMBackendRegisterSystemLibSymbol registrations (TVM 0.21 makes them). */
int rt_ffi_after_init(objrt_unit *unit, const rt_sym *old, char *err, size_t errlen);
void rt_ffi_unload(objrt_unit *unit);
/* TVMBackendGetFuncFromEnv given a TVM-FFI module: 1 and the result in *rc, else 0. */
int rt_ffi_get_func_from_env(void *mod, const char *name, void **out, int *rc);
/* The code of a unit's function `name`: 1 (in *code), 0 none, -1 raised (ffi_env.c). */
int ffi_unit_code(objrt_unit *unit, const char *name, void **code);
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

/*
 * lookup.h - the places outside the unit a name is looked up in, in the documented order
 * (objrt.h): loaded units and objrt_define()d names, the host's libraries (host.c),
 * the functions objrt supplies (builtins.c), the compiler's helper library (libgcc.c,
 * arch/atomics_aarch64.c through the backend); and the -l search of objrt_add_library (libsearch.c).
 */
#ifndef OBJRT_SYMBOLS_LOOKUP_H
#define OBJRT_SYMBOLS_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/context.h"

/* Loaded units of ctx (newest first), then objrt_define()d names: what objrt_sym() sees.
 * The name comes with its hash (objrt_strkey_of, or a global symbol's own). */
void *objrt_sym_loaded(objrt_ctx *ctx, const objrt_strkey *name);
/* Functions objrt supplies that a static link takes from libc_nonshared (builtins.c). */
void *objrt_builtin_lookup(const char *name);

/* tls_dtors.c: C++ thread_local destructors of units. objrt_thread_atexit is the
 * __cxa_thread_atexit units bind to (dso: the unit's __dso_handle, its base).
 * objrt_tls_dtors_unload, before unit `dso` goes: the calling thread's destructors for it
 * run now; returns how many other threads' are pending (the first in *fn and *obj), 0 when
 * none. With `force` (objrt_free) it returns 0 and theirs are dropped, never called. */
int objrt_thread_atexit(void (*fn)(void *), void *obj, void *dso);
int objrt_tls_dtors_unload(void *dso, bool force, void (**fn)(void *), void **obj);

/* Every place outside the unit, in the documented order (objrt.h). */
void *objrt_lookup_external(objrt_ctx *ctx, const objrt_strkey *name);
/* Does addr, the address `name` was bound to outside the unit, start a function (STT_FUNC
 * or STT_GNU_IFUNC)? Asked of the library's GNU hash table by name, else of dladdr1; kept
 * per context while no library is loaded or unloaded. */
bool objrt_host_is_code(objrt_ctx *ctx, const objrt_strkey *name, uint64_t addr);
/* The type of the dynamic symbol `name` defined at exactly addr in the library holding
 * addr: 1 function, 0 data, -1 no such symbol there (or no way to tell without dladdr1). */
int objrt_host_kind_by_name(const char *name, size_t len, uint64_t addr);
/* Drops every answer the context keeps about the host (objrt_free). */
void objrt_host_forget(objrt_ctx *ctx);
/* libgcc_s.so.1, opened once (RTLD_LOCAL), or NULL when the system lacks it. */
void *objrt_libgcc_s(void);

void *objrt_lib_open(const char *name);         /* objrt_add_library()'s search (libsearch.c) */

/* The compiler's helper library (libgcc.c; what libgcc.a alone has: the backend's
 * host_helper, arch/atomics_aarch64.c). */
/* The libgcc.a to search, NULL when turned off or absent; *named: OBJRT_LIBGCC chose it. */
const char *objrt_libgcc_path(bool *named);
/* 1 when its symbol index names one of names, else 0; -1 (error recorded on ctx) when a
 * path OBJRT_LIBGCC named is not a readable regular file. */
int objrt_libgcc_defines_any(objrt_ctx *ctx, const char *path, bool named,
                             const char *const *names, size_t n);

#endif

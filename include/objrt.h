/*
 * objrt.h - load ELF relocatable objects and static archives into the running process
 *
 * SYNOPSIS
 *     #include <objrt.h>
 *     cc ... $(pkg-config --cflags --libs objrt)
 *
 *     objrt_ctx  *objrt_new(void);
 *     void        objrt_free(objrt_ctx *ctx);
 *     objrt_unit *objrt_load(objrt_ctx *ctx, const char *const *paths, size_t n);
 *     objrt_unit *objrt_load_memory(objrt_ctx *ctx, const objrt_input *in, size_t n);
 *     void       *objrt_sym(objrt_ctx *ctx, const char *name);
 *     void       *objrt_unit_sym(objrt_unit *unit, const char *name);
 *     int         objrt_define(objrt_ctx *ctx, const char *name, void *addr);
 *     int         objrt_add_library(objrt_ctx *ctx, const char *name);
 *     int         objrt_set_resolver(objrt_ctx *ctx, objrt_resolver fn, void *data);
 *     int         objrt_unload(objrt_unit *unit);
 *     const char *objrt_error(objrt_ctx *ctx);
 *     const char *objrt_unit_name(const objrt_unit *unit);
 *     int         objrt_unit_export(objrt_unit *unit);
 *     int         objrt_unit_stats(const objrt_unit *unit, objrt_stats *out);
 *     int         objrt_set_options(objrt_ctx *ctx, const objrt_options *opt);
 *     int         objrt_memory_usage(objrt_ctx *ctx, objrt_memory *out);
 *     int         objrt_layout_report(objrt_ctx *ctx, const char *const *paths, size_t n,
 *                                     void *out);
 *     size_t      objrt_unit_dependants(objrt_unit *unit);
 *     int         objrt_unit_foreach_sym(objrt_unit *unit, objrt_sym_visitor fn, void *data);
 *     int         objrt_addr_info(objrt_ctx *ctx, const void *addr, objrt_location *info);
 *     void        objrt_crash_report(int fd, int sig, const void *siginfo, const void *uc);
 *     int         objrt_crash_handler_install(void);
 *     int         objrt_tvm_ffi_loader(char *err, size_t errlen);
 *     const char *objrt_version(void);
 *
 * DESCRIPTION
 *     A context owns loaded units, the symbols defined with objrt_define() and the shared
 *     libraries added with objrt_add_library(). objrt_load() links any mix of ELF relocatable
 *     objects (.o) and ar archives (.a) as ONE unit, the way `ld` would link them into one
 *     image: references between the inputs resolve to each other, and an archive member is
 *     pulled in only when it defines a symbol that is still undefined (repeated to a fixed
 *     point, so archive order does not matter). A tar file, as TVM's export_library("x.tar")
 *     writes one, is read like this everywhere (objrt_load, objrt_load_memory, the CLI):
 *     every object (*.o) member joins the unit. The unit is then placed in a single address
 *     reservation (or, for a small unit with pack_small, in chunks of pages it shares with
 *     other small units: see objrt_memory below), relocated, given its final page
 *     permissions (never writable and executable at once), its .eh_frame registered with the unwinder, and its constructors
 *     run in the order a static link would run them: the .init_array that ld builds from
 *     .init_array.N and .ctors.N sections by priority, then the plain .init_array and
 *     .ctors sections in input order (entries of a .ctors section reversed).
 *
 *     COMDAT section groups (C++ template instances and inline functions) are deduplicated
 *     as ld does: the first group of a signature, in input order (archive members in the
 *     order they are pulled), is kept; later groups of that signature are dropped with
 *     their relocations, and references to their symbols bind to the kept group's (a
 *     global defined only in a dropped group is undefined, a weak one is 0).
 *     objrt_unit_stats() reports what was dropped.
 *
 *     An undefined symbol is bound, in this order, to: a definition in the unit itself
 *     (_GLOBAL_OFFSET_TABLE_ and __dso_handle are the loader's own), a global definition
 *     in an earlier unit of the context (latest first), a symbol given to objrt_define(),
 *     objrt's builtins (atexit, at_quick_exit, pthread_atfork, __stack_chk_fail_local:
 *     what a static link takes from libc_nonshared.a; objrt's register handlers against the
 *     calling unit), the kernel runtime's exported ABI
 *     (TVMBackend* and friends, see <objrt/tvm_backend.h>), the host process
 *     (dlsym(RTLD_DEFAULT)), then each library added with objrt_add_library() in the order
 *     added, then the resolver set with objrt_set_resolver(), then the compiler's support
 *     library libgcc_s.so.1 (opened once, privately). A strong reference still undefined
 *     is then looked up in the compiler's static helper library libgcc.a, whose members
 *     join the unit as an archive's would (as `gcc` links -lgcc): the path the building
 *     compiler reported, or the environment variable OBJRT_LIBGCC (a path; "none" or ""
 *     turns this off); on AArch64 objrt finally supplies gcc's outline atomics
 *     (__aarch64_ldadd4_acq_rel, ...) itself. An undefined weak symbol that none of these
 *     define resolves to address 0. A thread-local reference is bound by glibc's dynamic
 *     linker instead (see docs/design.md, Thread-local storage).
 *
 *     objrt_sym() searches the global symbols of every loaded unit, latest first, then the
 *     symbols given to objrt_define(). objrt_unit_sym() searches the global (and weak)
 *     definitions of one unit only; local (static) symbols are never exported.
 *
 *     objrt_unload() first runs the functions the unit registered with atexit(),
 *     __cxa_atexit() or at_quick_exit() (__cxa_finalize() on the unit's DSO handle, latest
 *     first; its pthread_atfork handlers are dropped), then its destructors (the
 *     .fini_array ld would build from .fini_array and legacy .dtors sections, last entry
 *     first); neither runs when the context's options say no_constructors. It then
 *     deregisters the unit's unwind and debugger information, returns its memory to the
 *     system (a shared page: when its last unit is unloaded; a reservation of its own: see
 *     "Reservations kept for the next load" below) and closes its thread-local storage
 *     (glibc frees the unit's blocks in every thread).
 *     It refuses (returns -1, nothing changed) while a later unit is bound to the unit:
 *     one whose undefined symbols were resolved, at load time, to an address inside it.
 *     The error names that dependant and the symbol ("cannot unload a.o: b.o is bound to
 *     it ('f'); unload b.o first"); objrt_unit_dependants() counts them. Addresses taken
 *     at run time (objrt_sym() results, function pointers handed over) are not tracked.
 *     objrt_free() unloads newest first, so it never refuses.
 *
 *     Each unit is announced to debuggers through GDB's JIT interface
 *     (__jit_debug_register_code): gdb sees the unit's functions, locals included, and,
 *     for objects compiled with -g, their source lines and variables, and forgets them on
 *     unload. OBJRT_GDB_JIT=0 in the environment turns this off. The unit keeps, per
 *     object, a copy of its section headers, symbols, DWARF and .eh_frame (not its code or
 *     data) for gdb, objrt_addr_info() and crash reports. OBJRT_PERF_MAP=1 appends each
 *     loaded function to /tmp/perf-PID.map for perf(1) (ignored in set-user-ID programs;
 *     the file is created mode 0600, never through a symbolic link, and written only when
 *     it is a regular file of the caller's own that no one else can read; control
 *     characters in names are written as \xHH).
 *
 *     A context may be used from several threads; loads are serialised per context. Its
 *     lifecycle, which the Python package follows: every function of this header,
 *     <objrt/tvm_backend.h> and <objrt/tvm_ffi.h> given a context or a unit (but
 *     objrt_error(), and objrt_addr_info() with a NULL context) is a call on that context
 *     (objrt_aot_run() until the kernel returns). objrt_free() closes the context first (a
 *     call that starts after that fails with "context is closed", returning what it returns
 *     on failure: NULL, -1, or 0 for objrt_unit_dependants()), then waits for the calls
 *     already running on it in other threads; a load among them that it overtook unloads
 *     what it made and returns NULL ("context is closed"); only then are the units unloaded
 *     and the context freed. A call made once objrt_free() has returned is undefined, as
 *     for free(); objrt_free() from inside a call on the same context (a resolver, a
 *     constructor) never returns. objrt_unload() of one unit from two threads at once
 *     unloads it once: one call returns 0, the other -1 (as for a unit unloaded already)
 *     and touches nothing.
 *
 * RETURN VALUE
 *     objrt_new() returns NULL only when out of memory. objrt_load() and
 *     objrt_load_memory() return NULL on failure, and objrt_error() then describes it,
 *     naming the file (and archive member), section, offset, relocation type and symbol
 *     concerned; nothing of the failed load stays mapped or allocated. objrt_sym() returns
 *     NULL when the name is not found (objrt_unit_sym() too), with objrt_error() set to
 *     "undefined symbol: NAME". objrt_define(), objrt_add_library(), objrt_set_resolver(),
 *     objrt_set_options(), objrt_unit_stats(), objrt_memory_usage(), objrt_layout_report()
 *     and objrt_unload() return 0 on success and -1 on failure (with objrt_error() set where there is a
 *     context to set it on).
 *
 *     objrt_error() returns the last error recorded by the calling thread on this context
 *     ("" if none); the string stays valid until that thread's next call on the context
 *     (or objrt_free() of it).
 *
 * NOTES (misuse, and inputs that change)
 *     A unit that is no longer loaded (unloaded, by this thread or another during the call,
 *     or its context freed) may be given to objrt_unload(), objrt_unit_sym(),
 *     objrt_unit_name(), objrt_unit_export(), objrt_unit_dependants(),
 *     objrt_unit_foreach_sym(), objrt_unit_stats() and the functions of
 *     <objrt/tvm_backend.h> and <objrt/tvm_ffi.h> given a unit (objrt_tvm_module(),
 *     objrt_tvm_func(), objrt_tvm_main(), objrt_tvm_foreach_registered(), objrt_aot_run(),
 *     objrt_aot_run_unpacked(), objrt_ffi_module(), objrt_ffi_unit(), objrt_ffi_func()):
 *     each finds the unit among the process's loaded units before reading it, by its
 *     address alone, and returns its failure value (-1, NULL, 0) without touching it
 *     (objrt_error() is not set: no context is left to record it on; the TVM functions set
 *     their last error), as long as no later load was given the same address (the TVM
 *     functions: unloaded before the call, not by another thread during it). Everything
 *     else of an unloaded unit is undefined, as for free(): its code and data, the strings,
 *     addresses and handles these functions returned. So is a context given to any function
 *     once objrt_free() of it has returned. A NULL unit or context gives -1/NULL.
 *     objrt_load() fails with "a path is NULL" for a NULL entry of `paths`, and both loads
 *     fail for paths/inputs NULL or n == 0; objrt_load_memory() refuses an input with NULL
 *     data or size 0.
 *     objrt_define() of a name defined before replaces its address for later loads; units
 *     already loaded keep what they were bound to. objrt_define(ctx, name, NULL) fails
 *     (-1): to bind a name to 0, reference it weakly and leave it undefined.
 *     Files are read into memory the load owns, once: a file written or truncated by
 *     someone else during the load is seen as one copy (or the load fails), so every check
 *     holds for the bytes that are used, and no SIGBUS can reach the host. Buffers given
 *     to objrt_load_memory() are used in place: they must not change during the call.
 *
 * ERRORS (examples of messages)
 *     far.o: section .text+0x1: relocation R_X86_64_32 against 'big': value does not fit
 *         unsigned 32 bits (value 0x7fa7ec8bc020, target 0x7fa7ec8bc020, place
 *         0x7fa7ec8b5001)
 *     foo.o: undefined symbol 'bar'
 *     b.o: undefined symbol 'baz'
 *         (every symbol nothing defines, one line each as ld reports them: at most 20,
 *         then "and N more undefined symbols")
 *     a.o: duplicate definition of 'f' (also defined in b.o)
 *     t.o: truncated: section header table (12 entries at 0x1c8) ends past the end of the
 *         file (0x2bc bytes)
 */
#ifndef OBJRT_H
#define OBJRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libobjrt is built with -fvisibility=hidden: what these headers declare is its public API,
 * exported; every other name of it stays inside it (libobjrt.a: local symbols). */
#pragma GCC visibility push(default)

#define OBJRT_VERSION "0.1.0"     /* the library's soname is libobjrt.so.0 */

/* The version of the library in use (OBJRT_VERSION of the headers it was built with). */
const char *objrt_version(void);

typedef struct objrt_ctx objrt_ctx;
typedef struct objrt_unit objrt_unit;

/* One input held in memory: an object, an archive ("!<arch>\n" magic) or a tar (ustar
 * magic), told apart by their bytes. `name` is used in error messages ("name(member)" for
 * a member); `data` must stay valid for the call only and need not be aligned. */
typedef struct objrt_input {
    const char *name;
    const void *data;
    size_t size;
} objrt_input;

objrt_ctx *objrt_new(void);
void objrt_free(objrt_ctx *ctx);

objrt_unit *objrt_load(objrt_ctx *ctx, const char *const *paths, size_t n);
objrt_unit *objrt_load_memory(objrt_ctx *ctx, const objrt_input *inputs, size_t n);

void *objrt_sym(objrt_ctx *ctx, const char *name);
void *objrt_unit_sym(objrt_unit *unit, const char *name);

int objrt_define(objrt_ctx *ctx, const char *name, void *addr);

/* Make a shared library's symbols available to later loads. `name` is a path (contains
 * a '/'), a soname ("libm.so.6"), or a short name as for `cc -l` ("m", "stdc++"). */
int objrt_add_library(objrt_ctx *ctx, const char *name);

/* Called with a name that nothing before it in the lookup order defines; returns its
 * address, or NULL to let the lookup go on (an error for a strong reference). Called with the
 * context's lock held, on the loading thread, possibly several times per load: it may call
 * objrt_sym() and objrt_load() on the same context (the lock is recursive) but must not
 * unload. fn = NULL removes the resolver. */
typedef void *(*objrt_resolver)(void *data, const char *name);
int objrt_set_resolver(objrt_ctx *ctx, objrt_resolver fn, void *data);

int objrt_unload(objrt_unit *unit);

const char *objrt_error(objrt_ctx *ctx);

/* ---- Units: names, symbols, dependants ---- */

/* The unit's name: its first object as given ("k.o" or "libk.a(m.o)"). */
const char *objrt_unit_name(const objrt_unit *unit);

/* Make the unit's global symbols visible to shared libraries opened (dlopen) after this
 * call, as -rdynamic does for an executable: the dynamic linker binds their undefined
 * references to the unit (an embedded interpreter importing its extension modules).
 * Returns 0 (also when already exported), or -1 with objrt_error() set. Close such
 * libraries before unloading the unit: objrt_unload() withdraws the symbols, not the
 * libraries bound to them. */
int objrt_unit_export(objrt_unit *unit);

/* Number of loaded units bound to this one (objrt_unload() refuses while it is not 0). */
size_t objrt_unit_dependants(objrt_unit *unit);

/* Calls fn for every symbol objrt_unit_sym() finds in the unit, in no particular order;
 * stops at the first non-zero return of fn and returns it (0 when all were visited, -1 on
 * bad arguments). fn runs with the context's lock held: it must not load or unload. */
typedef int (*objrt_sym_visitor)(void *data, const char *name, void *addr);
int objrt_unit_foreach_sym(objrt_unit *unit, objrt_sym_visitor fn, void *data);

/* ---- Addresses: what is loaded where (like dladdr) ---- */

typedef struct objrt_location {
    objrt_unit *unit;        /* the unit holding the address */
    const char *object;      /* "k.o" or "libk.a(m.o)"; NULL for the loader's GOT and stubs */
    const char *file;        /* input file: "k.o" or "libk.a" (NULL as above) */
    const char *member;      /* archive member "m.o", or NULL */
    const char *section;     /* ".text", ".rodata.str1.1", ".bss", "COMMON", ".got", ".stubs";
                                NULL (and every field below 0) in padding between sections */
    void *section_addr;      /* where that section starts */
    const char *symbol;      /* nearest symbol at or below the address in the same section,
                                local (static) ones included; NULL when there is none */
    void *symbol_addr;
    size_t symbol_size;      /* st_size (0 if unsized) */
    size_t offset;           /* from symbol_addr, or from section_addr without a symbol */
    int local;               /* 1 when symbol is a local (static) symbol */
} objrt_location;

/* Describe addr if it lies inside a unit of ctx (of any context when ctx is NULL).
 * Returns 0, or -1 when no loaded unit holds it (objrt_error() says so when ctx is given).
 * The strings stay valid until the unit is unloaded. */
int objrt_addr_info(objrt_ctx *ctx, const void *addr, objrt_location *info);

/* ---- Crash reports ---- */

/* Write what `objrt run` prints on a fatal signal to fd:
 *     objrt: SIGSEGV at k.o:deref+0x4 (fault address 0x0)
 *     objrt:   #0 0x7f0c2a401004 k.o:deref+0x4
 *     objrt:   #1 0x7f0c2a401021 k.o:main+0x11
 *     objrt:   #2 0x55d1c0a3b6c2 objrt(main+0x52)
 * siginfo and ucontext are a SA_SIGINFO handler's 2nd and 3rd arguments (either may be
 * NULL). Meant for signal handlers: it takes none of objrt's locks and does not allocate
 * (call objrt_crash_handler_install(), or backtrace(3) once, beforehand so the unwinder
 * is already loaded). Host frames are named through dladdr(3). */
void objrt_crash_report(int fd, int sig, const void *siginfo, const void *ucontext);

/* Install handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (on an alternate stack,
 * so a stack overflow is reported too) that write the report to stderr, then restore the
 * default action and re-raise: the process dies by the same signal. Returns 0 or -1. */
int objrt_crash_handler_install(void);

/* ---- tvm-ffi's loader of object files ---- */

/* Make objrt the loader tvm-ffi calls for "x.o", "x.a" and TVM's "x.tar"
 * (tvm_ffi.load_module, Module::LoadFromFile): registers the global functions
 * ffi.Module.load_from_file.o, .a and .tar in the process's tvm-ffi (libtvm_ffi must be
 * loaded, and libobjrt_tvm_ffi.so, built where tvm-ffi's headers are, findable). The
 * Module a load returns runs the unit's code; the unit is unloaded when the Module and its
 * Functions are freed. <objrt/tvm_ffi.h> and docs/tvm-ffi.md say more. Returns 0 (also when
 * called again), or -1 with the reason in err (errlen bytes; err may be NULL). */
int objrt_tvm_ffi_loader(char *err, size_t errlen);

/* ---- Introspection: what the planner decided (used by `objrt layout` and tests) ---- */

/* Statistics of one load, filled when the unit is linked. */
typedef struct objrt_stats {
    double link_us;          /* first byte parsed to code ready to run (constructors excluded) */
    size_t objects;          /* object files linked (archive members pulled in included) */
    size_t relocations;      /* relocations applied */
    size_t reserved_bytes;   /* size of the unit's single reservation */
    size_t used_bytes;       /* bytes of sections, GOT and stubs, without padding */
    size_t got_slots;
    size_t stubs;
    size_t stubs_used;       /* calls that actually went through a stub (others in reach) */
    size_t comdat_groups_dropped;  /* COMDAT groups dropped as duplicates of a kept group */
    size_t comdat_bytes_dropped;   /* their sections' bytes: what deduplication saved */
    size_t packed;           /* 1: the unit shares pages with others (objrt_options
                                pack_small); reserved_bytes are then its chunks' bytes */
} objrt_stats;

int objrt_unit_stats(const objrt_unit *unit, objrt_stats *out);

/* Load options set on a context, applying to later loads. */
typedef struct objrt_options {
    size_t page_size;        /* plan granule: 0 = the system's; 4096, 16384 or 65536 */
    int no_constructors;     /* 1: do not run constructors or destructors */
    int earlier_wins;        /* 1: a weak or common definition yields to a definition of
                                the same name in an earlier unit or objrt_define(), as in
                                MCJIT or the dynamic linker's global scope (JIT sessions) */
    int pack_small;          /* 1: small units share pages (see below); 0: every unit has
                                its own pages. OBJRT_PACK=0 or 1 in the environment
                                overrides this for every context */
    int no_reuse;            /* 1: an unloaded unit's reservation is unmapped at once, not
                                kept for the next load (see objrt_memory below); 0, the
                                default: kept. OBJRT_REUSE=0 or 1 in the environment
                                overrides this for every context */
} objrt_options;

int objrt_set_options(objrt_ctx *ctx, const objrt_options *opt);

/* Small units share pages (pack_small): a unit whose code, read-only data and writable
 * data each fit in 16 KiB (or one plan page, if larger) and need at most a page of
 * alignment, that has no thread-local data, and whose references allow the address the
 * arena gives it, is placed in 64-byte-granular chunks of pages shared with other small
 * units of the context instead of three pages of its own. A page is still only ever
 * read+execute, read-only or read-write: the context's arena is a memory file mapped
 * twice, and code and read-only data are written through a second mapping that is never
 * executable (and not writable once the load has written them). Writable data live in
 * private memory, so fork() copies them as usual; pages that existed at a fork are never
 * reused by either process. A page goes back to the system when its last unit is
 * unloaded. Any other unit gets its own pages as before.
 *
 * Reservations kept for the next load (unless no_reuse): a unit with pages of its own
 * leaves them to the context when it is unloaded, inaccessible (PROT_NONE: a call into
 * the unloaded code still faults) and with their contents given up (MADV_FREE: the kernel
 * takes the pages back whenever it needs memory; until it does they count in the
 * process's RSS). The context's next load takes one whose address suits its plan, if any,
 * clears every byte it does not copy (its .bss and padding read zero, as on fresh pages)
 * and saves the kernel's work of zeroing and mapping them; at its end, successful or not,
 * every reservation it did not take is unmapped. At most 4 reservations and 64 MiB of
 * address space are kept (a bigger reservation is unmapped at once, the oldest kept ones
 * make space), only between an unload and the next load, and objrt_free() unmaps them and
 * keeps nothing of what it unloads itself. After fork() each process reuses its own copy. */
typedef struct objrt_memory {
    size_t arena_blocks;          /* memory files of the arena */
    size_t arena_reserved_bytes;  /* address space they take (per mapping) */
    size_t arena_page_bytes;      /* pages holding at least one unit's chunk */
    size_t arena_chunk_bytes;     /* the chunks themselves */
    size_t spare_reservations;    /* reservations of unloaded units kept for the next load
                                     (at most 4; see above) */
    size_t spare_bytes;           /* their address space (at most 64 MiB) */
} objrt_memory;

int objrt_memory_usage(objrt_ctx *ctx, objrt_memory *out);

/* Plan without loading: writes a human-readable layout report of the inputs (what
 * `objrt layout` prints) to `out` (a FILE *). Returns 0, or -1 with objrt_error() set. */
int objrt_layout_report(objrt_ctx *ctx, const char *const *paths, size_t n, void *out);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* OBJRT_H */

/*
 * context.h - what outlives a load: the context (objrt_ctx), the units it loaded
 * (objrt_unit) and the process-wide list of them (registry.c).
 */
#ifndef OBJRT_BASE_CONTEXT_H
#define OBJRT_BASE_CONTEXT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "objrt.h"
#include "base/base.h"

enum objrt_group { GRP_RX, GRP_R, GRP_RW, GRP_COUNT };

typedef struct objrt_chunk {    /* a packed group's piece of an arena page (arena.c) */
    uint64_t addr, size;        /* where it runs; size in whole granules, 0: none */
    int64_t alias_delta;        /* RX and R bytes are written at addr + alias_delta */
    struct objrt_arena_block *block;    /* arena.c's block holding it */
} objrt_chunk;

typedef struct objrt_range {    /* [lo, lo + size) belongs to unit (unitindex.c) */
    uint64_t lo, size;
    objrt_unit *unit;
} objrt_range;

/* ---- what stays after a load (unit.c) ---- */
typedef struct objrt_fnlist {   /* constructors or destructors, in call order */
    uintptr_t *fn;
    size_t n;
} objrt_fnlist;

struct objrt_unit {
    objrt_ctx *ctx;
    objrt_unit *prev, *next;    /* the registry's list (registry.c), newest at head */
    uint8_t *base;              /* __dso_handle; packed: the lowest chunk */
    size_t size;                /* the reservation; packed: from base to the highest
                                   chunk's end, other units' chunks in between */
    bool packed;
    bool exit_handlers;         /* glibc may hold handlers registered against base: the
                                   unit refers to __dso_handle or called a builtin that
                                   registers for its caller (builtins.c); atomic */
    objrt_chunk chunks[GRP_COUNT];
    uint64_t group_off[GRP_COUNT], group_size[GRP_COUNT];
    objrt_strmap syms;          /* name -> index into addrs: global definitions only */
    uint64_t *addrs;
    uint64_t *extent;           /* bytes the loader may touch at each symbol: st_size cut at
                                   its section's end; 0 when absolute or unsized */
    uint8_t *type;              /* STT_* of each (STT_OBJECT for COMMON) */
    char *names;                /* string pool owning the names in `syms` */
    uint64_t *eh_frames;        /* registered .eh_frame addresses */
    size_t neh;
    objrt_fnlist dtors;
    objrt_stats stats;
    struct objrt_unitinfo *info; /* inputs, sections, symbols, dependencies (unitinfo.h) */
    void *tls_module;           /* dlopen handle of the unit's TLS module, or NULL */
    int tls_fd;                 /* the module's memfd, open while it is loaded */
    void *export_module;        /* objrt_unit_export(): the unit's symbols, RTLD_GLOBAL */
    int export_fd;
    struct objrt_namedef *namedefs; /* unitindex.c: its names in the context's index */
    objrt_range ranges[GRP_COUNT];  /* unitindex.c: its extent in the address index */
    size_t ndependants;         /* deps.c: later units bound to this one */
};

/* ---- reservations of unloaded units, kept for the next load (place.c) ---- */
#define OBJRT_SPARES 4                          /* at most this many at once */
#define OBJRT_SPARE_BYTES ((size_t)64 << 20)    /* and this many bytes in all */
typedef struct objrt_spare {    /* a kept reservation (PROT_NONE, place.c) or image block
                                   (heap, gdbjit.c); size 0: an empty slot */
    uint8_t *base;
    size_t size;
} objrt_spare;

/* ---- the context (api.c) ---- */
struct objrt_ctx {
    pthread_mutex_t lock;       /* serialises loads, unloads and lookups */
    objrt_errbuf *errbufs;      /* error.c: one per thread that failed on this context */
    objrt_strmap defined;       /* objrt_define(): name -> index into defined_addr */
    void **defined_addr;
    size_t ndefined, capdefined;
    void **libs;                /* dlopen handles, in the order added */
    size_t nlibs, caplibs;
    objrt_resolver resolver;    /* objrt_set_resolver(): last word before "undefined" */
    void *resolver_data;
    objrt_options opt;
    struct objrt_arena *arena;  /* arena.c: shared pages of small units, or NULL */
    objrt_spare spares[OBJRT_SPARES];  /* place.c: reservations of unloaded units */
    objrt_spare jit_spare;      /* gdbjit.c: an unloaded unit's image block, for the next */
    /* host.c: answers about the host's libraries, kept while they are what they were
     * (dl_iterate_phdr's counts host_adds and host_subs when the answers were given) */
    objrt_keymap host_kind;     /* host address -> 1 code, 0 data */
    objrt_strmap host_names;    /* dlsym(RTLD_DEFAULT)'s finds: name (owned copy) -> ... */
    void **host_addr;           /* ... index of its address here */
    size_t nhost_addr, caphost_addr;
    unsigned long long host_adds, host_subs;
    bool closing;               /* objrt_free: unloads return memory at once */
    /* The lifecycle (objrt.h, "Threads"): entry points count themselves in `calls` around
     * their work; objrt_free sets `closed`, waits for `calls` to reach 0, then frees. */
    atomic_bool closed;
    atomic_uint calls;
    /* unitindex.c: the loaded units' names (newest definition first) and address ranges */
    struct objrt_namedef **name_buckets;
    size_t name_cap, name_count;
    objrt_unit **pending;       /* loaded, names not yet in the index (oldest first) */
    size_t npending, cappending;
    void *range_tree;           /* tsearch's root: the units' objrt_range, by address */
};

/* ---- calls on a context (its lifecycle) ---- */
/* Count a call on ctx; false (uncounted, with "context is closed" recorded) once objrt_free
 * has begun: nothing more may start on it. */
bool objrt_ctx_enter(objrt_ctx *ctx);           /* registry.c */
void objrt_ctx_leave(objrt_ctx *ctx);
/* Every public entry point's frame: a counted call holding the context's lock, false (with
 * "context is closed" recorded) once objrt_free has begun; objrt_ctx_end undoes it. */
bool objrt_ctx_begin(objrt_ctx *ctx);
void objrt_ctx_end(objrt_ctx *ctx);
/* The same for an entry point given a unit: u's context, begun, when u is loaded now (it
 * is read only then) and its context open; else NULL, u untouched (an unloaded unit has
 * no context to record an error on; a closing one records "context is closed"). */
objrt_ctx *objrt_unit_begin(const objrt_unit *u);
/* A counted call on u's context without its lock, for entry points that run the unit's
 * code or keep locks of their own (the TVM runtime's): objrt_free waits for it; end it with
 * objrt_ctx_leave. NULL, with *why ("not a loaded unit", "its context is closed"), else. */
objrt_ctx *objrt_unit_call(const objrt_unit *u, const char **why);

/* ---- the loaded units of the process (registry.c) ---- */
int objrt_registry_add(objrt_unit *u);         /* 0, or -1 when out of memory */
void objrt_registry_remove(objrt_unit *u);
/* ctx's units, newest first: the one after `after` (NULL: the newest), or NULL. */
objrt_unit *objrt_registry_next(objrt_ctx *ctx, const objrt_unit *after);
bool objrt_registry_has(const objrt_unit *u);   /* registry.c: loaded now? */
/* u's context with a call counted on it (objrt_ctx_enter) when u is loaded now and the
 * context open, else NULL; read under the registry's lock, so u is not freed meanwhile. */
objrt_ctx *objrt_registry_enter(const objrt_unit *u);
void *objrt_unit_lookup(const objrt_unit *u, const char *name);
/* objrt_unit_sym(): u's `name` when u is loaded now and its context open, else NULL with
 * the reason recorded on the context (none for a unit not loaded: it is never read). */
void *objrt_registry_sym(const objrt_unit *u, const char *name);
void *objrt_units_lookup(objrt_ctx *ctx, const objrt_strkey *name);
void *objrt_dso_handle_of(const void *pc);     /* and marks that unit's exit_handlers */

/* ---- the context's indexes of its units (unitindex.c), kept by registry.c ---- */
typedef struct objrt_namedef objrt_namedef;
int objrt_index_add(objrt_unit *u);
void objrt_index_remove(objrt_unit *u);
void objrt_index_free(objrt_ctx *ctx);
/* The newest of ctx's units defining key (its address), or NULL: objrt_units_lookup. */
void *objrt_index_lookup(objrt_ctx *ctx, const objrt_strkey *key);
/* The unit of ctx holding addr (objrt_unit_holds), or NULL. */
objrt_unit *objrt_index_holding(const objrt_ctx *ctx, uint64_t addr);

/* Does u hold addr: its reservation, or for a packed unit one of its own chunks? */
static inline bool objrt_unit_holds(const objrt_unit *u, uint64_t addr)
{
    if (!u->packed)
        return addr >= (uintptr_t)u->base && addr - (uintptr_t)u->base < u->size;
    for (int g = 0; g < GRP_COUNT; g++)
        if (addr >= u->chunks[g].addr && addr - u->chunks[g].addr < u->chunks[g].size)
            return true;
    return false;
}

#endif

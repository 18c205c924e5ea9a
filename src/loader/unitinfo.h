/*
 * unitinfo.h - what a unit remembers about its inputs once they are gone: the objects it
 * was linked from, where each of their sections and symbols (locals too) landed, and which
 * earlier units it is bound to. Built once per load (unitinfo.c); read by objrt_addr_info,
 * the crash report (crash.c), unload's dependant check (deps.c) and the GDB JIT image
 * (gdbjit.c).
 */
#ifndef OBJRT_UNITINFO_H
#define OBJRT_UNITINFO_H

#include "loader/internal.h"

typedef struct objrt_info_obj {
    const char *object;         /* "k.o" or "libk.a(m.o)": how messages name it */
    const char *file;           /* "k.o" or "libk.a" */
    const char *member;         /* "m.o", or NULL outside an archive */
} objrt_info_obj;

typedef struct objrt_info_sec {
    uint64_t addr, size;
    uint32_t obj;               /* OBJRT_NONE: made by the loader (GOT, stubs) */
    const char *name;
} objrt_info_sec;

typedef struct objrt_info_sym {
    uint64_t addr, size;
    uint32_t sec;               /* index into secs */
    const char *name;
    bool local;
} objrt_info_sym;

typedef struct objrt_info_dep {  /* an earlier unit this one is bound to */
    objrt_unit *unit;
    const char *symbol;         /* the first name bound into it, for messages */
} objrt_info_dep;

struct objrt_jit_entry;

typedef struct objrt_unitinfo {
    struct objrt_unitinfo *next;        /* process registry (unitinfo.c) */
    objrt_unit *unit;
    const char *name;                   /* the unit's first object, for messages */
    char *pool;                         /* every string above and below */
    objrt_info_obj *objs;
    size_t nobjs;
    objrt_info_sec *secs;               /* sorted by address */
    size_t nsecs;
    objrt_info_sym *syms;               /* sorted by address, then preference */
    size_t nsyms;
    objrt_info_dep *deps;
    size_t ndeps;
    struct objrt_jit_entry **jit;       /* GDB registrations, one per object */
    size_t njit;
} objrt_unitinfo;

/* Built after relocation, before constructors run; NULL-safe on release. */
int objrt_unitinfo_attach(objrt_link *l, objrt_unit *u);
void objrt_unitinfo_detach(objrt_unit *u);

/* deps.c */
int objrt_deps_collect(objrt_link *l, objrt_unitinfo *info);
/* -1 with the error set when another loaded unit is bound to u (ctx->lock held). */
int objrt_deps_check_unload(objrt_unit *u);

/* gdbjit.c: one in-memory ELF per object, registered with the GDB JIT interface. */
int objrt_gdbjit_register(objrt_link *l, objrt_unitinfo *info);
void objrt_gdbjit_unregister(objrt_unitinfo *info);

/* unitinfo.c: the unit info holding addr, searched without locks (crash path), or NULL. */
const objrt_unitinfo *objrt_unitinfo_find_unlocked(const objrt_ctx *ctx, uintptr_t addr);
/* Fill a public objrt_location from a unit info. */
void objrt_unitinfo_describe(const objrt_unitinfo *ui, uintptr_t addr, objrt_location *out);

#endif

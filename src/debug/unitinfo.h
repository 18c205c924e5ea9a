/*
 * unitinfo.h - what a unit remembers about its inputs once they are gone: for each object
 * it was linked from, its name and a compact ELF image (section headers with the loaded
 * addresses, symbols with their names, DWARF and .eh_frame; gdbjit.c builds it and gives
 * the same image to gdb), the pieces the loader made itself (GOT, stubs, COMMON), and which
 * earlier units it is bound to. Read by objrt_addr_info and the crash report (unitinfo.c,
 * crash.c) and by unload's dependant check (deps.c).
 */
#ifndef OBJRT_UNITINFO_H
#define OBJRT_UNITINFO_H

#include "base/link.h"

struct objrt_jit_entry;

typedef struct objrt_info_obj {
    const char *object;         /* "k.o" or "libk.a(m.o)": how messages name it */
    const char *file;           /* "k.o" or "libk.a" */
    const char *member;         /* "m.o", or NULL outside an archive */
    struct objrt_jit_entry *jit;  /* its image (gdbjit.c) */
} objrt_info_obj;

typedef struct objrt_info_extra {  /* GOT, stubs, or a COMMON symbol */
    uint64_t addr, size;
    const char *section, *symbol;
    uint32_t obj;               /* defining object (COMMON) or OBJRT_NONE */
} objrt_info_extra;

typedef struct objrt_info_dep {  /* an earlier unit this one is bound to */
    objrt_unit *unit;
    char *symbol;               /* the first name bound into it, for messages */
} objrt_info_dep;

typedef struct objrt_unitinfo {
    struct objrt_unitinfo *next;        /* process registry (unitinfo.c) */
    struct objrt_unitinfo **pprev;      /* the pointer to this one: it leaves in one step */
    objrt_unit *unit;
    const char *name;                   /* the unit's first object, for messages */
    objrt_info_obj *objs;               /* one block: objs, extras, then their strings */
    size_t nobjs;
    objrt_info_extra *extras;
    size_t nextras;
    void *jit_block;                    /* every object's image (gdbjit.c) */
    size_t jit_block_size;
    objrt_info_dep *deps;
    size_t ndeps;
    bool jit_registered;
} objrt_unitinfo;

/* Built after relocation, before constructors run; detach is NULL-safe. */
int objrt_unitinfo_attach(objrt_link *l, objrt_unit *u);
void objrt_unitinfo_detach(objrt_unit *u);

/* deps.c */
int objrt_deps_collect(objrt_link *l, objrt_unitinfo *info);
/* -1 with the error set when another loaded unit is bound to u (ctx->lock held). */
int objrt_deps_check_unload(objrt_unit *u);

/* gdbjit.c: the images of a unit's objects, sized exactly and built in one block that
 * info owns (jit_block): object m of the link gets info->objs[slot[m]].jit, unless
 * slot[m] is OBJRT_NONE. They copy what they keep: the inputs may go once it returns.
 * Release (after unregister) gives the block back: kept by the unit's context for its next
 * load (one block), else freed. Registration with the GDB JIT interface. */
int objrt_gdbjit_build(const objrt_link *l, objrt_unitinfo *info, const uint32_t *slot);
void objrt_gdbjit_release(objrt_unitinfo *info);
const uint8_t *objrt_gdbjit_bytes(const struct objrt_jit_entry *e);
size_t objrt_gdbjit_size(const struct objrt_jit_entry *e);
void objrt_gdbjit_register(objrt_unitinfo *info);
void objrt_gdbjit_unregister(objrt_unitinfo *info);

/* unitinfo.c: the unit info holding addr, searched without locks (crash path), or NULL. */
const objrt_unitinfo *objrt_unitinfo_find_unlocked(const objrt_ctx *ctx, uintptr_t addr);
/* Fill a public objrt_location from a unit info; no allocation, no lock. */
void objrt_unitinfo_describe(const objrt_unitinfo *ui, uintptr_t addr, objrt_location *out);

/* gdbjit.c: the kept image block goes back to malloc (end of a load, objrt_free). */
void objrt_gdbjit_spare_release(objrt_ctx *ctx);
/* perfmap.c: the unit's functions for `perf` (OBJRT_PERF_MAP=1, or started by perf), and
 * the walk over them that jitdump.c shares (address, size, raw name). */
void objrt_perfmap_write(const objrt_link *l);
bool objrt_perfmap_wanted(void);
typedef void (*objrt_perf_fn)(void *arg, uint64_t addr, uint64_t size, const char *name);
void objrt_perf_funcs(const objrt_link *l, objrt_perf_fn fn, void *arg);
/* jitdump.c: with OBJRT_PERF_JITDUMP=1, each function's code into /tmp/jit-<pid>.dump for
 * `perf inject --jit` (perf annotate then shows loaded code's instructions). */
void objrt_jitdump_write(const objrt_link *l);

/* srcline.c: "file.c:12" for a code address in `object` (an objs[].object pointer of ui),
 * from its DWARF through libdw; false when there is no line (or no libdw). Allocates. */
bool objrt_srcline(const objrt_unitinfo *ui, const char *object, uintptr_t pc, char *buf,
                   size_t len);

#endif

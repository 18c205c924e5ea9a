/*
 * internal.h - the data one load carries through the pipeline, and the rooms of the loader
 *
 *   api.c       the public entry points: argument checks, the context's lock
 *   pipeline.c  the stages below in order (load, layout) and the unload
 *   input.c     bytes: files mapped, archives split into members
 *   parse.c     ELF validated into objrt_obj (no side effects)
 *   resolve.c   every undefined symbol bound; archive members pulled to a fixed point
 *               (libgcc.a last, libgcc.c; AArch64 outline atomics, atomics_aarch64.c)
 *   interpose.c optionally, weak/common definitions yield to earlier units (JIT sessions)
 *   plan.c      exact layout: offsets, GOT and stub counts, groups, the placement window
 *   place.c     one reservation inside that window (or chunks of the arena: arena.c)
 *   tls.c       thread-local storage: the unit's TLS block as a module glibc manages
 *   relocate.c  every relocation applied through the architecture's table (arch_*.c)
 *   unit.c      what stays after a load: the unit's symbols, and checked access to them
 *   protect.c   final permissions, icache, unwind registration (checked by eh_frame.c)
 *   init.c      constructors and destructors
 * shared by the stages, never calling back into them:
 *   symbols.c   the symbol model: global table, addresses, predicates, lookup outside
 *   sites.c     the relocation sites of a unit and the one relocation error format
 *   registry.c  the one list of loaded units
 *   unitinfo.c, deps.c, gdbjit.c, crash.c, lto.c  what a unit remembers for debuggers
 *   arena.c     pages that small units share: a memfd mapped for execution and for writing
 *   libsearch.c -l name search; builtins.c, perfmap.c, layout.c, reach.c, grow.c, error.c
 */
#ifndef OBJRT_INTERNAL_H
#define OBJRT_INTERNAL_H

#include <elf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "objrt.h"
#include "arch/arch.h"
#include "base/hashmap.h"

#define OBJRT_NONE UINT32_MAX
/* Bounds on what an input may ask for. Each section or COMMON symbol: at most
 * OBJRT_MAX_SECTION bytes aligned to at most OBJRT_MAX_ALIGN (parse.c). The whole unit: every
 * size and offset sum of the plan is formed with overflow builtins and refused past
 * OBJRT_MAX_UNIT, the user address space; no sum can wrap however many sections and
 * inputs there are (the section count itself is not bounded: e_shnum = 0 escapes 2^16). */
#define OBJRT_MAX_ALIGN   ((uint64_t)1 << 30)
#define OBJRT_MAX_SECTION ((uint64_t)1 << 40)
#define OBJRT_MAX_UNIT    ((uint64_t)1 << 47)

typedef struct objrt_arch objrt_arch;
typedef struct objrt_howto objrt_howto;

/* ---- memory made present ahead of the writes (input.c, place.c, gdbjit.c) ----
 * A fresh page costs a fault each when first written; MADV_POPULATE_WRITE makes a range
 * present in one call (Linux >= 5.14; older kernels refuse the advice and the writes fault
 * as before). From OBJRT_HUGE_BLOCK on, mappings start on such a boundary and their whole
 * blocks are offered to transparent huge pages: one huge page is allocated and cleared in
 * a fraction of the time 512 small ones take. Where huge pages are off the kernel uses
 * small ones: the same bytes, slower. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define OBJRT_HUGE_BLOCK ((uint64_t)2 << 20)
/* Advise the whole OBJRT_HUGE_BLOCK blocks of [base + from, base + to) (none unless base
 * starts a block). */
static inline void objrt_offer_huge(uint8_t *base, uint64_t from, uint64_t to)
{
    uint64_t lo = objrt_align_up(from, OBJRT_HUGE_BLOCK), hi = objrt_page_down(to, OBJRT_HUGE_BLOCK);
    if ((uintptr_t)base % OBJRT_HUGE_BLOCK == 0 && hi > lo)
        madvise(base + lo, hi - lo, MADV_HUGEPAGE);     /* advice: may be refused */
}

/* ---- errors (error.c) ---- */
/* Record the calling thread's error on ctx; always returns -1 for `return objrt_fail(...)`. */
int objrt_fail(objrt_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a message of several lines, each made printable by its author (escape.h). */
int objrt_fail_lines(objrt_ctx *ctx, const char *lines);
typedef struct objrt_errbuf objrt_errbuf;
void objrt_errors_release(objrt_ctx *ctx);      /* objrt_free: every thread's buffer */

/* ---- inputs (input.c) ---- */
typedef struct objrt_blob {     /* one mapped input file, released at the end of a load */
    void *map;
    size_t size;
} objrt_blob;

/* ---- a parsed relocatable object (parse.c) ---- */
typedef struct objrt_obj {
    char *name;                 /* "a.o" or "lib.a(m.o)", in the object's allocation */
    const uint8_t *data;
    size_t size;
    const Elf64_Shdr *sh;
    size_t shnum;
    const char *shstr;          /* section names, bounds-checked */
    size_t shstrsz;
    const Elf64_Sym *syms;
    size_t nsyms;
    size_t first_global;        /* symtab sh_info */
    const char *str;            /* symbol names, last byte is NUL */
    size_t strsz;
    const Elf32_Word *xindex;   /* SHT_SYMTAB_SHNDX, or NULL */
    uint32_t *sec_group;        /* group section (SHT_GROUP) of each section, 0 for none;
                                   NULL when the object has no groups */
    bool pulled;                /* part of the unit (archive members start false) */
    uint32_t index;             /* position in objrt_link.objs */
    /* filled by resolve/plan */
    uint32_t *gsym;             /* global symbol index of symbol first_global + i */
    uint64_t *sec_off;          /* offset of each section in the reservation */
    uint8_t *sec_placed;        /* 1 if the section is part of the image (after sec_off) */
    uint32_t tls_sections;      /* how many go to the TLS block: tls.c visits only these */
    uint8_t *sec_dropped;       /* 1: in a duplicate COMDAT group (comdat.c); NULL: none */
    /* what the walks over relocations ask of a symbol, answered once per symbol rather
       than once per relocation (symbols.c; the storage belongs to objrt_link.symmem) */
    uint8_t *symf;              /* SF_* of each symbol */
    uint64_t *symv;             /* address of each symbol (valid with SF_ADDR) */
} objrt_obj;

/* Section index of a symbol, following SHN_XINDEX. Reserved st_shndx values come back as
 * SEC_ABS / SEC_COMMON: once SHN_XINDEX is followed, a real index may be 0xfff1 itself. */
#define SEC_UNDEF  0u
#define SEC_ABS    (0xffff0000u | SHN_ABS)
#define SEC_COMMON (0xffff0000u | SHN_COMMON)
static inline uint32_t objrt_sym_shndx(const objrt_obj *o, size_t symidx)
{
    uint16_t shndx = o->syms[symidx].st_shndx;
    if (shndx == SHN_XINDEX)
        return o->xindex[symidx];
    return shndx >= SHN_LORESERVE ? 0xffff0000u | shndx : shndx;
}

/* Names for messages and reports: bounds-checked by parse, "?" when out of range. */
static inline const char *objrt_sec_name(const objrt_obj *o, size_t shndx)
{
    if (shndx >= o->shnum || !o->shstr || o->sh[shndx].sh_name >= o->shstrsz)
        return "?";
    return o->shstr + o->sh[shndx].sh_name;
}

static inline const char *objrt_sym_name(const objrt_obj *o, size_t symidx)
{
    const Elf64_Sym *s = &o->syms[symidx];
    if (ELF64_ST_TYPE(s->st_info) == STT_SECTION)
        return objrt_sec_name(o, objrt_sym_shndx(o, symidx));
    return o->str + s->st_name;
}

/* ---- global symbols of the unit being linked (resolve.c) ---- */
enum objrt_gstate {
    G_UNDEF,        /* referenced, not yet defined */
    G_DEF,          /* defined by an object of the unit (strong, weak or unique) */
    G_COMMON,       /* tentative definition, allocated by the plan */
    G_EXTERNAL,     /* bound outside the unit: addr is final */
    G_SPECIAL,      /* defined by the loader: _GLOBAL_OFFSET_TABLE_, __dso_handle,
                       __start_SEC / __stop_SEC (objrt_gsym.special) */
};

typedef struct objrt_gsym {
    union {                     /* the name, as gmap reads its key here (objrt_strindex) */
        objrt_strkey key;
        struct {
            const char *name;
            size_t len;         /* strlen(name) */
            uint64_t hash;      /* of name, reused by the archive index and the unit's table */
        };
    };
    uint32_t obj, sym;          /* defining (or first referencing) object and symbol */
    uint8_t state;
    uint8_t bind;               /* binding of the definition */
    bool strong_ref;            /* some reference is not weak: archives may be searched */
    int8_t host_func;           /* G_EXTERNAL: 1 code, 0 data, -1 not yet asked (dladdr) */
    bool placed;                /* unit symbols: `off` is valid (set by the plan) */
    uint8_t special;            /* G_SPECIAL: enum objrt_special */
    uint8_t answer;             /* objrt_sym_answer_placed's SF_* for it, once asked: the
                                   same for every object that names it (symbols.c) */
    union {                     /* one or the other, never both: */
        uint64_t addr;          /* G_EXTERNAL: the final address (0: an unbound weak) */
        uint64_t off;           /* `placed`: offset in the reservation */
    };
    uint64_t size;              /* G_COMMON: the largest tentative definition's size; G_DEF:
                                   the bytes the loader may touch at it (objrt_unit_slot):
                                   its st_size cut at the end of its section, 0 outside one */
    uint64_t common_align;
} objrt_gsym;
/* Every object naming a global reads its entry at some point of the link, libcrypto's
 * 20k of them mostly from memory: 64 bytes, where two separate address fields made 72. */
_Static_assert(sizeof(objrt_gsym) == 64, "objrt_gsym grew past 64 bytes");
_Static_assert(offsetof(objrt_gsym, key) == 0, "gmap reads each entry's key at its start");

enum objrt_special { SP_GOT, SP_DSO_HANDLE, SP_START, SP_STOP };
/* The section SEC of __start_SEC / __stop_SEC. */
static inline const char *objrt_special_section(const objrt_gsym *g)
{
    return g->name + (g->special == SP_START ? 8 : 7);
}

/* ---- the plan (plan.c) ---- */
enum objrt_group { GRP_RX, GRP_R, GRP_RW, GRP_COUNT };

typedef struct objrt_slotkey {  /* a GOT slot or stub target: symbol identity + addend */
    uint64_t id;                /* gsym index | 1<<63, or (obj << 32 | symidx) for locals */
    int64_t addend;
} objrt_slotkey;

typedef struct objrt_slots {    /* GOT slots or stubs: index -> target, and back */
    objrt_keymap map;           /* slotkey -> index */
    objrt_slotkey *keys;        /* index -> key (to fill them) */
    size_t n, cap;
    uint32_t *own;              /* per global: index + 1 of its own slot (addend 0), 0 for
                                   none yet; the map holds it too (plan.c) */
} objrt_slots;

/* Where t records the slot of key k by index: a global's own slot (addend 0), which most
 * GOT references and calls of a large unit ask for; NULL for any other key (or before the
 * plan made t->own). */
static inline uint32_t *objrt_slot_own(const objrt_slots *t, objrt_slotkey k)
{
    return t->own && k.addend == 0 && k.id >> 63 ? &t->own[(uint32_t)k.id] : NULL;
}
/* The index of key k's slot in t, or OBJRT_NONE. An own slot is read from t->own instead
 * of hashing the key (keyed SipHash, as every input-chosen key is). */
static inline uint32_t objrt_slot_find(const objrt_slots *t, objrt_slotkey k)
{
    const uint32_t *own = objrt_slot_own(t, k);
    return own ? *own - 1 : objrt_keymap_get(&t->map, k.id, k.addend);  /* 0 - 1: NONE */
}

enum objrt_item_kind { IT_SECTION, IT_EH_FRAME, IT_COMMON, IT_GOT, IT_STUBS };

typedef struct objrt_item {     /* one thing the plan placed: for reports and registration */
    uint8_t kind, group;
    bool zero;                  /* zero-fill (.bss, COMMON): no bytes to copy */
    uint32_t obj, shndx;        /* IT_SECTION, IT_EH_FRAME */
    uint64_t off, size, align;
} objrt_item;

typedef struct objrt_chunk {    /* a packed group's piece of an arena page (arena.c) */
    uint64_t addr, size;        /* where it runs; size in whole granules, 0: none */
    int64_t alias_delta;        /* RX and R bytes are written at addr + alias_delta */
} objrt_chunk;

typedef struct objrt_winref {   /* a relocation whose value depends on where the unit goes */
    uint32_t obj, target;
    const Elf64_Rela *r;
} objrt_winref;

typedef struct objrt_plan {
    objrt_winref *winrefs;
    size_t nwinrefs, capwinrefs;
    objrt_item *items;
    size_t nitems, capitems;
    bool got_base_used;                  /* GOTOFF/GOTPC forms need a GOT address */
    bool internal_stubs;                 /* the unit may exceed the direct branch reach */
    size_t page;                         /* granule every group starts on */
    uint64_t span;                       /* sum of every item's size and alignment so far:
                                            bounds every offset, kept <= OBJRT_MAX_UNIT */
    uint64_t base_align;                 /* the base must honour the largest alignment */
    uint64_t group_off[GRP_COUNT], group_size[GRP_COUNT];
    uint64_t total;                      /* the reservation, exactly */
    uint64_t used;                       /* bytes of content, without padding */
    uint64_t got_off, stub_off;          /* stub_off: the first stub block */
    uint64_t *stub_blocks;               /* every stub block's offset, in address order */
    size_t nstub_blocks;
    objrt_slots got, stub;               /* GOT slots and call stubs, in index order */
    uint64_t win_lo, win_hi;             /* the reservation base must lie in [lo, hi] */
    const char *win_lo_why, *win_hi_why; /* symbols that set each bound, for messages */
    size_t relocations;
    bool packed;                         /* groups in chunks of the context's arena: the
                                            offsets are from the lowest chunk (the base) */
    objrt_chunk chunks[GRP_COUNT];       /* packed: each group's chunk */
    uint64_t packed_base;                /* packed: the lowest chunk's address */
} objrt_plan;

/* ---- thread-local storage (tls.c) ---- */
typedef struct objrt_tls_entry { /* one TLS GOT entry; its bytes come from glibc */
    uint8_t kind;               /* TLS_GD, TLS_LD, TLS_IE, TLS_DESC */
    uint32_t gsym;              /* host symbol (global index), or OBJRT_NONE: the unit's */
    uint64_t off;               /* the unit's block: symbol offset + addend */
    int64_t addend;             /* host symbol: addend */
    uint64_t at;                /* byte offset in the TLS part of the GOT */
} objrt_tls_entry;

typedef struct objrt_tls {
    uint64_t size, filesz, align;   /* the unit's block: .tdata then .tbss */
    bool static_needed;             /* IE or LE against the unit's block: static TLS */
    bool le_used;                   /* LE: the block's offset from the thread pointer */
    bool own_used;                  /* some entry or LE names the unit's block (even empty) */
    objrt_tls_entry *ents;
    size_t nents, capents;
    objrt_keymap map;               /* kind-tagged slot key -> entry index */
    uint64_t got_bytes;             /* size of the TLS part of the GOT */
    uint32_t *host;                 /* global indexes of host TLS symbols, in module order */
    size_t nhost;
    uint64_t block_tpoff;           /* filled by objrt_tls_load */
    void *handle;                   /* dlopen handle of the TLS module, until the unit owns it */
    int fd;                         /* its memfd (valid with handle) */
} objrt_tls;


/* ---- one load in progress ---- */
typedef struct objrt_link {
    objrt_ctx *ctx;
    const objrt_arch *arch;
    objrt_blob *blobs;
    size_t nblobs, capblobs;
    uint8_t *copy_at, *copy_end;    /* input.c: room left for copies of misaligned inputs */
    objrt_obj **objs;           /* every parsed object; pulled ones form the unit */
    size_t nobjs, capobjs;
    objrt_gsym *gsyms;
    size_t ngsyms, capgsyms;
    objrt_strindex gmap;        /* name -> gsym index (the keys are the gsyms') */
    objrt_strmemo gmemo;        /* in front of gmap (symbols.c) */
    objrt_strmap archive_index; /* name -> first archive member (obj index) defining it */
    void *symmem;               /* every pulled object's symf and symv (symbols.c) */
    objrt_plan plan;
    uint8_t *base;              /* where the unit runs, once placed: every address is
                                   base + offset; stores go through objrt_write_at() */
    bool unit_owns_base;        /* unit.c took the reservation over (released with it) */
    bool dry_run;               /* layout report: compute, check, never write */
    bool full_walk;             /* OBJRT_FULL_WALK: no fast paths (sites.h), for comparing */
    size_t stubs_used;          /* calls that went through a stub */
    struct objrt_reach *reach;  /* layout report: farthest distance per relocation type */
    objrt_tls tls;
    objrt_strmap comdat_kept;   /* COMDAT signature -> id of the group kept (comdat.c) */
    size_t comdat_groups_dropped;
    uint64_t comdat_bytes_dropped;  /* SHF_ALLOC bytes of the dropped groups' sections */
    struct objrt_initarr *init_arrays;  /* init.c: the constructor and destructor arrays */
    size_t ninit_arrays, capinit_arrays;    /* among plan.items, found by the plan's check */
} objrt_link;

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
    objrt_chunk chunks[GRP_COUNT];
    uint64_t group_off[GRP_COUNT], group_size[GRP_COUNT];
    objrt_strmap syms;          /* name -> index into addrs: global definitions only */
    uint64_t *addrs;
    uint64_t *room;             /* bytes the loader may touch at each symbol: st_size cut at
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
};

/* ---- reservations of unloaded units, kept for the next load (place.c) ---- */
#define OBJRT_SPARES 4                          /* at most this many at once */
#define OBJRT_SPARE_BYTES ((size_t)64 << 20)    /* and this many bytes in all */
typedef struct objrt_spare {    /* a kept reservation (PROT_NONE, place.c) or image block
                                   (heap, gdbjit.c); size 0: an empty slot */
    uint8_t *base;
    size_t size;
} objrt_spare;
/* Unload: keep the reservation [base, base + size) for the next load of the context, or
 * return it to the system (switched off, too big, or objrt_free). */
void objrt_spare_keep(objrt_ctx *ctx, uint8_t *base, size_t size);
/* The end of every load, and objrt_free: what no load took goes back to the system. */
void objrt_spares_release(objrt_ctx *ctx);
/* gdbjit.c: the kept image block goes back to malloc (end of a load, objrt_free). */
void objrt_gdbjit_spare_release(objrt_ctx *ctx);
void objrt_spares_usage(const objrt_ctx *ctx, objrt_memory *m);

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
};

/* ---- the pipeline (pipeline.c) ---- */
enum objrt_stage {              /* after input and parse, in order */
    OBJRT_RESOLVE, OBJRT_INTERPOSE, OBJRT_PLAN, OBJRT_PLACE, OBJRT_TLS, OBJRT_RELOCATE,
    OBJRT_UNIT, OBJRT_PROTECT, OBJRT_INFO,
};
/* Adds the inputs (paths, or else inputs) to l, then runs every stage up to `last`; the
 * OBJRT_UNIT stage allocates *u (freed by the caller, also on a later failure). Returns 0
 * or -1 with the error recorded. */
int objrt_link_run(objrt_link *l, const char *const *paths, const objrt_input *inputs, size_t n,
                   enum objrt_stage last, objrt_unit **u);
void objrt_link_release(objrt_link *l);
/* A whole load, constructors included (ctx->lock held): the unit, or NULL with the error. */
objrt_unit *objrt_pipeline_load(objrt_ctx *ctx, const char *const *paths,
                                const objrt_input *inputs, size_t n);
/* Destructors, runtime hooks, registry, memory: everything a load made (ctx->lock held). */
void objrt_pipeline_unload(objrt_unit *u);

/* Pipeline stages; each returns 0 or -1 with the error recorded on link->ctx. */
int objrt_input_add_file(objrt_link *l, const char *path);
/* The same for n paths, in order: files are read in batches into shared mappings. */
int objrt_input_add_files(objrt_link *l, const char *const *paths, size_t n);
int objrt_input_add_memory(objrt_link *l, const objrt_input *in);
void objrt_input_release(objrt_link *l);        /* objects and mapped files of the link */
int objrt_parse_object(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                       bool pulled, objrt_obj **out);
int objrt_resolve(objrt_link *l);
int objrt_plan_layout(objrt_link *l);
int objrt_place(objrt_link *l);
int objrt_relocate(objrt_link *l);
int objrt_unit_build(objrt_link *l, objrt_unit *u);
int objrt_protect(objrt_link *l, objrt_unit *u);
/* A placed, relocated .eh_frame item parses the way the unwinder parses it (eh_frame.c). */
int objrt_eh_frame_check(objrt_link *l, const objrt_item *it);
/* init.c. The plan's check: every constructor or destructor array is an array of
 * pointers; it also lists them (l->init_arrays), so that collecting them after relocation
 * reads no section name again. */
int objrt_init_arrays_check(objrt_link *l);
int objrt_collect_init(objrt_link *l, objrt_unit *u, objrt_fnlist *ctors);
void objrt_run_fns(const objrt_fnlist *fns);
void objrt_unprotect_release(objrt_unit *u);
void objrt_unit_free(objrt_unit *u);            /* memory and tables of a unit */
void *objrt_lib_open(const char *name);         /* objrt_add_library()'s search (libsearch.c) */

/* Is section shndx of o thread-local data of the image (.tdata, .tbss)? */
/* Thread-local storage (tls.c). */
bool objrt_sec_is_tls(const objrt_obj *o, size_t shndx);
/* plan: place the unit's TLS sections in its block (offsets into o->sec_off). */
int objrt_tls_layout(objrt_link *l);
/* plan: a TLS relocation; reserves its GOT entry. */
int objrt_tls_note(objrt_link *l, const objrt_obj *o, size_t target, const Elf64_Rela *r,
                   const objrt_howto *h);
/* after place, before relocate: relocate the TLS image, build and open the TLS module,
 * fill the TLS part of the GOT. */
int objrt_tls_load(objrt_link *l);
/* relocate: the value of a TLS relocation (0, or -1 with *why set). */
int objrt_tls_value(const objrt_link *l, const objrt_obj *o, const Elf64_Rela *r,
                    const objrt_howto *h, uint64_t P, uint64_t *v, const char **why);
void objrt_tls_release(objrt_tls *t);

/* In-memory shared objects for the dynamic linker (memdso.c): the ELF header, program
 * headers, the common layout (PT_LOAD, PT_DYNAMIC, ..., PT_GNU_STACK), open and close. */
void objrt_memdso_ehdr(uint8_t *buf, uint16_t machine, size_t nphdr);
void objrt_memdso_phdr(uint8_t *buf, size_t i, uint32_t type, uint32_t flags, uint64_t off,
                       uint64_t filesz, uint64_t memsz, uint64_t align);
void objrt_memdso_base(uint8_t *buf, size_t size, uint16_t machine, size_t nphdr,
                       uint64_t dyn, uint64_t dynsize);
int objrt_memdso_open(const uint8_t *buf, size_t size, int flags, void **handle, int *fd,
                      const char **why);
void objrt_memdso_close(void *handle, int fd);

/* The compiler's helper library (libgcc.c, atomics_aarch64.c). */
const char *objrt_libgcc_path(void);       /* NULL: absent or turned off */
bool objrt_libgcc_defines_any(const char *path, const char *const *names, size_t n);
void *objrt_outline_atomic(const char *name);

/* The pointer a stage stores through for the unit address addr (base + offset): the
 * address itself, except for the RX and R groups of a packed unit, written through the
 * arena's alias because they are never writable where they run. */
static inline uint8_t *objrt_write_at(const objrt_link *l, uint64_t addr)
{
    const objrt_plan *p = &l->plan;
    if (p->packed && addr - ((uintptr_t)l->base + p->group_off[GRP_RW]) >= p->group_size[GRP_RW])
        addr += (uint64_t)p->chunks[GRP_RX].alias_delta;  /* one block: one delta */
    return (uint8_t *)(uintptr_t)addr;
}

/* ---- shared pages of small units (arena.c): a memory module of plan, place, protect ---- */
/* Would groups of these sizes and alignments be packed (each at most 16 KiB or one page,
 * aligned to at most a page, not all empty)? */
bool objrt_arena_fits(size_t page, const uint64_t size[GRP_COUNT], const uint64_t align[GRP_COUNT]);
/* A chunk for every non-empty group, all in one block of `page`-sized pages: 0, or -1 when
 * the arena cannot (out of memory, a memfd that may not be executable): load unpacked. */
int objrt_arena_alloc(objrt_ctx *ctx, size_t page, const uint64_t size[GRP_COUNT],
                      const uint64_t align[GRP_COUNT], objrt_chunk out[GRP_COUNT]);
int objrt_arena_open(const objrt_chunk c[GRP_COUNT]);     /* alias writable: place */
void objrt_arena_close(const objrt_chunk c[GRP_COUNT]);   /* and not any more: protect */
void objrt_arena_free(objrt_ctx *ctx, const objrt_chunk c[GRP_COUNT]);
void objrt_arena_release(objrt_ctx *ctx);                  /* objrt_free */
void objrt_arena_usage(const objrt_ctx *ctx, objrt_memory *m);
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

/* ---- arrays (grow.c) ---- */
/* `arr` (capacity *cap elements of `elem` bytes) with room for `need` elements: doubled
 * from `first` as needed. NULL with "out of memory" recorded on ctx; arr and *cap are then
 * unchanged. Use: v = objrt_grow(...); if (!v) return -1; x->arr = v; */
void *objrt_grow(objrt_ctx *ctx, void *arr, size_t *cap, size_t need, size_t elem, size_t first);

/* ---- the symbol model (symbols.c): what every stage asks about a symbol ---- */
/* objrt_sym_intern when the memo missed (memo: the name's memo set or NULL). */
uint32_t objrt_sym_intern_slow(objrt_link *l, const char *name, size_t len, uint32_t obj,
                               uint32_t sym, uint32_t *memo);
/* The global symbol `name` (len bytes), entered as G_UNDEF (first seen in obj, sym) if new;
 * OBJRT_NONE with the error recorded when out of memory. Inline: every global symbol of
 * every object comes here, and most names were entered by an earlier object (the memo). */
static inline uint32_t objrt_sym_intern(objrt_link *l, const char *name, size_t len,
                                        uint32_t obj, uint32_t sym)
{
    uint32_t *memo = objrt_strmemo_set(&l->gmemo, name, len);
    for (int w = 0; memo && w < OBJRT_STRMEMO_WAYS; w++) {
        uint32_t g = memo[w];
        if (g != OBJRT_NONE && l->gsyms[g].len == len &&
            objrt_same_bytes(l->gsyms[g].name, name, len))
            return g;                       /* seen before: no hash */
    }
    return objrt_sym_intern_slow(l, name, len, obj, sym, memo);
}
/* Room for n global symbols without growing (0, or -1 with the error recorded). */
int objrt_sym_reserve(objrt_link *l, size_t n);
/* The global behind symbol `symidx` of o, or NULL for a local symbol. */
static inline objrt_gsym *objrt_sym_global(const objrt_link *l, const objrt_obj *o,
                                           size_t symidx)
{
    return symidx < o->first_global ? NULL : &l->gsyms[o->gsym[symidx - o->first_global]];
}
/* objrt_sym_addr's answer for a global symbol, asked of the global itself (unit.c builds
 * the unit's table from the globals). Always inline: as a second level of inlining it made
 * the compiler take objrt_sym_addr out of line, +1.2% of a link's instructions. */
static inline __attribute__((always_inline)) int
objrt_gsym_addr(const objrt_link *l, const objrt_gsym *g, uint64_t *addr, bool *fixed)
{
    *fixed = g->state == G_EXTERNAL || (g->state == G_DEF && !g->placed);
    if (*fixed) {
        if (g->state == G_DEF && objrt_sym_shndx(l->objs[g->obj], g->sym) != SEC_ABS)
            return -1;                      /* defined in a section that is not loaded */
        *addr = g->state == G_DEF ? l->objs[g->obj]->syms[g->sym].st_value : g->addr;
        return 0;
    }
    *addr = (uint64_t)(uintptr_t)l->base + g->off;
    return 0;
}
/* Address of a symbol: absolute when *fixed is set (host, ABS, undefined weak), else
 * base + offset, so with base 0 (before placement) it is the offset in the reservation.
 * Returns -1 when the symbol lies in a section that is not part of the image.
 * Inline: relocate asks it of every relocation. */
static inline int objrt_sym_addr(const objrt_link *l, const objrt_obj *o, size_t symidx,
                                 uint64_t *addr, bool *fixed)
{
    const objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (!g) {                               /* local: its section's address */
        uint32_t shndx = objrt_sym_shndx(o, symidx);
        *fixed = shndx == SEC_ABS || shndx == SEC_UNDEF;
        if (*fixed) {
            *addr = shndx == SEC_ABS ? o->syms[symidx].st_value : 0;
            return 0;
        }
        if (shndx >= o->shnum || !o->sec_placed || !o->sec_placed[shndx])
            return -1;
        *addr = (uint64_t)(uintptr_t)l->base + o->sec_off[shndx] + o->syms[symidx].st_value;
        return 0;
    }
    return objrt_gsym_addr(l, g, addr, fixed);
}
/* The same "fixed" answer as objrt_sym_addr, without computing the address. Inline, as
 * objrt_sym_is_placed: the plan asks both of every relocation. */
static inline bool objrt_sym_is_fixed(const objrt_link *l, const objrt_obj *o, size_t symidx)
{
    const objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (!g) {
        uint32_t shndx = objrt_sym_shndx(o, symidx);
        return shndx == SEC_ABS || shndx == SEC_UNDEF;
    }
    if (g->state == G_DEF)
        return objrt_sym_shndx(l->objs[g->obj], g->sym) == SEC_ABS;
    return g->state == G_EXTERNAL;
}
/* Can a relocation of the image refer to it? Not when it lies in a section that is not
 * part of the image (debug info, a discarded group). Asked before offsets are published. */
static inline bool objrt_sym_is_placed(const objrt_link *l, const objrt_obj *o, size_t symidx)
{
    const objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (g) {
        if (g->state != G_DEF)
            return true;
        o = l->objs[g->obj];
        symidx = g->sym;
    }
    uint32_t shndx = objrt_sym_shndx(o, symidx);
    return shndx == SEC_ABS || shndx == SEC_UNDEF || shndx == SEC_COMMON ||
           (shndx < o->shnum && o->sec_placed && o->sec_placed[shndx]);
}
/* Both answers at once, for the plan's walk over every relocation: is_placed, returned,
 * and is_fixed, in *fixed. */
static inline bool objrt_sym_placed_fixed(const objrt_link *l, const objrt_obj *o,
                                          size_t symidx, bool *fixed)
{
    const objrt_gsym *g = objrt_sym_global(l, o, symidx);
    if (g && g->state != G_DEF) {
        *fixed = g->state == G_EXTERNAL;
        return true;
    }
    if (g) {
        o = l->objs[g->obj];
        symidx = g->sym;
    }
    uint32_t shndx = objrt_sym_shndx(o, symidx);
    *fixed = shndx == SEC_ABS || (!g && shndx == SEC_UNDEF);
    return shndx == SEC_ABS || shndx == SEC_UNDEF || shndx == SEC_COMMON ||
           (shndx < o->shnum && o->sec_placed && o->sec_placed[shndx]);
}
/* The answers above, kept per symbol of every pulled object (o->symf, o->symv) so that
 * the walks over relocations (plan.c, relocate.c) ask once per symbol and then read a
 * byte, instead of following symbol, global and section tables at every relocation.
 * objrt_sym_answers_new: the storage, every answer unknown (plan). Then, on first use:
 * objrt_sym_answer_placed (plan) and, once the base is known, objrt_sym_answer_addr
 * (relocate); each returns the symbol's flags. */
enum {
    SF_KNOWN = 1,               /* SF_PLACED and SF_FIXED hold objrt_sym_placed_fixed's */
    SF_PLACED = 2,
    SF_FIXED = 4,               /* from SF_VKNOWN on: objrt_sym_addr's *fixed */
    SF_VKNOWN = 8,              /* SF_ADDR holds whether objrt_sym_addr succeeded */
    SF_ADDR = 16,               /* ... and o->symv its address */
    SF_GOT = 32,                /* plan.c: a GOT slot with slot addend 0 is reserved */
    SF_STUB = 64,               /* plan.c: a stub (and its slot) with slot addend 0 too */
};
int objrt_sym_answers_new(objrt_link *l);
uint8_t objrt_sym_answer_placed(objrt_link *l, const objrt_obj *o, size_t symidx);
uint8_t objrt_sym_answer_addr(objrt_link *l, const objrt_obj *o, size_t symidx);
/* The symbol's flags with SF_KNOWN (resp. SF_VKNOWN) answered: asked on first use only. */
static inline uint8_t objrt_sym_flags_placed(objrt_link *l, const objrt_obj *o, size_t symidx)
{
    uint8_t f = o->symf[symidx];
    return f & SF_KNOWN ? f : objrt_sym_answer_placed(l, o, symidx);
}
static inline uint8_t objrt_sym_flags_addr(objrt_link *l, const objrt_obj *o, size_t symidx)
{
    uint8_t f = o->symf[symidx];
    return f & SF_VKNOWN ? f : objrt_sym_answer_addr(l, o, symidx);
}
/* Is the symbol bound to a function outside the unit? Such a target may be given a stub
 * in the unit to serve as its address for references that cannot reach it. */
bool objrt_sym_is_host_function(objrt_link *l, const objrt_obj *o, size_t symidx);
/* The identity of a GOT slot or stub target, and the address it stands for. */
objrt_slotkey objrt_sym_key(const objrt_obj *o, size_t symidx, int64_t addend);
uint64_t objrt_sym_key_addr(const objrt_link *l, objrt_slotkey k);
/* Loaded units of ctx (newest first), then objrt_define()d names: what objrt_sym() sees.
 * The name comes with its hash (objrt_strkey_of, or a global symbol's own). */
void *objrt_sym_loaded(objrt_ctx *ctx, const objrt_strkey *name);
/* A global symbol's name as a map key: its hash was made when it was entered. */
static inline objrt_strkey objrt_gsym_key(const objrt_gsym *g)
{
    return g->key;
}
/* Functions objrt supplies that a static link takes from libc_nonshared (builtins.c). */
void *objrt_builtin_lookup(const char *name);

/* ---- the host's libraries (host.c; ctx->lock held) ---- */
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

/* ---- relocation sites (sites.c) ---- */
typedef struct objrt_site {     /* one relocation of the unit, in the psABI's notation */
    const objrt_obj *o;
    size_t target;              /* the section it patches */
    const Elf64_Rela *r;
    uint32_t type;
    size_t sym;
    const objrt_howto *h;       /* NULL: a type the architecture does not know */
    uint64_t S, P;              /* S: filled by whoever asks objrt_sym_addr */
    int64_t A;
    bool fixed;                 /* S is absolute (host, ABS, undefined weak) */
} objrt_site;

typedef int (*objrt_site_fn)(objrt_link *l, objrt_site *s);
typedef struct objrt_rela_sec { /* what the walk knows of the section being patched */
    const objrt_obj *o;
    size_t target;              /* its index */
    uint64_t addr, size;        /* where it is placed (base + offset) and its size */
    bool nobits;
    size_t dropped_below;       /* symbols below this index may lie in a dropped COMDAT
                                   group (comdat.c): left to the full path */
    const uint8_t *symf;        /* o's answers (symbols.c) */
    const uint64_t *symv;
    int64_t write_delta;        /* objrt_write_at(P) - P, the same for the whole section */
    const objrt_howto *howtos;  /* the architecture's table, held in registers */
    uint32_t nhowtos;
} objrt_rela_sec;
/* A pass's fast path for the common relocation: true when it handled relocation r of
 * section w completely, false to have the walk build the site and call the pass's full
 * objrt_site_fn instead (which also reports every error). */
typedef bool (*objrt_site_fast_fn)(objrt_link *l, const objrt_rela_sec *w, const Elf64_Rela *r);
/* objrt_sites_each(l, fast, fn) - sites.h, inline so each pass's loop calls both directly;
 * returns the number of sites walked, or -1 when fn failed. */
/* "file: section S+off: relocation R_X against 'sym': what" ("relocation unknown (type N)"
 * for a type the backend does not know), plus the value, target and place when `value`
 * is given. Returns -1. The site comes by value: the walks' own site then never has its
 * address taken, which lets the compiler keep more of it in registers (-1.5% of a link's
 * instructions; only a failing relocation pays for the copy). */
int objrt_site_fail(objrt_link *l, objrt_site s, const char *what, const uint64_t *value);

/* ---- the loaded units of the process (registry.c) ---- */
void objrt_registry_add(objrt_unit *u);
void objrt_registry_remove(objrt_unit *u);
/* ctx's units, newest first: the one after `after` (NULL: the newest), or NULL. */
objrt_unit *objrt_registry_next(objrt_ctx *ctx, const objrt_unit *after);
bool objrt_registry_has(const objrt_unit *u);   /* registry.c: loaded now? */
void *objrt_unit_lookup(const objrt_unit *u, const char *name);
void *objrt_units_lookup(objrt_ctx *ctx, const objrt_strkey *name);
void *objrt_dso_handle_of(const void *pc);

void objrt_obj_free(objrt_obj *o);

/* COMDAT groups (comdat.c). resolve: the object's COMDAT groups whose signature an
 * earlier group already has are dropped (o->sec_dropped). */
int objrt_comdat_enter(objrt_link *l, objrt_obj *o);
/* plan and relocate: is relocation r of section `target` against a local symbol of a
 * dropped section? 0 no; 1 yes, in .eh_frame: write 0 (a discarded FDE); -1 an error. */
int objrt_comdat_dropped_ref_slow(objrt_link *l, const objrt_obj *o, size_t target,
                                  const Elf64_Rela *r);
/* Asked of every relocation, twice: inline up to the test almost every one fails (no
 * group dropped in this object, or a global symbol, which binds to the kept definition). */
static inline int objrt_comdat_dropped_ref(objrt_link *l, const objrt_obj *o, size_t target,
                                           const Elf64_Rela *r)
{
    if (!o->sec_dropped || ELF64_R_SYM(r->r_info) >= o->first_global)
        return 0;
    return objrt_comdat_dropped_ref_slow(l, o, target, r);
}
static inline bool objrt_sec_dropped(const objrt_obj *o, size_t shndx)
{
    return o->sec_dropped && shndx < o->shnum && o->sec_dropped[shndx];
}
const objrt_arch *objrt_host_arch(void);
void objrt_perfmap_write(const objrt_link *l);
/* lto.c: -flto inputs (IR, no machine code) are refused with what to do instead. */
int objrt_lto_check_bytes(objrt_link *l, const char *name, const uint8_t *d, size_t size);
int objrt_lto_check_object(objrt_link *l, const objrt_obj *o);
int objrt_interpose(objrt_link *l);


#endif

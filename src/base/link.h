/*
 * link.h - the data one load carries through the pipeline: the inputs, the parsed objects,
 * the unit's global symbols, the plan, thread-local storage and the link itself. Types,
 * which every stage reads; the functions that fill each part are declared in the header
 * of the stage's folder (docs/layers.md). Two functions too: the address every stage that
 * writes the image stores through (objrt_write_at), and the unit's name (objrt_link_name).
 */
#ifndef OBJRT_BASE_LINK_H
#define OBJRT_BASE_LINK_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "base/context.h"

typedef struct objrt_arch objrt_arch;
typedef struct objrt_howto objrt_howto;

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

enum objrt_item_kind { IT_SECTION, IT_EH_FRAME, IT_COMMON, IT_GOT, IT_STUBS };

typedef struct objrt_item {     /* one thing the plan placed: for reports and registration */
    uint8_t kind, group;
    bool zero;                  /* zero-fill (.bss, COMMON): no bytes to copy */
    uint32_t obj, shndx;        /* IT_SECTION, IT_EH_FRAME */
    uint64_t off, size, align;
} objrt_item;

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
                                            bounds every offset, kept <= the arch's user_top */
    uint64_t base_align;                 /* the base must honour the largest alignment */
    uint64_t group_off[GRP_COUNT], group_size[GRP_COUNT];
    uint64_t total;                      /* the reservation, exactly */
    uint64_t used;                       /* bytes of content, without padding */
    uint64_t got_off, stub_off;          /* stub_off: the first stub block */
    uint64_t *stub_blocks;               /* every stub block's offset, in address order */
    size_t nstub_blocks;
    objrt_slots got, stub;               /* GOT slots and call stubs, in index order */
    uint64_t win_lo, win_hi;             /* the reservation base must lie in [lo, hi] */
    const objrt_winref *win_lo_ref, *win_hi_ref;  /* the references that set each bound
                                            (NULL: none), for messages (place.c) */
    size_t relocations;
    bool packed;                         /* groups in chunks of the context's arena: the
                                            offsets are from the lowest chunk (the base) */
    objrt_chunk chunks[GRP_COUNT];       /* packed: each group's chunk */
    uint64_t packed_base;                /* packed: the lowest chunk's address */
} objrt_plan;

/* ---- paired relocations (sites.c; arch.h, F_PAIRED) ---- */
typedef struct objrt_pair {     /* a paired site and its partner, of one relocation section */
    const Elf64_Rela *site, *partner;
} objrt_pair;

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
    uint8_t *copy_at, *copy_end;    /* input.c: space left for copies of misaligned inputs */
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
    bool dso_handle_used;       /* the unit refers to __dso_handle (resolve.c) */
    bool dry_run;               /* layout report: compute, check, never write */
    bool full_walk;             /* OBJRT_FULL_WALK: no fast paths (sites.h), for comparing */
    size_t stubs_used;          /* calls that went through a stub */
    struct objrt_reach *reach;  /* layout report: farthest distance per relocation type */
    objrt_pair *pairs;          /* every F_PAIRED site, in the walks' order (sites.c) */
    size_t npairs, cappairs, pair_next;     /* pair_next: relocation's cursor in them */
    objrt_tls tls;
    objrt_strmap comdat_kept;   /* COMDAT signature -> id of the group kept (comdat.c) */
    size_t comdat_groups_dropped;
    uint64_t comdat_bytes_dropped;  /* SHF_ALLOC bytes of the dropped groups' sections */
    struct objrt_initarr *init_arrays;  /* init.c: the constructor and destructor arrays */
    size_t ninit_arrays, capinit_arrays;    /* among plan.items, found by the plan's check */
} objrt_link;

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

/* The unit as errors about it as a whole name it: its first object, as objrt_unit_name(). */
static inline const char *objrt_link_name(const objrt_link *l)
{
    return l->nobjs ? l->objs[0]->name : "(no object)";
}

#endif

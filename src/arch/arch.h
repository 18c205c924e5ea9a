/*
 * arch.h - what an architecture backend supplies: a table describing each relocation type
 * and the encoders that put a checked value into its field. The generic driver
 * (relocate.c) computes every value from the formula named here and applies the one
 * overflow rule (objrt_value_fits); a backend never decides ranges on its own.
 */
#ifndef OBJRT_ARCH_H
#define OBJRT_ARCH_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value of a relocation, in the notation of the psABI documents:
 * S symbol, A addend, P place, G address of the symbol's GOT slot, GOT the GOT base,
 * L the symbol's stub, Page(x) = x & ~0xfff (always 4 KiB, whatever the OS page size). */
enum objrt_formula {
    F_NONE,             /* nothing to write */
    F_ABS,              /* S + A */
    F_PCREL,            /* S + A - P */
    F_BRANCH,           /* S + A - P, or L - P when S + A is out of reach */
    F_GOT_PCREL,        /* G + A - P */
    F_GOT_ABS,          /* G + A: absolute slot address (low bits taken by the encoder) */
    F_GOT_OFFSET,       /* G - GOT + A: slot offset within the GOT */
    F_GOTOFF,           /* S + A - GOT */
    F_GOTPC,            /* GOT + A - P */
    F_PLTOFF,           /* L - GOT + A (S - GOT + A when S is part of the unit) */
    F_PAGE_PCREL,       /* Page(S + A) - Page(P) */
    F_GOT_PAGE_PCREL,   /* Page(G) - Page(P) */
    F_TLS,              /* dynamic thread-local type (DTPMOD64, TLSDESC): never in an object */
    F_PAIRED,           /* the second half of a pair: the backend's pair_value, from this
                           site and its partner (below, "Paired relocations") */
};

/* Thread-local forms (objrt_howto.tls). A GOT formula with a TLS kind takes G from the
 * unit's thread-local GOT entry of that kind instead of an address slot; F_ABS with
 * TLS_DTPREL or TLS_TPREL takes S as the symbol's offset in its TLS block or from the
 * thread pointer. tls.c computes both (the values come from glibc's dynamic linker). */
enum objrt_tls_kind {
    TLS_NO,
    TLS_GD,             /* GOT pair {module id, offset}: general dynamic (__tls_get_addr) */
    TLS_LD,             /* GOT pair {module id, 0}: local dynamic, one per unit */
    TLS_IE,             /* GOT slot: offset from the thread pointer (initial exec) */
    TLS_DESC,           /* GOT pair {resolver, argument}: TLS descriptor */
    TLS_DTPREL,         /* S = offset in the unit's TLS block */
    TLS_TPREL,          /* S = offset from the thread pointer (local exec) */
};

enum objrt_check {
    C_NONE,             /* any value fits (64-bit fields, _NC forms) */
    C_SIGNED,           /* -2^(bits-1) <= v < 2^(bits-1) */
    C_UNSIGNED,         /* 0 <= v < 2^bits */
    C_EITHER,           /* fits as signed or as unsigned (AArch64 ABS16/32, PREL16/32) */
};

typedef struct objrt_howto {
    const char *name;
    uint8_t formula;
    uint8_t check;
    uint8_t bits;       /* range of the value for `check` */
    uint8_t align;      /* value must be a multiple of this (branch targets, LDST scale); 0 = 1 */
    uint8_t field;      /* backend-specific: which encoder writes the value */
    uint8_t shift;      /* backend-specific: part of the value the field holds */
    uint8_t size;       /* bytes at P the encoder reads/writes */
    uint8_t tls;        /* enum objrt_tls_kind; TLS_NO for every other type */
    bool direct;        /* OBJRT_DIRECT(formula, tls): the walks' fast paths take it */
    bool abs_ranged;    /* OBJRT_ABS_RANGED(formula, check, bits): plan.c's fast path
                           leaves it (its value depends on where the unit goes) */
    uint8_t plain;      /* 4 or 8: the field is the whole little-endian datum of that many
                           bytes, which relocate.c's fast path stores itself; 0: `write` */
    /* check, bits and align as objrt_value_fits asks them (OBJRT_FITS fills them in) */
    uint64_t fit_mask, fit_bias, fit_span;
} objrt_howto;

/* The range of check/bits as one unsigned comparison: v lies in it when v + bias, modulo
 * 2^64, is at most span. Below 64 bits, v lies in [lo, hi] exactly when v - lo is at most
 * hi - lo (hi - lo < 2^64): bias = -lo, span = hi - lo, with lo and hi as objrt_howto_range
 * gives them (C_SIGNED [-half, half - 1], C_UNSIGNED [0, 2 half - 1], C_EITHER [-half,
 * 2 half - 1]). Unchecked and 64-bit fields take every value: bias 0, span 2^64 - 1. */
#define OBJRT_FIT_HALF(b) ((uint64_t)1 << ((b) >= 1 && (b) < 64 ? (b) - 1 : 0))
#define OBJRT_FIT_ANY(c, b) ((c) == C_NONE || (b) >= 64)
#define OBJRT_FITS(c, b, al) \
    .fit_mask = (al) > 1 ? (uint64_t)(al) - 1 : 0, \
    .fit_bias = OBJRT_FIT_ANY(c, b) || (c) == C_UNSIGNED ? 0 : OBJRT_FIT_HALF(b), \
    .fit_span = OBJRT_FIT_ANY(c, b) ? UINT64_MAX : \
                (c) == C_EITHER ? 3 * OBJRT_FIT_HALF(b) - 1 : 2 * OBJRT_FIT_HALF(b) - 1

/* A value from S, A and P alone (no GOT, stub or thread-local offset): what the fast paths
 * of the walks over relocations settle (plan.c, relocate.c); the tables set `direct` with
 * this, so it always agrees with the formula. */
#define OBJRT_DIRECT(f, tls) \
    ((tls) == TLS_NO && ((f) == F_ABS || (f) == F_PCREL || (f) == F_BRANCH || (f) == F_PAGE_PCREL))
/* The `plain` of a field of sz bytes that holds the whole datum: 4 or 8, else 0. */
#define OBJRT_PLAIN(sz) ((sz) == 4 || (sz) == 8 ? (sz) : 0)
/* An absolute value in a field narrower than 64 bits: it fits only for some placements. */
#define OBJRT_ABS_RANGED(f, c, b) ((f) == F_ABS && (c) != C_NONE && (b) < 64)

/* ---- Paired relocations ----
 * Some architectures split one value over two relocations. RISC-V's R_RISCV_PCREL_LO12_I
 * names as its symbol the label of the AUIPC that carries an R_RISCV_PCREL_HI20, and its
 * value is the low 12 bits of that site's S + A - P; an R_RISCV_SUB32 after an
 * R_RISCV_ADD32 at the same offset makes the field S1 + A1 - (S2 + A2). The second
 * relocation of such a pair has the formula F_PAIRED. The walk over sites finds its
 * partner once per link, when the plan validates it (sites.c, through find_partner); the
 * partner is an ordinary relocation of the same section (neither F_PAIRED, F_NONE nor
 * F_TLS) and is applied as it would be alone. relocate.c resolves both sites, takes the
 * partner's value by its own formula and asks pair_value for the paired site's, which the
 * one overflow rule then checks against the paired site's howto like any other value. */
typedef struct objrt_pair_query {   /* what find_partner is shown of a paired site */
    const Elf64_Rela *rela;         /* every entry of its relocation section */
    size_t n, k;                    /* how many; the site is rela[k] */
    bool sym_in_target;             /* rela[k]'s symbol is defined in the section patched */
    uint64_t sym_value;             /* and its st_value (a label's offset in that section) */
} objrt_pair_query;

typedef struct objrt_pair_end {     /* one resolved site of a pair */
    const objrt_howto *h;
    uint64_t S, P;
    int64_t A;
    uint64_t value;                 /* the partner's: the value its own formula gives */
} objrt_pair_end;

struct objrt_arch {
    const char *name;
    uint16_t machine;               /* e_machine */
    const char *multiarch;          /* Debian's library directory name: /usr/lib/<multiarch> */
    uint64_t user_top;              /* no unit is placed at or above this address */
    uint32_t stub_size, stub_align; /* one call stub: jumps through the target's GOT slot */
    uint64_t branch_reach;          /* calls farther than this need a stub */
    const objrt_howto *howtos;      /* indexed by relocation type; name NULL = unknown */
    uint32_t nhowtos;
    void (*write)(const objrt_howto *h, uint8_t *loc, uint64_t value);
    void (*emit_stub)(uint8_t *stub, uint64_t stub_addr, uint64_t slot_addr);
    /* Part of the addend a GOT slot or stub bakes into its target: 0 on x86_64 (the
     * addend of PLT32/GOTPCREL corrects for the instruction length, P-relative); all of it
     * on AArch64, where the slot holds GDAT(S + A). */
    int64_t (*slot_addend)(const objrt_howto *h, int64_t addend);
    /* Dynamic relocation types the TLS module (tls.c) asks glibc to resolve. */
    uint32_t dyn_dtpmod, dyn_dtpoff, dyn_tpoff, dyn_tlsdesc;
    /* Only for a table with F_PAIRED types (NULL otherwise). find_partner: the index of
     * q->rela[q->k]'s partner in *partner and 0, or -1 with the reason in why (len bytes:
     * what was expected where, e.g. "no R_RISCV_PCREL_HI20 at offset 0x10, where its
     * label points"). pair_value: the value of the paired site, from both resolved sites. */
    int (*find_partner)(const objrt_howto *h, const objrt_pair_query *q, size_t *partner,
                        char *why, size_t len);
    uint64_t (*pair_value)(const objrt_pair_end *site, const objrt_pair_end *partner);

    /* ---- the host: what running code of this machine in this process asks for. Generic
     * code asks these, never which architecture it was compiled for; a backend sets the
     * ones that read the machine's own state only in the build for that machine. */
    /* Code written through a second mapping of its page (the arena's alias) is mapped
     * again in the execution view before it runs: qemu-user, the usual way to run this
     * machine's code elsewhere, keeps its translation of a page it ran until the page is
     * mapped again (hardware needs only the cache flush; mapping again changes nothing). */
    bool remap_written_code;
    /* The address of a helper the machine's compiler calls by name that neither the
     * host's libraries nor libgcc_s export (AArch64: gcc's outline atomics, libgcc.a
     * only), or NULL; NULL: none. Asked last, for names still undefined. */
    void *(*host_helper)(const char *name);
    /* The interrupted pc in a signal handler's ucontext_t (debug/crash.c), or NULL. */
    uintptr_t (*context_pc)(const void *ucontext);
};

/* The description of relocation `type`, or NULL when the backend does not know it. */
static inline const objrt_howto *objrt_howto_of(const struct objrt_arch *a, uint32_t type)
{
    return type < a->nhowtos && a->howtos[type].name ? &a->howtos[type] : NULL;
}

typedef struct objrt_arch objrt_arch;
extern const struct objrt_arch objrt_arch_x86_64;
extern const struct objrt_arch objrt_arch_aarch64;

/* The backend for objects of e_machine `machine`, or NULL (arch.c's list). */
const struct objrt_arch *objrt_arch_for_machine(uint16_t machine);
/* Adding an architecture (docs/design.md): arch.c keeps one list of backends, one per
 * machine, which starts with x86_64's and AArch64's. objrt_arch_register makes `a` the
 * backend for objects of a->machine in every load that starts later, in place of the one
 * the list had for that machine, or in a free entry (OBJRT_ARCH_SLOTS in all). A new
 * backend of the tree is one more entry of the list's initialiser; one built elsewhere
 * (tests/arch/ registers a synthetic one) calls this, before the loads that should see it
 * start: a load takes its backend once, from its first object. Returns 0, or -1 when the
 * list is full. */
#define OBJRT_ARCH_SLOTS 4
/* atomics_aarch64.c: gcc's AArch64 outline atomics by name (objrt_arch_aarch64.host_helper). */
void *objrt_aarch64_outline_atomic(const char *name);
int objrt_arch_register(const struct objrt_arch *a);
/* The backend for the machine whose code this process can run (from the list: a
 * registered one for that machine serves every objrt_load). */
const struct objrt_arch *objrt_host_arch(void);

/* Page arithmetic, for any power-of-two page: the plan's granule, the system page, or the
 * 4 KiB page of ADRP, which is 4 KiB whatever the OS page size. */
#define OBJRT_ADRP_PAGE 4096u
static inline uint64_t objrt_page_down(uint64_t v, uint64_t page) { return v & ~(page - 1); }
static inline uint64_t objrt_align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* The range of a howto: the values [min, max] its field accepts, as 128-bit integers so
 * that signed and unsigned 64-bit values compare exactly. C_SIGNED: -2^(bits-1) ..
 * 2^(bits-1)-1; C_UNSIGNED: 0 .. 2^bits-1; C_EITHER: -2^(bits-1) .. 2^bits-1; unchecked
 * fields: every 64-bit value. */
static inline void objrt_howto_range(const objrt_howto *h, __int128 *min, __int128 *max)
{
    unsigned bits = h->check == C_NONE || h->bits >= 64 ? 64 : h->bits;
    __int128 half = (__int128)1 << (bits - 1), full = (__int128)1 << bits;
    *min = h->check == C_UNSIGNED ? 0 : -half;
    *max = h->check == C_SIGNED ? half - 1 : full - 1;
}

/* The one overflow rule: does `v` (read as signed or as unsigned) lie in the howto's range,
 * a multiple of its alignment? The same answer as comparing with objrt_howto_range, in two
 * 64-bit tests (every relocation asks; tests/value-fits/t_fits.c compares the two on every type). */
static inline int objrt_value_fits(const objrt_howto *h, uint64_t v)
{
    return !(v & h->fit_mask) && v + h->fit_bias <= h->fit_span;
}

#endif

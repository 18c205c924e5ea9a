/*
 * eh_frame.c - check a relocated .eh_frame before libgcc's unwinder is given it.
 *
 * The unwinder trusts every byte: at its first search it walks every record of every
 * registered section, follows each FDE's CIE pointer, decodes pointers with the CIE's
 * encodings (dereferencing "indirect" ones) and afterwards applies an FDE's rules to any
 * PC inside its range - host frames included. So, after relocation (relocations write
 * pc_begin fields, and could write lengths), each record must parse the way libgcc parses
 * it, with every length, pointer and operand inside its record:
 *   CIE  version 1 or 3; augmentation "" or 'z' followed only by L, P, R, S, B; pointer
 *        encodings of fixed size, absolute or PC-relative (indirect for the personality
 *        only, whose slot must lie in the unit); return-address column below 128
 *   FDE  CIE pointer to a CIE earlier in the same section; [pc_begin, pc_begin + range)
 *        inside the unit's code (a pc_begin field of 0 is a discarded FDE libgcc skips);
 *        when the CIE has 'L', augmentation data that holds the LSDA pointer, which is 0
 *        (no LSDA) or leads into the unit's image
 *   both call-frame instructions that are known opcodes with their operands in the record
 * DWARF expressions inside instructions, and the LSDA's contents, are not interpreted:
 * they are only read while the unit's own code is being unwound, and that code is the
 * unit's to choose anyway.
 * Constants are DWARF 4 (sections 6.4.2, 7.7.2, 7.23) and the LSB's .eh_frame chapter.
 * Cost (issue 13): the call-frame instructions are most of it; the FDE almost every record
 * is takes a shorter path (fde_common; fde_common_lsda for a C++ function's FDE with an
 * LSDA; fde_common also takes the large code model's, which LLVM's JIT and clang
 * -mcmodel=large emit) that hands anything else, and any fault, to the general one, which
 * OBJRT_FULL_WALK=1 makes every FDE take (t_eh_frame compares them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finish/finish.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"
#include "debug/unitinfo.h"

enum {
    PE_OMIT = 0xff, PE_INDIRECT = 0x80, PE_APP = 0x70, PE_PCREL = 0x10, PE_FORM = 0x0f,
    PE_ABSPTR = 0x00, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03, PE_UDATA8 = 0x04,
    PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b, PE_SDATA8 = 0x0c,
};
#define MAX_RA_COLUMN 128           /* past every target's DWARF_FRAME_REGISTERS */

typedef struct rd {                 /* a cursor inside one record */
    const uint8_t *p, *end;
} rd;

typedef struct cie {
    uint64_t off;                   /* record start in the section */
    uint8_t fde_enc, lsda_enc;
    bool z;                         /* FDEs carry augmentation data */
    uint8_t shape;                  /* which short path its FDEs may take (SHAPE_*) */
} cie;

/* The CIEs whose FDEs have a short path: 'z' with PC-relative pointers of one size, and
 * no LSDA or (sdata4 only) a PC-relative sdata4 one. */
enum { SHAPE_NONE, SHAPE_4, SHAPE_4_LSDA, SHAPE_8 };

typedef struct ehcheck {
    objrt_link *l;
    const objrt_item *it;
    const uint8_t *sec;             /* the relocated section */
    uint64_t code_lo, code_hi;      /* the unit's RX group */
    uint64_t ro_lo, ro_hi;          /* its R group, .gcc_except_table's (fde_common_lsda) */
    cie *cies;                      /* `few`, until a section has more CIEs */
    size_t ncies, capcies;
    cie few[4];
    const cie *last;                /* the CIE the previous FDE used */
    uint64_t rec;                   /* offset of the record being checked */
    bool full;                      /* OBJRT_FULL_WALK: every FDE by the general path */
} ehcheck;

static int bad(ehcheck *c, const char *what)
{
    const objrt_obj *o = c->l->objs[c->it->obj];
    return objrt_fail(c->l->ctx, "%s: section %s+0x%llx: %s (after relocation); the unwinder "
                      "would misread it", o->name, objrt_sec_name(o, c->it->shndx),
                      (unsigned long long)c->rec, what);
}

static bool get_u8(rd *r, uint8_t *v)
{
    if (r->p >= r->end)
        return false;
    *v = *r->p++;
    return true;
}

static bool get_uleb(rd *r, uint64_t *v)
{
    uint8_t b;
    *v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (!get_u8(r, &b) || shift > 63)
            return false;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
}

static bool get_sleb(rd *r)
{
    uint64_t ignored;
    return get_uleb(r, &ignored);   /* same bytes; the value itself is not needed */
}

static bool skip(rd *r, uint64_t n)
{
    if (n > (uint64_t)(r->end - r->p))
        return false;
    r->p += n;
    return true;
}

/* Bytes of a fixed-size pointer form, 0 for any other. */
static unsigned form_size(uint8_t enc)
{
    switch (enc & PE_FORM) {
    case PE_ABSPTR: case PE_UDATA8: case PE_SDATA8: return 8;
    case PE_UDATA4: case PE_SDATA4: return 4;
    case PE_UDATA2: case PE_SDATA2: return 2;
    default: return 0;
    }
}

static bool enc_ok(uint8_t enc, bool indirect_ok)
{
    uint8_t app = enc & PE_APP;
    return form_size(enc) && (app == 0 || app == PE_PCREL) &&
           (indirect_ok || !(enc & PE_INDIRECT));
}

/* Decode a pointer (without dereferencing an indirect one): its address, in the image.
 * Always inline: every FDE decodes two, and a call makes the record's cursor live in
 * memory. */
static inline __attribute__((always_inline)) bool get_ptr(rd *r, uint8_t enc, uint64_t *v)
{
    unsigned n = form_size(enc);
    uint64_t raw, at = (uintptr_t)r->p;
    if (!n || n > (uint64_t)(r->end - r->p))
        return false;
    if (n == 8) {                   /* fixed-size copies: no call to memcpy per field */
        memcpy(&raw, r->p, 8);
    } else if (n == 4) {
        uint32_t w;
        memcpy(&w, r->p, 4);        /* little-endian: the low bytes */
        raw = w;
    } else {
        uint16_t w;
        memcpy(&w, r->p, 2);
        raw = w;
    }
    r->p += n;
    if ((enc & 0x08) && n < 8 && (raw >> (8 * n - 1)) & 1)      /* sdataN: sign-extend */
        raw |= ~(uint64_t)0 << (8 * n);
    *v = raw + ((enc & PE_APP) == PE_PCREL ? at : 0);
    return true;
}

/* Any of the unit's groups holds [a, a + n). */
static bool in_unit(const objrt_link *l, uint64_t a, uint64_t n)
{
    const objrt_plan *p = &l->plan;
    for (int g = 0; g < GRP_COUNT; g++) {
        uint64_t lo = (uintptr_t)l->base + p->group_off[g], hi = lo + p->group_size[g];
        if (a >= lo && a <= hi && n <= hi - a)
            return true;
    }
    return false;
}

/* A LEB128 operand whose value is not needed: what get_uleb accepts (at most 10 bytes,
 * the last without the continuation bit, inside the record) without assembling it. */
static inline bool skip_leb(rd *r)
{
    const uint8_t *p = r->p, *lim = r->end - p > 10 ? p + 10 : r->end;
    while (p < lim)
        if (!(*p++ & 0x80)) {
            r->p = p;
            return true;
        }
    return false;
}

/* Operand shapes of the call-frame instructions (DWARF 4 section 7.23): by opcode byte, so
 * the walk decides each instruction with one table load. 0x40-0x7f advance_loc and
 * 0xc0-0xff restore carry their operand in the opcode, 0x80-0xbf offset adds a ULEB. */
enum { OP_BAD, OP_NONE, OP_LEB, OP_LEB2, OP_SKIP1, OP_SKIP2, OP_SKIP4, OP_SKIP8, OP_SET_LOC,
       OP_BLOCK, OP_LEB_BLOCK };
#define OPS4(v) v, v, v, v
#define OPS16(v) OPS4(v), OPS4(v), OPS4(v), OPS4(v)
static const uint8_t op_shape[256] = {
    [0x00] = OP_NONE,       /* nop */
    [0x01] = OP_SET_LOC,    /* set_loc: an address in the FDE's encoding */
    [0x02] = OP_SKIP1, [0x03] = OP_SKIP2, [0x04] = OP_SKIP4,   /* advance_loc1/2/4 */
    [0x05] = OP_LEB2,       /* offset_extended */
    [0x06] = OP_LEB, [0x07] = OP_LEB, [0x08] = OP_LEB,  /* restore_extended, undefined,
                                                           same_value */
    [0x09] = OP_LEB2,       /* register */
    [0x0a] = OP_NONE, [0x0b] = OP_NONE,                 /* remember_state, restore_state */
    [0x0c] = OP_LEB2,       /* def_cfa */
    [0x0d] = OP_LEB, [0x0e] = OP_LEB,                   /* def_cfa_register, def_cfa_offset */
    [0x0f] = OP_BLOCK,      /* def_cfa_expression */
    [0x10] = OP_LEB_BLOCK,  /* expression */
    [0x11] = OP_LEB2, [0x12] = OP_LEB2,                 /* offset_extended_sf, def_cfa_sf */
    [0x13] = OP_LEB,        /* def_cfa_offset_sf */
    [0x14] = OP_LEB2, [0x15] = OP_LEB2,                 /* val_offset, val_offset_sf */
    [0x16] = OP_LEB_BLOCK,  /* val_expression */
    [0x1d] = OP_SKIP8,      /* MIPS_advance_loc8 */
    [0x2d] = OP_NONE,       /* GNU_window_save / AArch64 negate_ra_state */
    [0x2e] = OP_LEB,        /* GNU_args_size */
    [0x2f] = OP_LEB2,       /* GNU_negative_offset_extended */
    [0x40] = OPS16(OP_NONE), OPS16(OP_NONE), OPS16(OP_NONE), OPS16(OP_NONE),
    [0x80] = OPS16(OP_LEB), OPS16(OP_LEB), OPS16(OP_LEB), OPS16(OP_LEB),
    [0xc0] = OPS16(OP_NONE), OPS16(OP_NONE), OPS16(OP_NONE), OPS16(OP_NONE),
};

/* One call-frame instruction at r->p (before r->end): a known opcode, its operands inside. */
static bool step_insn(rd *r, uint8_t fde_enc)
{
    uint64_t u;
    switch (op_shape[*r->p++]) {
    case OP_NONE:    return true;
    case OP_LEB:     return skip_leb(r);
    case OP_LEB2:    return skip_leb(r) && skip_leb(r);
    case OP_SKIP1:   return skip(r, 1);
    case OP_SKIP2:   return skip(r, 2);
    case OP_SKIP4:   return skip(r, 4);
    case OP_SKIP8:   return skip(r, 8);
    case OP_SET_LOC: return get_ptr(r, fde_enc & ~PE_APP, &u);
    case OP_BLOCK:   return get_uleb(r, &u) && skip(r, u);
    case OP_LEB_BLOCK: return skip_leb(r) && get_uleb(r, &u) && skip(r, u);
    default:         return false;                  /* OP_BAD: an unknown opcode */
    }
}

/* Call-frame instructions up to the end of the record: known opcodes, operands inside.
 * Hot: every FDE's program is walked on every load, so the cursor lives in a local (kept
 * in registers), each opcode is one table load, and a one-byte LEB128 (almost all of them)
 * is stepped over inline, without comparing with the end first: the byte after a record
 * is readable (check_section: another record's length or the section's terminator
 * follows), and an operand that was that byte leaves the cursor past the end, refused
 * below as check_insns has always refused it. Every other instruction goes through
 * step_insn. Not inlined: copied into its three callers it made the check dearer. */
static __attribute__((noinline)) bool check_insns(rd *rec, uint8_t fde_enc)
{
    rd c = *rec;
    while (c.p < c.end) {
        uint8_t shape = op_shape[*c.p];
        if (shape == OP_NONE) {
            c.p++;
        } else if (shape == OP_LEB && !(c.p[1] & 0x80)) {
            c.p += 2;
        } else if (!step_insn(&c, fde_enc)) {
            return false;
        }
    }
    if (c.p != c.end)
        return false;                   /* a one-byte operand past the record */
    *rec = c;
    return true;
}

static int add_cie(ehcheck *c, cie k)
{
    if (c->ncies == c->capcies) {           /* past the few CIEs a section usually has */
        size_t cap = c->capcies * 2;
        cie *v = c->cies == c->few ? malloc(cap * sizeof *v) : realloc(c->cies, cap * sizeof *v);
        if (!v)
            return objrt_fail(c->l->ctx, "out of memory");
        if (c->cies == c->few)
            memcpy(v, c->few, sizeof c->few);
        c->cies = v;
        c->capcies = cap;
        c->last = NULL;             /* it pointed into the old array */
    }
    c->cies[c->ncies++] = k;
    return 0;
}

/* The augmentation data of a 'z' CIE: one entry per letter, inside the declared length. */
static int check_cie_augmentation(ehcheck *c, rd *r, const char *aug, cie *k)
{
    uint64_t len, v;
    uint8_t enc;
    if (!get_uleb(r, &len) || len > (uint64_t)(r->end - r->p))
        return bad(c, "CIE augmentation data runs past the record");
    rd a = { r->p, r->p + len };
    r->p += len;
    for (const char *s = aug + 1; *s; s++) {
        switch (*s) {
        case 'L':
            if (!get_u8(&a, &enc) || (enc != PE_OMIT && !enc_ok(enc, false)))
                return bad(c, "CIE has an LSDA pointer encoding the unwinder does not read");
            k->lsda_enc = enc;
            break;
        case 'R':
            if (!get_u8(&a, &enc) || !enc_ok(enc, false))
                return bad(c, "CIE has an FDE pointer encoding the unwinder does not read");
            k->fde_enc = enc;
            break;
        case 'P':
            if (!get_u8(&a, &enc) || !enc_ok(enc, true) || !get_ptr(&a, enc, &v))
                return bad(c, "CIE has a personality pointer the unwinder does not read");
            if ((enc & PE_INDIRECT) && !in_unit(c->l, v, 8))
                return bad(c, "CIE's indirect personality pointer lies outside the unit");
            break;
        case 'S':                   /* signal frame */
        case 'B':                   /* AArch64: return address signed with the B key */
            break;
        default:
            return bad(c, "CIE augmentation string has a letter the unwinder does not know");
        }
    }
    return 0;
}

static int check_cie(ehcheck *c, rd *r)
{
    uint8_t version, ra8;
    uint64_t u;
    cie k = { c->rec, PE_ABSPTR, PE_OMIT, false, SHAPE_NONE };
    if (!get_u8(r, &version) || (version != 1 && version != 3))
        return bad(c, "CIE version is not 1 or 3");
    const char *aug = (const char *)r->p;
    const uint8_t *nul = memchr(r->p, '\0', (size_t)(r->end - r->p));
    if (!nul)
        return bad(c, "CIE augmentation string is not terminated inside the record");
    r->p = nul + 1;
    if (aug[0] && aug[0] != 'z')
        return bad(c, "CIE augmentation string does not start with 'z'");
    k.z = aug[0] == 'z';
    if (!get_uleb(r, &u) || !get_sleb(r))
        return bad(c, "CIE alignment factors run past the record");
    bool ra_read = version == 1 ? get_u8(r, &ra8) : get_uleb(r, &u);
    if (!ra_read)
        return bad(c, "CIE return address column runs past the record");
    if (version == 1)
        u = ra8;
    if (u >= MAX_RA_COLUMN)
        return bad(c, "CIE return address column is not a register");
    if (k.z && check_cie_augmentation(c, r, aug, &k))
        return -1;
    if (k.z && k.fde_enc == (PE_PCREL | PE_SDATA4) && k.lsda_enc == PE_OMIT)
        k.shape = SHAPE_4;
    else if (k.z && k.fde_enc == (PE_PCREL | PE_SDATA4) && k.lsda_enc == (PE_PCREL | PE_SDATA4))
        k.shape = SHAPE_4_LSDA;
    else if (k.z && k.fde_enc == (PE_PCREL | PE_SDATA8) && k.lsda_enc == PE_OMIT)
        k.shape = SHAPE_8;
    if (!check_insns(r, k.fde_enc))
        return bad(c, "CIE has an unknown call-frame instruction or one that runs past "
                      "the record");
    return add_cie(c, k);
}

static const cie *find_cie(ehcheck *c, uint64_t off)
{
    if (c->last && c->last->off == off)     /* most sections: one CIE, every FDE after it */
        return c->last;
    size_t lo = 0, hi = c->ncies;           /* CIEs are added in increasing offset order */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->cies[mid].off == off)
            return c->last = &c->cies[mid];
        if (c->cies[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* pc_begin and pc_range in the CIE's encoding; *raw receives pc_begin's bytes as stored.
 * The encoding GCC and LLVM emit for the small and medium code models, PC-relative sdata4,
 * is read directly; every other goes through get_ptr. */
static bool get_range(rd *r, uint8_t enc, uint64_t *begin, uint64_t *range, uint64_t *raw)
{
    if (enc == (PE_PCREL | PE_SDATA4) && r->end - r->p >= 8) {
        int32_t b;
        uint32_t n;
        memcpy(&b, r->p, 4);
        memcpy(&n, r->p + 4, 4);
        *raw = (uint32_t)b;
        *begin = (uintptr_t)r->p + (uint64_t)(int64_t)b;
        *range = n;
        r->p += 8;
        return true;
    }
    const uint8_t *field = r->p;
    if (!get_ptr(r, enc, begin) || !get_ptr(r, enc & PE_FORM, range))
        return false;
    *raw = 0;
    memcpy(raw, field, form_size(enc));
    return true;
}

/* An FDE's augmentation data (its CIE has 'z'): inside the record, and when the CIE has 'L'
 * (lsda_enc not omit), starting with the LSDA pointer. libgcc reads that pointer right after
 * the length, whatever the length says, and the personality routine then reads the LSDA
 * (and the call-site table in it) where it leads, whenever a frame of this FDE is unwound:
 * so the data must hold it, and it must lead into the unit's image. A field of 0 is no
 * LSDA (libgcc's read_encoded_value adds no base to a 0, so even a PC-relative 0 is NULL,
 * which the personality routines take as "nothing to do in this frame"); so is a dropped
 * COMDAT function's reference to its LSDA (comdat.c writes such references as 0). */
static int check_fde_augmentation(ehcheck *c, rd *r, const cie *k)
{
    uint64_t n, lsda;
    if (r->p < r->end && !(*r->p & 0x80))
        n = *r->p++;                /* a one-byte length, without get_uleb's loop */
    else if (!get_uleb(r, &n))
        return bad(c, "FDE augmentation data runs past the record");
    if (n > (uint64_t)(r->end - r->p))
        return bad(c, "FDE augmentation data runs past the record");
    if (k->lsda_enc != PE_OMIT) {
        rd a = { r->p, r->p + n };
        uint64_t none = (k->lsda_enc & PE_APP) == PE_PCREL ? (uintptr_t)a.p : 0;
        if (!get_ptr(&a, k->lsda_enc, &lsda))
            return bad(c, "FDE augmentation data is too short for the LSDA pointer its "
                          "CIE's 'L' announces");
        if (lsda != none && !in_unit(c->l, lsda, 1)) {
            char what[96];
            snprintf(what, sizeof what, "FDE's LSDA pointer (record offset 0x%llx) leads "
                     "outside the unit", (unsigned long long)(r->p - (c->sec + c->rec)));
            return bad(c, what);
        }
    }
    r->p += n;
    return 0;
}

static int check_fde(ehcheck *c, rd *r, uint32_t cie_delta)
{
    uint64_t id_at = c->rec + 4, begin, range, raw;
    const cie *k = cie_delta <= id_at ? find_cie(c, id_at - cie_delta) : NULL;
    if (!k)
        return bad(c, "FDE's CIE pointer does not point at an earlier CIE of the section");
    if (!get_range(r, k->fde_enc, &begin, &range, &raw))
        return bad(c, "FDE address range runs past the record");
    if (raw != 0 &&                 /* 0: a discarded function's FDE, skipped by libgcc */
        (begin < c->code_lo || begin > c->code_hi || range > c->code_hi - begin))
        return bad(c, "FDE covers addresses outside the unit's code");
    if (k->z && check_fde_augmentation(c, r, k))
        return -1;
    if (!check_insns(r, k->fde_enc))
        return bad(c, "FDE has an unknown call-frame instruction or one that runs past "
                      "the record");
    return 0;
}

/* The short paths' pc_begin (PC-relative, `ptr` bytes at f + 8: sdata4 or sdata8) and
 * range (the `ptr` bytes after it): 0 (a dropped function's FDE) or inside the unit's
 * code. `ptr` is a constant at every call, so each path reads its own width directly. */
static inline __attribute__((always_inline)) bool fde_range_in_code(const ehcheck *c,
                                                                   const uint8_t *f,
                                                                   unsigned ptr)
{
    uint64_t b, n;
    if (ptr == 8) {
        memcpy(&b, f + 8, 8);
        memcpy(&n, f + 16, 8);
    } else {
        int32_t b4;
        uint32_t n4;
        memcpy(&b4, f + 8, 4);
        memcpy(&n4, f + 12, 4);
        b = (uint64_t)(int64_t)b4;
        n = n4;
    }
    uint64_t begin = (uintptr_t)(f + 8) + b;
    return b == 0 || (begin >= c->code_lo && begin <= c->code_hi && n <= c->code_hi - begin);
}

/* The FDE almost every record is, checked without the general path's steps: its CIE the
 * one the previous FDE used (at `cie_off`, or `cie_off8` for the large code model's, which
 * LLVM's JIT and clang -mcmodel=large emit), with 'z' and PC-relative pointers of `ptr`
 * bytes (4: sdata4, 8: sdata8), no 'L'; augmentation data of length 0 (at f + 8 + 2 ptr);
 * a range inside the unit's code. false for any fault: the general path then decides, and
 * words the error. */
static inline __attribute__((always_inline)) bool fde_common(const ehcheck *c,
                                                            const uint8_t *f,
                                                            const uint8_t *end,
                                                            unsigned ptr)
{
    unsigned aug = 8 + 2 * ptr;
    if (end - f < aug + 1 || f[aug] != 0 || !fde_range_in_code(c, f, ptr))
        return false;
    rd r = { f + aug + 1, end };
    return check_insns(&r, PE_PCREL | (ptr == 8 ? PE_SDATA8 : PE_SDATA4));
}

/* The same for the FDE of a C++ function with a landing pad: its CIE (at `cie_off_l`) has
 * 'L' with a PC-relative sdata4 LSDA pointer, and its augmentation data is exactly that
 * pointer, 0 or into the unit's R group (.gcc_except_table's). A copy of fde_common rather
 * than a flag: a flag tested in the common FDE's path costs the objects with no 'L'. */
static inline __attribute__((always_inline)) bool fde_common_lsda(const ehcheck *c,
                                                                 const uint8_t *f,
                                                                 const uint8_t *end)
{
    if (end - f < 21 || f[16] != 4)
        return false;
    int32_t d;
    memcpy(&d, f + 17, 4);
    uint64_t lsda = (uintptr_t)(f + 17) + (uint64_t)(int64_t)d;
    if ((d != 0 && (lsda < c->ro_lo || lsda >= c->ro_hi)) || !fde_range_in_code(c, f, 4))
        return false;
    rd r = { f + 21, end };
    return check_insns(&r, PE_PCREL | PE_SDATA4);
}

/* One placed .eh_frame item (its bytes, then the 4-byte terminator the plan added). The
 * record's offset stays in a local (c->rec is written for the general path and errors).
 * fde_common's CIE is at cie_off (sdata4) or cie_off8 (sdata8), fde_common_lsda's at
 * cie_off_l: at most one is set. */
static int check_section(ehcheck *c)
{
    const uint8_t *sec = c->sec;
    uint64_t size = c->it->size - 4, rec;
    uint64_t cie_off = UINT64_MAX, cie_off_l = UINT64_MAX, cie_off8 = UINT64_MAX;
    for (rec = 0; rec + 4 <= size;) {
        uint32_t len, id;
        memcpy(&len, sec + rec, 4);
        if (len == 0)
            return 0;                       /* the unwinder stops here */
        if (len < 4 || len > size - rec - 4) {
            c->rec = rec;
            return bad(c, "record length runs past the section");
        }
        memcpy(&id, sec + rec + 4, 4);
        const uint8_t *end = sec + rec + 4 + len;
        /* id 0: a CIE; above rec + 4: a pointer out of the section, which wraps */
        uint64_t at = rec + 4 - id;
        if (id == 0 || id > rec + 4 ||
            (at == cie_off ? !fde_common(c, sec + rec, end, 4)
             : at == cie_off_l ? !fde_common_lsda(c, sec + rec, end)
             : at != cie_off8 || !fde_common(c, sec + rec, end, 8))) {
            rd r = { sec + rec + 8, end };
            c->rec = rec;
            if (id == 0 ? check_cie(c, &r) : check_fde(c, &r, id))
                return -1;
            const cie *k = c->full ? NULL : c->last;
            uint8_t shape = k ? k->shape : SHAPE_NONE;
            cie_off = shape == SHAPE_4 ? k->off : UINT64_MAX;
            cie_off_l = shape == SHAPE_4_LSDA ? k->off : UINT64_MAX;
            cie_off8 = shape == SHAPE_8 ? k->off : UINT64_MAX;
        }
        rec += 4 + (uint64_t)len;
    }
    c->rec = rec;
    if (rec != size)
        return bad(c, "records do not end at the section end");
    return 0;
}

int objrt_eh_frame_check(objrt_link *l, const objrt_item *it)
{
#ifdef OBJRT_BENCH_ABLATE
    (void)l, (void)it;
    return 0;           /* bench/link's ablated build: what a load costs without the check */
#endif
    const objrt_plan *p = &l->plan;
    uint64_t code = (uintptr_t)l->base + p->group_off[GRP_RX];
    ehcheck c = { .l = l, .it = it, .sec = l->base + it->off, .code_lo = code,
                  .code_hi = code + p->group_size[GRP_RX], .full = l->full_walk };
    c.ro_lo = (uintptr_t)l->base + p->group_off[GRP_R];
    c.ro_hi = c.ro_lo + p->group_size[GRP_R];
    c.cies = c.few;
    c.capcies = sizeof c.few / sizeof c.few[0];
    int rc = it->size >= 4 ? check_section(&c) : 0;
    if (c.cies != c.few)
        free(c.cies);
    return rc;
}

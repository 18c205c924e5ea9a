/*
 * arch_aarch64.c - AArch64 ELF psABI relocations (ELF for the Arm 64-bit Architecture,
 * "Relocation types"): the table, one encoder per instruction encoding, and the veneer.
 *
 * The table gives every type its formula and the range of its *value* in bytes (arch.h):
 * a B/BL reaches +-128 MiB, so CALL26 checks 28 signed bits with 4-byte alignment, and the
 * encoder stores value >> 2 in imm26. ADRP values are page differences in bytes (+-4 GiB,
 * 33 signed bits) and the encoder stores value >> 12. LDSTn_ABS_LO12_NC require the low 12
 * bits to be a multiple of the access size (align) and store them scaled down by it. The
 * driver applies the range check (objrt_value_fits) before any encoder runs, so encoders
 * only place bits.
 */
#include <string.h>
#include <ucontext.h>

#include <elf.h>

#include "arch/arch.h"

enum field {
    FLD_NONE,
    FLD_DATA,       /* 16/32/64-bit little-endian datum */
    FLD_IMM26,      /* B, BL: bits 0-25 */
    FLD_IMM19,      /* B.cond, CBZ/CBNZ, LDR (literal): bits 5-23 */
    FLD_IMM14,      /* TBZ/TBNZ: bits 5-18 */
    FLD_ADR,        /* ADR, ADRP: immlo bits 29-30, immhi bits 5-23 */
    FLD_IMM12,      /* ADD (immediate), LDR/STR (unsigned offset): bits 10-21 */
    FLD_IMM12_HI,   /* ADD (immediate, LSL #12): bits 12-23 of the value in bits 10-21 */
    FLD_MOVW,       /* MOVZ/MOVK as emitted: imm16 bits 5-20 */
    FLD_MOVW_NZ,    /* MOVZ or MOVN chosen by the sign of the value (signed forms) */
};

#define HOWTO(t, f, c, b, al, fld, sh, sz, k) \
    [R_AARCH64_##t] = { .name = "R_AARCH64_" #t, .formula = f, .check = c, .bits = b, \
                        .align = al, .field = fld, .shift = sh, .size = sz, .tls = k, \
                        .direct = OBJRT_DIRECT(f, k), .abs_ranged = OBJRT_ABS_RANGED(f, c, b), \
                        OBJRT_FITS(c, b, al), \
                        .plain = (fld) == FLD_DATA ? OBJRT_PLAIN(sz) : 0 }
#define R(t, f, c, b, al, fld, sh, sz) HOWTO(t, f, c, b, al, fld, sh, sz, TLS_NO)
#define DATA(t, f, c, b, sz)      R(t, f, c, b, 0, FLD_DATA, 0, sz)
#define INSN(t, f, c, b, al, fld, sh) R(t, f, c, b, al, fld, sh, 4)
#define LDST(n, sh)  INSN(LDST##n##_ABS_LO12_NC, F_ABS, C_NONE, 64, 1 << sh, FLD_IMM12, sh)
#define TLSG(t, f, c, b, al, fld, sh, k) HOWTO(t, f, c, b, al, fld, sh, 4, TLS_##k)
#define TLSV(t, c, b, al, fld, sh, k) TLSG(t, F_ABS, c, b, al, fld, sh, k)
/* TLSLD_LDSTn_DTPREL_LO12[_NC], TLSLE_LDSTn_TPREL_LO12[_NC]: 0 <= X < 2^12, scaled */
#define TLSLDST(m, k, n, sh) \
    TLSV(m##_LDST##n##_##k##_LO12, C_UNSIGNED, 12, 1 << sh, FLD_IMM12, sh, k), \
    TLSV(m##_LDST##n##_##k##_LO12_NC, C_NONE, 64, 1 << sh, FLD_IMM12, sh, k)
/* The GOT-pair forms general and local dynamic share: TLSGD_*, TLSLD_* */
#define TLSDYN(m, k) \
    TLSG(m##_ADR_PREL21,  F_GOT_PCREL,      C_SIGNED, 21, 0, FLD_ADR, 0, k), \
    TLSG(m##_ADR_PAGE21,  F_GOT_PAGE_PCREL, C_SIGNED, 33, 0, FLD_ADR, 12, k), \
    TLSG(m##_ADD_LO12_NC, F_GOT_ABS,        C_NONE,   64, 0, FLD_IMM12, 0, k), \
    TLSG(m##_MOVW_G1,     F_GOT_OFFSET,     C_SIGNED, 33, 0, FLD_MOVW_NZ, 16, k), \
    TLSG(m##_MOVW_G0_NC,  F_GOT_OFFSET,     C_NONE,   64, 0, FLD_MOVW, 0, k)
/* The offset forms local dynamic (k = DTPREL) and local exec (k = TPREL) share */
#define TLSOFF(m, k) \
    TLSV(m##_MOVW_##k##_G2,     C_SIGNED,   49, 0, FLD_MOVW_NZ, 32, k), \
    TLSV(m##_MOVW_##k##_G1,     C_SIGNED,   33, 0, FLD_MOVW_NZ, 16, k), \
    TLSV(m##_MOVW_##k##_G1_NC,  C_NONE,     64, 0, FLD_MOVW, 16, k), \
    TLSV(m##_MOVW_##k##_G0,     C_SIGNED,   17, 0, FLD_MOVW_NZ, 0, k), \
    TLSV(m##_MOVW_##k##_G0_NC,  C_NONE,     64, 0, FLD_MOVW, 0, k), \
    TLSV(m##_ADD_##k##_HI12,    C_UNSIGNED, 24, 0, FLD_IMM12_HI, 12, k), \
    TLSV(m##_ADD_##k##_LO12,    C_UNSIGNED, 12, 0, FLD_IMM12, 0, k), \
    TLSV(m##_ADD_##k##_LO12_NC, C_NONE,     64, 0, FLD_IMM12, 0, k), \
    TLSLDST(m, k, 8, 0), TLSLDST(m, k, 16, 1), TLSLDST(m, k, 32, 2), TLSLDST(m, k, 64, 3), \
    TLSLDST(m, k, 128, 4)
#define DYN(t) HOWTO(t, F_TLS, C_NONE, 0, 0, FLD_NONE, 0, 0, TLS_NO)

static const objrt_howto aarch64_howtos[] = {
    R(NONE, F_NONE, C_NONE, 0, 0, FLD_NONE, 0, 0),
    [256] = { .name = "R_AARCH64_NONE (256)", .formula = F_NONE, .check = C_NONE,   /* withdrawn */
              OBJRT_FITS(C_NONE, 0, 0) },                                         /* alias */
    /* data */
    DATA(ABS64, F_ABS,   C_NONE,   64, 8),
    DATA(ABS32, F_ABS,   C_EITHER, 32, 4),
    DATA(ABS16, F_ABS,   C_EITHER, 16, 2),
    DATA(PREL64, F_PCREL, C_NONE,  64, 8),
    DATA(PREL32, F_PCREL, C_EITHER, 32, 4),
    DATA(PREL16, F_PCREL, C_EITHER, 16, 2),
    /* branches */
    INSN(CALL26,   F_BRANCH, C_SIGNED, 28, 4, FLD_IMM26, 2),
    INSN(JUMP26,   F_BRANCH, C_SIGNED, 28, 4, FLD_IMM26, 2),
    INSN(CONDBR19, F_PCREL,  C_SIGNED, 21, 4, FLD_IMM19, 2),
    INSN(TSTBR14,  F_PCREL,  C_SIGNED, 16, 4, FLD_IMM14, 2),
    /* PC-relative addresses and literals */
    INSN(LD_PREL_LO19,        F_PCREL,          C_SIGNED, 21, 4, FLD_IMM19, 2),
    INSN(ADR_PREL_LO21,       F_PCREL,          C_SIGNED, 21, 0, FLD_ADR, 0),
    INSN(ADR_PREL_PG_HI21,    F_PAGE_PCREL,     C_SIGNED, 33, 0, FLD_ADR, 12),
    INSN(ADR_PREL_PG_HI21_NC, F_PAGE_PCREL,     C_NONE,   64, 0, FLD_ADR, 12),
    INSN(ADR_GOT_PAGE,        F_GOT_PAGE_PCREL, C_SIGNED, 33, 0, FLD_ADR, 12),
    /* low 12 bits of an absolute address; loads and stores scale by the access size */
    INSN(ADD_ABS_LO12_NC,  F_ABS,     C_NONE, 64, 0, FLD_IMM12, 0),
    INSN(LD64_GOT_LO12_NC, F_GOT_ABS, C_NONE, 64, 8, FLD_IMM12, 3),
    LDST(8, 0), LDST(16, 1), LDST(32, 2), LDST(64, 3), LDST(128, 4),
    /* MOVW: 16 bits of the value at a time; the checked forms reject bits above them */
    INSN(MOVW_UABS_G0,    F_ABS, C_UNSIGNED, 16, 0, FLD_MOVW, 0),
    INSN(MOVW_UABS_G0_NC, F_ABS, C_NONE,     64, 0, FLD_MOVW, 0),
    INSN(MOVW_UABS_G1,    F_ABS, C_UNSIGNED, 32, 0, FLD_MOVW, 16),
    INSN(MOVW_UABS_G1_NC, F_ABS, C_NONE,     64, 0, FLD_MOVW, 16),
    INSN(MOVW_UABS_G2,    F_ABS, C_UNSIGNED, 48, 0, FLD_MOVW, 32),
    INSN(MOVW_UABS_G2_NC, F_ABS, C_NONE,     64, 0, FLD_MOVW, 32),
    INSN(MOVW_UABS_G3,    F_ABS, C_NONE,     64, 0, FLD_MOVW, 48),
    INSN(MOVW_SABS_G0,    F_ABS, C_SIGNED,   17, 0, FLD_MOVW_NZ, 0),
    INSN(MOVW_SABS_G1,    F_ABS, C_SIGNED,   33, 0, FLD_MOVW_NZ, 16),
    INSN(MOVW_SABS_G2,    F_ABS, C_SIGNED,   49, 0, FLD_MOVW_NZ, 32),
    INSN(MOVW_PREL_G0,    F_PCREL, C_SIGNED, 17, 0, FLD_MOVW_NZ, 0),
    INSN(MOVW_PREL_G0_NC, F_PCREL, C_NONE,   64, 0, FLD_MOVW, 0),
    INSN(MOVW_PREL_G1,    F_PCREL, C_SIGNED, 33, 0, FLD_MOVW_NZ, 16),
    INSN(MOVW_PREL_G1_NC, F_PCREL, C_NONE,   64, 0, FLD_MOVW, 16),
    INSN(MOVW_PREL_G2,    F_PCREL, C_SIGNED, 49, 0, FLD_MOVW_NZ, 32),
    INSN(MOVW_PREL_G2_NC, F_PCREL, C_NONE,   64, 0, FLD_MOVW, 32),
    INSN(MOVW_PREL_G3,    F_PCREL, C_NONE,   64, 0, FLD_MOVW_NZ, 48),
    /* thread-local storage: GOT forms reach the unit's TLS GOT entries (GTLSIDX, GLDM,
     * GTPREL, GTLSDESC), DTPREL/TPREL forms the symbol's offset; never relaxed */
    TLSDYN(TLSGD, GD),
    TLSDYN(TLSLD, LD),
    TLSG(TLSLD_LD_PREL19,   F_GOT_PCREL,      C_SIGNED, 21, 4, FLD_IMM19, 2, LD),
    TLSOFF(TLSLD, DTPREL),
    TLSG(TLSIE_MOVW_GOTTPREL_G1,     F_GOT_OFFSET,     C_SIGNED, 33, 0, FLD_MOVW_NZ, 16, IE),
    TLSG(TLSIE_MOVW_GOTTPREL_G0_NC,  F_GOT_OFFSET,     C_NONE,   64, 0, FLD_MOVW, 0, IE),
    TLSG(TLSIE_ADR_GOTTPREL_PAGE21,  F_GOT_PAGE_PCREL, C_SIGNED, 33, 0, FLD_ADR, 12, IE),
    TLSG(TLSIE_LD64_GOTTPREL_LO12_NC, F_GOT_ABS,       C_NONE,   64, 8, FLD_IMM12, 3, IE),
    TLSG(TLSIE_LD_GOTTPREL_PREL19,   F_GOT_PCREL,      C_SIGNED, 21, 4, FLD_IMM19, 2, IE),
    TLSOFF(TLSLE, TPREL),
    TLSG(TLSDESC_LD_PREL19,  F_GOT_PCREL,      C_SIGNED, 21, 4, FLD_IMM19, 2, DESC),
    TLSG(TLSDESC_ADR_PREL21, F_GOT_PCREL,      C_SIGNED, 21, 0, FLD_ADR, 0, DESC),
    TLSG(TLSDESC_ADR_PAGE21, F_GOT_PAGE_PCREL, C_SIGNED, 33, 0, FLD_ADR, 12, DESC),
    TLSG(TLSDESC_LD64_LO12,  F_GOT_ABS,        C_NONE,   64, 8, FLD_IMM12, 3, DESC),
    TLSG(TLSDESC_ADD_LO12,   F_GOT_ABS,        C_NONE,   64, 0, FLD_IMM12, 0, DESC),
    TLSG(TLSDESC_OFF_G1,     F_GOT_OFFSET,     C_SIGNED, 33, 0, FLD_MOVW_NZ, 16, DESC),
    TLSG(TLSDESC_OFF_G0_NC,  F_GOT_OFFSET,     C_NONE,   64, 0, FLD_MOVW, 0, DESC),
    /* markers on the descriptor sequence's LDR, ADD and BLR: nothing to write */
    R(TLSDESC_LDR, F_NONE, C_NONE, 0, 0, FLD_NONE, 0, 0),
    R(TLSDESC_ADD, F_NONE, C_NONE, 0, 0, FLD_NONE, 0, 0),
    R(TLSDESC_CALL, F_NONE, C_NONE, 0, 0, FLD_NONE, 0, 0),
    /* dynamic types: a linker's output, never an object's input */
    DYN(TLS_DTPMOD), DYN(TLS_DTPREL), DYN(TLS_TPREL), DYN(TLSDESC),
};

static uint32_t insn_read(const uint8_t *loc)
{
    uint32_t insn;
    memcpy(&insn, loc, 4);
    return insn;
}

static void insn_write(uint8_t *loc, uint32_t insn) { memcpy(loc, &insn, 4); }

/* Replace the `len` bits at `lsb` of the instruction with the low bits of imm. */
static uint32_t insn_field(uint32_t insn, int lsb, int len, uint64_t imm)
{
    uint32_t mask = (uint32_t)((1ull << len) - 1) << lsb;
    return (insn & ~mask) | ((uint32_t)(imm << lsb) & mask);
}

static void write_data(uint8_t *loc, size_t size, uint64_t v)
{
    uint16_t v16 = (uint16_t)v;
    uint32_t v32 = (uint32_t)v;
    if (size == 8)
        memcpy(loc, &v, 8);
    else if (size == 4)
        memcpy(loc, &v32, 4);
    else if (size == 2)
        memcpy(loc, &v16, 2);
}

/* ADR/ADRP: the 21-bit immediate is split, immlo (2 bits) at 29, immhi (19 bits) at 5. */
static uint32_t encode_adr(uint32_t insn, uint64_t imm)
{
    insn = insn_field(insn, 29, 2, imm);
    return insn_field(insn, 5, 19, imm >> 2);
}

/* MOVZ/MOVN for the signed forms (MOVW_SABS_Gn, MOVW_PREL_Gn): a negative value is written
 * as MOVN of its complement so the bits above the group come out all ones. opc is bits
 * 29-30: 00 MOVN, 10 MOVZ. */
static uint32_t encode_movw_nz(uint32_t insn, uint64_t v, int shift)
{
    int64_t part = (int64_t)v >> shift;
    insn &= ~(3u << 29);
    if (part < 0) {
        part = ~part;
    } else {
        insn |= 2u << 29;
    }
    return insn_field(insn, 5, 16, (uint64_t)part);
}

static void aarch64_write(const objrt_howto *h, uint8_t *loc, uint64_t v)
{
    int sh = h->shift;
    switch (h->field) {
    case FLD_DATA:    write_data(loc, h->size, v); return;
    case FLD_IMM26:   insn_write(loc, insn_field(insn_read(loc), 0, 26, v >> sh)); return;
    case FLD_IMM19:   insn_write(loc, insn_field(insn_read(loc), 5, 19, v >> sh)); return;
    case FLD_IMM14:   insn_write(loc, insn_field(insn_read(loc), 5, 14, v >> sh)); return;
    case FLD_ADR:     insn_write(loc, encode_adr(insn_read(loc), v >> sh)); return;
    case FLD_IMM12:   insn_write(loc, insn_field(insn_read(loc), 10, 12, (v & 0xfff) >> sh)); return;
    case FLD_IMM12_HI: insn_write(loc, insn_field(insn_read(loc), 10, 12, v >> 12)); return;
    case FLD_MOVW:    insn_write(loc, insn_field(insn_read(loc), 5, 16, v >> sh)); return;
    case FLD_MOVW_NZ: insn_write(loc, encode_movw_nz(insn_read(loc), v, sh)); return;
    }
}

/* The veneer: jump through the target's GOT slot, which lies in the same reservation (so
 * ADRP reaches it). x16 (IP0) is the register AAPCS64 lets a veneer clobber.
 *     adrp x16, slot ; ldr x16, [x16, #:lo12:slot] ; br x16 ; brk #0 */
static void aarch64_emit_stub(uint8_t *stub, uint64_t stub_addr, uint64_t slot_addr)
{
    uint64_t pages = (objrt_page_down(slot_addr, OBJRT_ADRP_PAGE) -
                      objrt_page_down(stub_addr, OBJRT_ADRP_PAGE)) >> 12;
    insn_write(stub, encode_adr(0x90000010u, pages));
    insn_write(stub + 4, insn_field(0xf9400210u, 10, 12, (slot_addr & 0xfff) >> 3));
    insn_write(stub + 8, 0xd61f0200u);
    insn_write(stub + 12, 0xd4200000u);
}

/* The slot holds GDAT(S + A) and a veneer jumps to S + A: the whole addend is the key. */
static int64_t aarch64_slot_addend(const objrt_howto *h, int64_t addend)
{
    (void)h;
    return addend;
}

#if defined(__aarch64__)        /* a ucontext_t is this build's own machine's */
static uintptr_t aarch64_context_pc(const void *ucontext)
{
    return (uintptr_t)((const ucontext_t *)ucontext)->uc_mcontext.pc;
}
#define AARCH64_CONTEXT_PC aarch64_context_pc
#else
#define AARCH64_CONTEXT_PC NULL
#endif

/* User space: objrt stays below 2^47 here too, inside the 48-bit window Linux maps by
 * default (and inside what qemu-user offers on an x86_64 host). */
const struct objrt_arch objrt_arch_aarch64 = {
    .name = "aarch64", .machine = EM_AARCH64, .multiarch = "aarch64-linux-gnu",
    .user_top = (uint64_t)1 << 47,
    .stub_size = 16, .stub_align = 8, .branch_reach = (uint64_t)1 << 27,    /* B/BL: +-128 MiB */
    .howtos = aarch64_howtos, .nhowtos = sizeof aarch64_howtos / sizeof aarch64_howtos[0],
    .write = aarch64_write, .emit_stub = aarch64_emit_stub, .slot_addend = aarch64_slot_addend,
    .dyn_dtpmod = R_AARCH64_TLS_DTPMOD, .dyn_dtpoff = R_AARCH64_TLS_DTPREL,
    .dyn_tpoff = R_AARCH64_TLS_TPREL, .dyn_tlsdesc = R_AARCH64_TLSDESC,
    .remap_written_code = true, .host_helper = objrt_aarch64_outline_atomic,
    .context_pc = AARCH64_CONTEXT_PC,
};

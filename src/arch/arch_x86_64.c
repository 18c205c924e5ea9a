/*
 * arch_x86_64.c - x86-64 psABI relocations: the table, the data encoders and the call stub.
 * Every x86-64 field is a little-endian 32- or 64-bit datum, so the encoder is trivial; the
 * table carries the meaning (formula from the psABI's "Relocation Types" table).
 */
#include <string.h>
#include <ucontext.h>

#include <elf.h>

#include "arch/arch.h"

#define TLS(t, f, c, b, sz, k) \
    [R_X86_64_##t] = { .name = "R_X86_64_" #t, .formula = f, .check = c, .bits = b, .size = sz, \
                       .tls = k, .direct = OBJRT_DIRECT(f, k), .abs_ranged = OBJRT_ABS_RANGED(f, c, b), \
                       .plain = OBJRT_PLAIN(sz), OBJRT_FITS(c, b, 0) }
#define R(t, f, c, b, sz) TLS(t, f, c, b, sz, TLS_NO)

static const objrt_howto x86_64_howtos[] = {
    R(NONE,          F_NONE,       C_NONE,     0,  0),
    R(64,            F_ABS,        C_NONE,     64, 8),
    R(32,            F_ABS,        C_UNSIGNED, 32, 4),  /* zero-extended by the CPU */
    R(32S,           F_ABS,        C_SIGNED,   32, 4),  /* sign-extended by the CPU */
    R(PC32,          F_PCREL,      C_SIGNED,   32, 4),
    R(PLT32,         F_BRANCH,     C_SIGNED,   32, 4),
    R(PC64,          F_PCREL,      C_NONE,     64, 8),
    R(GOT32,         F_GOT_OFFSET, C_SIGNED,   32, 4),
    R(GOTPCREL,      F_GOT_PCREL,  C_SIGNED,   32, 4),
    R(GOTPCRELX,     F_GOT_PCREL,  C_SIGNED,   32, 4),
    R(REX_GOTPCRELX, F_GOT_PCREL,  C_SIGNED,   32, 4),
    R(GOTPCREL64,    F_GOT_PCREL,  C_NONE,     64, 8),
    R(GOTOFF64,      F_GOTOFF,     C_NONE,     64, 8),
    R(GOTPC32,       F_GOTPC,      C_SIGNED,   32, 4),
    R(GOTPC64,       F_GOTPC,      C_NONE,     64, 8),
    R(GOT64,         F_GOT_OFFSET, C_NONE,     64, 8),
    R(PLTOFF64,      F_PLTOFF,     C_NONE,     64, 8),
    /* thread-local storage (psABI "Thread-Local Storage", Drepper's TLS document): the
     * GOT forms reach the unit's TLS GOT entries, never relaxed to another model */
    TLS(TLSGD,           F_GOT_PCREL, C_SIGNED, 32, 4, TLS_GD),
    TLS(TLSLD,           F_GOT_PCREL, C_SIGNED, 32, 4, TLS_LD),
    TLS(GOTTPOFF,        F_GOT_PCREL, C_SIGNED, 32, 4, TLS_IE),
    TLS(GOTPC32_TLSDESC, F_GOT_PCREL, C_SIGNED, 32, 4, TLS_DESC),
    TLS(TLSDESC_CALL,    F_NONE,      C_NONE,   0,  0, TLS_NO),     /* marks the call */
    TLS(DTPOFF32,        F_ABS,       C_SIGNED, 32, 4, TLS_DTPREL),
    TLS(DTPOFF64,        F_ABS,       C_NONE,   64, 8, TLS_DTPREL),
    TLS(TPOFF32,         F_ABS,       C_SIGNED, 32, 4, TLS_TPREL),
    TLS(TPOFF64,         F_ABS,       C_NONE,   64, 8, TLS_TPREL),
    /* dynamic types: a linker's output, never an object's input */
    TLS(DTPMOD64, F_TLS, C_NONE, 0, 0, TLS_NO), TLS(TLSDESC, F_TLS, C_NONE, 0, 0, TLS_NO),
};

static void x86_64_write(const objrt_howto *h, uint8_t *loc, uint64_t value)
{
    uint32_t v32 = (uint32_t)value;
    if (h->size == 8)
        memcpy(loc, &value, 8);
    else if (h->size == 4)
        memcpy(loc, &v32, 4);
}

/* jmp *slot(%rip); int3; int3 -- the GOT slot is in the same reservation, so rel32 reaches. */
static void x86_64_emit_stub(uint8_t *stub, uint64_t stub_addr, uint64_t slot_addr)
{
    int32_t rel = (int32_t)(slot_addr - (stub_addr + 6));
    stub[0] = 0xff;
    stub[1] = 0x25;
    memcpy(stub + 2, &rel, 4);
    stub[6] = stub[7] = 0xcc;
}

static int64_t x86_64_slot_addend(const objrt_howto *h, int64_t addend)
{
    (void)h;
    (void)addend;
    return 0;
}

#if defined(__x86_64__)         /* a ucontext_t is this build's own machine's */
static uintptr_t x86_64_context_pc(const void *ucontext)
{
    return (uintptr_t)((const ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RIP];
}
#define X86_64_CONTEXT_PC x86_64_context_pc
#else
#define X86_64_CONTEXT_PC NULL
#endif

/* User space ends at 2^47 with 4-level paging (and 5-level paging maps above it only on
 * request). */
const struct objrt_arch objrt_arch_x86_64 = {
    .name = "x86_64", .machine = EM_X86_64, .multiarch = "x86_64-linux-gnu",
    .user_top = (uint64_t)1 << 47,
    .stub_size = 8, .stub_align = 8, .branch_reach = (uint64_t)1 << 31,     /* rel32 */
    .howtos = x86_64_howtos, .nhowtos = sizeof x86_64_howtos / sizeof x86_64_howtos[0],
    .write = x86_64_write, .emit_stub = x86_64_emit_stub, .slot_addend = x86_64_slot_addend,
    .dyn_dtpmod = R_X86_64_DTPMOD64, .dyn_dtpoff = R_X86_64_DTPOFF64,
    .dyn_tpoff = R_X86_64_TPOFF64, .dyn_tlsdesc = R_X86_64_TLSDESC,
    .context_pc = X86_64_CONTEXT_PC,
};

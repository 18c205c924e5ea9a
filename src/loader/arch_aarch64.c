/* arch_aarch64.c - placeholder until the AArch64 backend lands: knows no relocation. */
#include <elf.h>

#include "loader/arch.h"

static void aarch64_write(const objrt_howto *h, uint8_t *loc, uint64_t v) { (void)h; (void)loc; (void)v; }
static void aarch64_emit_stub(uint8_t *s, uint64_t a, uint64_t g) { (void)s; (void)a; (void)g; }
static int64_t aarch64_slot_addend(const objrt_howto *h, int64_t a) { (void)h; return a; }

const struct objrt_arch objrt_arch_aarch64 = {
    .name = "aarch64", .machine = EM_AARCH64, .stub_size = 16, .stub_align = 16,
    .branch_reach = (uint64_t)1 << 27, .howtos = NULL, .nhowtos = 0, .write = aarch64_write,
    .emit_stub = aarch64_emit_stub, .slot_addend = aarch64_slot_addend,
};

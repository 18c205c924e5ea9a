// TLS relocation forms no compiler emits by default (large-model MOVW against the GOT,
// ADR/LDR-literal GOT forms, local dynamic with DTPREL offsets, LE MOVW G2 and every
// LDSTn_TPREL_LO12_NC): each computes the address of a thread-local and checks the value.
// Prints the mask of wrong forms; status 0 when none. -DBREAK: one reported wrong (control).
    .section .tdata, "awT", @progbits
    .p2align 3
v64: .xword 0x4444444444444444
v32: .word 0x33333333
v16: .hword 0x2222
v8:  .byte 0x11
    .byte 0
v:   .word 42
    .text
    .p2align 2
    .globl main
main:
    stp x29, x30, [sp, -48]!
    stp x19, x20, [sp, 16]
    mov x19, 0                           // bitmask of failed forms
    mrs x20, tpidr_el0
    // 1: LE MOVW G2/G1_NC/G0_NC
    movz x0, #:tprel_g2:v
    movk x0, #:tprel_g1_nc:v
    movk x0, #:tprel_g0_nc:v
    ldr w0, [x20, x0]
    cmp w0, 42
    b.eq 1f
    orr x19, x19, 1
1:  // 2: LE ADD HI12 + LDSTn_TPREL_LO12_NC
    add x1, x20, #:tprel_hi12:v64, lsl #12
    ldr x0, [x1, #:tprel_lo12_nc:v64]
    ldr x2, =0x4444444444444444
    cmp x0, x2
    b.eq 1f
    orr x19, x19, 2
1:  add x1, x20, #:tprel_hi12:v32, lsl #12
    ldr w0, [x1, #:tprel_lo12_nc:v32]
    ldr w2, =0x33333333
    cmp w0, w2
    b.eq 1f
    orr x19, x19, 4
1:  add x1, x20, #:tprel_hi12:v16, lsl #12
    ldrh w0, [x1, #:tprel_lo12_nc:v16]
    mov w2, 0x2222
    cmp w0, w2
    b.eq 1f
    orr x19, x19, 8
1:  add x1, x20, #:tprel_hi12:v8, lsl #12
    ldrb w0, [x1, #:tprel_lo12_nc:v8]
    cmp w0, 0x11
    b.eq 1f
    orr x19, x19, 16
1:  // 6: LE ADD_TPREL_LO12 (checked) after HI12
    add x1, x20, #:tprel_hi12:v, lsl #12
    add x1, x1, #:tprel_lo12:v
    ldr w0, [x1]
    cmp w0, 42
    b.eq 1f
    orr x19, x19, 32
1:  // 7: LD: module pair, then DTPREL HI12/LO12_NC and LDST32_DTPREL_LO12_NC
    adrp x0, :tlsldm:v
    add x0, x0, #:tlsldm_lo12_nc:v
    bl __tls_get_addr
    add x1, x0, #:dtprel_hi12:v, lsl #12
    ldr w2, [x1, #:dtprel_lo12_nc:v]
    cmp w2, 42
    b.eq 1f
    orr x19, x19, 64
1:  // 8: LD again, DTPREL MOVW G1 / G0_NC
    adrp x0, :tlsldm:v
    add x0, x0, #:tlsldm_lo12_nc:v
    bl __tls_get_addr
    movz x1, #:dtprel_g1:v
    movk x1, #:dtprel_g0_nc:v
    ldr w2, [x0, x1]
    cmp w2, 42
    b.eq 1f
    orr x19, x19, 128
1:  // 9: IE with a PC-relative literal load of the GOT slot
    ldr x0, :gottprel:v
    ldr w0, [x20, x0]
    cmp w0, 42
    b.eq 1f
    orr x19, x19, 256
1:  // 10: GD with ADR (+-1 MiB) of the GOT pair
    adr x0, :tlsgd:v
    bl __tls_get_addr
    ldr w0, [x0]
    cmp w0, 42
    b.eq 1f
    orr x19, x19, 512
1:  // 11: descriptor with ADR and a literal load of its resolver
    adr x0, :tlsdesc:v
    ldr x1, :tlsdesc:v
    .tlsdesccall v
    blr x1
    ldr w0, [x20, x0]
    cmp w0, 42
    b.eq 1f
    orr x19, x19, 1024
1:  // 12: GOT-relative MOVW forms: offsets from _GLOBAL_OFFSET_TABLE_ (large model)
    adrp x2, _GLOBAL_OFFSET_TABLE_
    add x2, x2, #:lo12:_GLOBAL_OFFSET_TABLE_
    movz x1, #:gottprel_g1:v
    movk x1, #:gottprel_g0_nc:v
    ldr x0, [x2, x1]
    ldr w0, [x20, x0]
    cmp w0, 42
    b.eq 1f
    orr x19, x19, 2048
1:  adrp x2, _GLOBAL_OFFSET_TABLE_
    add x2, x2, #:lo12:_GLOBAL_OFFSET_TABLE_
    movz x1, #:tlsgd_g1:v
    movk x1, #:tlsgd_g0_nc:v
    add x0, x2, x1
    bl __tls_get_addr
    ldr w0, [x0]
    cmp w0, 42
    b.eq 1f
    orr x19, x19, 4096
1:  adrp x2, _GLOBAL_OFFSET_TABLE_
    add x2, x2, #:lo12:_GLOBAL_OFFSET_TABLE_
    movz x1, #:tlsdesc_off_g1:v
    movk x1, #:tlsdesc_off_g0_nc:v
    add x0, x2, x1
    ldr x1, [x0]
    .tlsdesccall v
    blr x1
    ldr w0, [x20, x0]
    cmp w0, 42
    b.eq 1f
    orr x19, x19, 8192
1:
#ifdef BREAK                              /* negative control: one form reported wrong */
    orr x19, x19, 16384
#endif
    adrp x0, fmt
    add x0, x0, :lo12:fmt
    mov x1, x19
    bl printf
    cmp x19, 0
    cset w0, ne
    ldp x19, x20, [sp, 16]
    ldp x29, x30, [sp], 48
    ret
    .section .rodata.str1.1, "aMS", @progbits, 1
fmt: .asciz "failed forms: %#lx\n"

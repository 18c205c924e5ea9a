// A unit that reaches far host symbols the ways AArch64 code may: calls (CALL26), a tail
// call (JUMP26) and a GOT load (ADR_GOT_PAGE + LD64_GOT_LO12_NC). Used by far_host.c.
    .text
    .globl use_call, use_tail, use_got, near_call
    .p2align 2
use_call:
    stp     x29, x30, [sp, -16]!
    bl      far_fn
    add     w0, w0, 1
    ldp     x29, x30, [sp], 16
    ret
use_tail:
    b       far_fn
use_got:
    adrp    x0, :got:far_data
    ldr     x0, [x0, :got_lo12:far_data]
    ldr     w0, [x0]
    ret
near_call:                          // a call within reach: must stay direct
    stp     x29, x30, [sp, -16]!
    bl      near_fn
    ldp     x29, x30, [sp], 16
    ret
    .section .text.near, "ax"
    .p2align 2
near_fn:
    mov     w0, 7
    ret

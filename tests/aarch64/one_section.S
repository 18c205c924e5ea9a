// One code section wider than a branch reaches (+-128 MiB). Default: main, at the start,
// calls end_fn at the end (forward across the whole section), which calls start_fn back
// at the start (backward): both through stub blocks before and after the code; status 42.
// -DMID: a caller in the middle of a 270 MiB section, out of reach of both blocks (a stub
// block cannot go inside a section): objrt must refuse it and say so.
    .text
    .globl main
    .p2align 2
main:
#ifdef MID
    b       mid_fn
#else
    stp     x29, x30, [sp, -16]!
    bl      end_fn
    ldp     x29, x30, [sp], 16
    ret
#endif
    .globl start_fn                     // global: the assembler leaves the branch to us
    .type start_fn, %function
start_fn:
    mov     w0, 41
    ret
#ifdef MID
    .skip   135 * 1024 * 1024
    .globl mid_fn
    .type mid_fn, %function
mid_fn:
    b       start_fn
    .skip   135 * 1024 * 1024
#else
    .skip   140 * 1024 * 1024
    .globl end_fn
    .type end_fn, %function
end_fn:
    stp     x29, x30, [sp, -16]!
    bl      start_fn
    add     w0, w0, 1
    ldp     x29, x30, [sp], 16
    ret
#endif

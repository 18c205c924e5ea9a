// Direct page-relative reads of host data: ADR_PREL_PG_HI21 + LDST32_ABS_LO12_NC, which
// cannot go through the GOT. Built with -DNEAR, -DFAR or both; far_data and near_data are
// more than 8 GiB apart, so no placement of a unit reads both.
    .text
    .p2align 2
#ifdef NEAR
    .globl read_near
read_near:
    adrp    x0, near_data
    ldr     w0, [x0, :lo12:near_data]
    ret
#endif
#ifdef FAR
    .globl read_far
read_far:
    adrp    x0, far_data
    ldr     w0, [x0, :lo12:far_data]
    ret
#endif

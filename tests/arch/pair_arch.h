/*
 * pair_arch.h - a synthetic backend with paired relocations, registered in the tests the
 * way a third architecture would be (objrt_arch_register, src/arch/arch.h).
 *
 * It is x86_64 (every real type is the real backend's) plus four private relocation types
 * above the psABI's numbers, patched into ordinary x86-64 instructions:
 *   R_TEST_PCREL_HI  (240)  S + A - P rounded to a multiple of 4096 (as RISC-V's
 *                           PCREL_HI20: the upper part, rounded so that the lower part
 *                           is signed), into a 32-bit field (the disp32 of a lea)
 *   R_TEST_PCREL_LO  (241)  paired: its symbol is a label at the offset of an
 *                           R_TEST_PCREL_HI, and its value that site's S + A - P less the
 *                           rounded upper part: the signed low 12 bits (as PCREL_LO12_I)
 *   R_TEST_ADD32     (242)  S + A, low 32 bits (as RISC-V's ADD32 in a zeroed field)
 *   R_TEST_SUB32     (243)  paired with the R_TEST_ADD32 before it at the same offset:
 *                           S1 + A1 - (S2 + A2), signed 32 bits
 */
#ifndef T_PAIR_ARCH_H
#define T_PAIR_ARCH_H

#include "arch/arch.h"

enum { R_TEST_PCREL_HI = 240, R_TEST_PCREL_LO, R_TEST_ADD32, R_TEST_SUB32, R_TEST_END };

/* The backend (machine EM_X86_64), and a control with a planted bug in pair_value: the
 * low part from the paired site's own place instead of its partner's, and the difference
 * with its sign turned. Both are filled by pair_arch_init. */
extern struct objrt_arch pair_arch, pair_arch_wrong;
void pair_arch_init(void);

#endif

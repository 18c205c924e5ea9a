/* reg_b.c - one entry, a zero-filled object in the registry section's neighbourhood, and a
 * second named section that is not referenced (no symbols for it). */
#include "reg.h"
REGISTER(gamma, 3);
static char other[100] __attribute__((used, section("objrt_other")));
int reg_b_bss[64];
int reg_b_anchor(void) { return reg_b_bss[1] + (int)sizeof other; }

/* reg_a.c - two registry entries, and writable data of its own: laid out in file order,
 * reg_a's .data would sit between its entries and the next object's. */
#include "reg.h"
REGISTER(alpha, 1);
REGISTER(beta, 2);
int reg_a_data[8] = { 5, 5, 5, 5, 5, 5, 5, 5 };
int reg_a_anchor(void) { return reg_a_data[3]; }

/* reg_c.c - an archive member's entry: it joins the registry once the member is pulled. */
#include "reg.h"
REGISTER(delta, 4);
int reg_c_data = 7;
int reg_c_anchor(void) { return reg_c_data; }

/* reg_extra.c - one more entry: linked by objrt only, for the suite's negative control. */
#include "reg.h"
REGISTER(extra, 100);

#include <math.h>
int long_name_two(int);
int entry(void) { return long_name_two(13) + (int)(cos(0.0) * 2.0); }   /* 40 + 2 */

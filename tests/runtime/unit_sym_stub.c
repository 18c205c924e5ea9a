/* Weak stand-in for the loader's objrt_unit_sym, so runtime tests that load nothing link
 * without the loader; a real definition (libobjrt.a's) wins whenever it is linked in. */
#include <stddef.h>
#include "objrt.h"

__attribute__((weak)) void *objrt_unit_sym(objrt_unit *unit, const char *name)
{
    (void)unit;
    (void)name;
    return NULL;
}

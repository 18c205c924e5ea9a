/* unit.c - plain C for the loader alone: data, a constructor, a libc call, a table of
 * function pointers (absolute relocations), and calls between functions. */
#include <string.h>

static int base_value;
static int square(int x) { return x * x; }
static int twice(int x) { return 2 * x; }
static int (*const steps[])(int) = { square, twice };
const char greeting[] = "loader alone";

__attribute__((constructor)) static void init(void) { base_value = (int)strlen(greeting); }

int unit_compute(int n)
{
    int acc = base_value;
    for (int i = 1; i <= n; i++)
        acc += steps[i % 2](i);
    return acc;
}

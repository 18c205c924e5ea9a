/* reg_main.c - walks the registry; a weak reference to the bounds of a section no input
 * has stays 0 (ld defines __start_/__stop_ only for sections that exist). */
#include <stdio.h>
#include "reg.h"
int reg_a_anchor(void), reg_b_anchor(void), reg_c_anchor(void);
extern const char __start_objrt_absent[] __attribute__((weak));
int main(void)
{
    int sum = 0;
    long n = __stop_objrt_registry - __start_objrt_registry;
    for (const struct entry *e = __start_objrt_registry; e < __stop_objrt_registry; e++) {
        printf("%s=%d\n", e->name, e->value);
        sum += e->value;
    }
    printf("entries=%ld sum=%d anchors=%d absent=%s\n", n, sum,
           reg_a_anchor() + reg_b_anchor() + reg_c_anchor(),
           __start_objrt_absent ? "defined" : "null");
    return n == 4 ? 0 : 1;
}

/* rt_check.h - PASS/FAIL reporting for the runtime test drivers. */
#ifndef RT_CHECK_H
#define RT_CHECK_H
#include <stdio.h>
#include <stdarg.h>

static int rt_failures;

/* Report a case: ok != 0 prints "PASS name", else "FAIL name: why". */
static void __attribute__((format(printf, 3, 4))) report(const char *name, int ok, const char *fmt, ...)
{
    va_list ap;
    if (ok) {
        printf("PASS %s\n", name);
    } else {
        printf("FAIL %s: ", name);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        rt_failures++;
    }
    fflush(stdout);
}
#endif

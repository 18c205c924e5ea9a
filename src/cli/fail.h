/* fail.h - the error-message helper of the CLI's file readers (npy.c, npz.c). Static inline
 * in a header of its own: npy.c is also compiled alone, without the rest of the CLI, into
 * test programs (tests/suites/57-tvm-deploy.sh) and the fuzz harness (tests/fuzz/build.sh). */
#ifndef OBJRT_CLI_FAIL_H
#define OBJRT_CLI_FAIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Format the message into err (cut to errlen bytes, as vsnprintf does) and return -1, so
 * that a reader can say `return fail(err, errlen, ...)`. */
static inline int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

#endif

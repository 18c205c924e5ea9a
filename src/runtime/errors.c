/* errors.c - the thread-local last error of the TVM ABI. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/escape.h"
#include "rt_internal.h"

static __thread char last_error[1024];

void TVMAPISetLastError(const char *msg)
{
    snprintf(last_error, sizeof last_error, "%s", msg ? msg : "");
}

const char *TVMGetLastError(void)
{
    return last_error;
}

void objrt_set_last_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char raw[sizeof last_error];
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    objrt_escape(raw, last_error, sizeof last_error);   /* names from inputs: escape.h */
}

const char *objrt_last_error(void)
{
    return last_error;
}

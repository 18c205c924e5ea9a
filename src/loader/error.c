/* error.c - per-thread, per-context last error (objrt_error). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "loader/internal.h"

#define ERR_MAX 4096          /* room for 20 undefined symbols (resolve.c) */

int objrt_fail(objrt_ctx *ctx, const char *fmt, ...)
{
    char *buf = pthread_getspecific(ctx->err_key);
    if (!buf) {
        buf = malloc(ERR_MAX);
        if (!buf || pthread_setspecific(ctx->err_key, buf)) {
            free(buf);
            return -1;              /* out of memory: the caller still sees failure */
        }
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, ERR_MAX, fmt, ap);
    va_end(ap);
    return -1;
}

const char *objrt_error(objrt_ctx *ctx)
{
    const char *buf = ctx ? pthread_getspecific(ctx->err_key) : NULL;
    return buf ? buf : "";
}

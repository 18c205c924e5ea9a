/* error.c - per-thread, per-context last error (objrt_error). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "loader/internal.h"

/* The buffer starts at ERR_MIN bytes and grows only for a longer message (twenty
 * undefined-symbol lines), up to ERR_MAX; a longer one is cut. */
#define ERR_MIN 1024
#define ERR_MAX 4096

typedef struct errbuf {
    size_t cap;
    char text[];
} errbuf;

/* This thread's buffer on ctx with room for `want` bytes; NULL when out of memory. */
static errbuf *buffer(objrt_ctx *ctx, size_t want)
{
    errbuf *b = pthread_getspecific(ctx->err_key);
    if (b && b->cap >= want)
        return b;
    errbuf *nb = realloc(b, sizeof *nb + want);
    if (!nb)
        return b;                   /* the old one still holds a (cut) message */
    nb->cap = want;
    if (nb != b && pthread_setspecific(ctx->err_key, nb)) {
        free(nb);
        return NULL;
    }
    return nb;
}

int objrt_fail(objrt_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t want = need < ERR_MIN ? ERR_MIN : need >= ERR_MAX ? ERR_MAX : (size_t)need + 1;
    errbuf *b = buffer(ctx, want);
    if (!b)
        return -1;                  /* out of memory: the caller still sees failure */
    va_start(ap, fmt);
    vsnprintf(b->text, b->cap, fmt, ap);
    va_end(ap);
    return -1;
}

const char *objrt_error(objrt_ctx *ctx)
{
    const errbuf *b = ctx ? pthread_getspecific(ctx->err_key) : NULL;
    return b ? b->text : "";
}

/*
 * error.c - per-thread, per-context last error (objrt_error).
 *
 * Each (context, thread) pair that recorded an error owns one buffer, linked into two lists:
 * the context's and the thread's. Freeing the context frees its buffers of every thread;
 * a thread's exit frees its buffers of every context. One process-wide thread key serves
 * all contexts, so the number of live contexts is not bounded by PTHREAD_KEYS_MAX (a key per
 * context failed objrt_new() after ~1023, and leaked the buffers of threads still running
 * when their context was freed). The lists change only on a thread's first error on a
 * context and at those two ends, all under one lock.
 *
 * The text starts at ERR_MIN bytes and grows only for a longer message (twenty
 * undefined-symbol lines), up to ERR_MAX; a longer one is cut.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/fork.h"
#include "base/context.h"

#define ERR_MIN 1024
#define ERR_MAX 4096

typedef struct errthread {
    objrt_errbuf *bufs;
} errthread;

struct objrt_errbuf {
    objrt_ctx *ctx;
    errthread *owner;
    objrt_errbuf *ctx_next, *thr_next;
    size_t cap;
    char *text;                 /* only the owning thread writes or reads it */
};

static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t thr_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static bool have_key;

static void unlink_buf(objrt_errbuf **head, objrt_errbuf *b, bool ctx_list)
{
    for (objrt_errbuf **pp = head; *pp; pp = ctx_list ? &(*pp)->ctx_next : &(*pp)->thr_next)
        if (*pp == b) {
            *pp = ctx_list ? b->ctx_next : b->thr_next;
            return;
        }
}

static void free_buf(objrt_errbuf *b)
{
    free(b->text);
    free(b);
}

static void thread_exit(void *p)
{
    errthread *t = p;
    pthread_mutex_lock(&err_lock);
    while (t->bufs) {
        objrt_errbuf *b = t->bufs;
        t->bufs = b->thr_next;
        unlink_buf(&b->ctx->errbufs, b, true);
        free_buf(b);
    }
    pthread_mutex_unlock(&err_lock);
    free(t);
}

static void make_key(void) { have_key = pthread_key_create(&thr_key, thread_exit) == 0; }

/* The calling thread's buffer for ctx; created when `create`. NULL when none. */
static objrt_errbuf *find_buf(objrt_ctx *ctx, bool create)
{
    pthread_once(&key_once, make_key);
    if (!have_key)
        return NULL;
    errthread *t = pthread_getspecific(thr_key);
    if (!t && create) {
        if (!(t = calloc(1, sizeof *t)) || pthread_setspecific(thr_key, t)) {
            free(t);
            return NULL;
        }
    }
    if (!t)
        return NULL;
    pthread_mutex_lock(&err_lock);
    objrt_errbuf *b = t->bufs;
    while (b && b->ctx != ctx)
        b = b->thr_next;
    if (!b && create && (b = calloc(1, sizeof *b))) {
        *b = (objrt_errbuf){ ctx, t, ctx->errbufs, t->bufs, 0, NULL };
        ctx->errbufs = t->bufs = b;
    }
    pthread_mutex_unlock(&err_lock);
    return b;
}

/* The message becomes the calling thread's error on ctx (the text is copied). */
static int store(objrt_ctx *ctx, const char *text)
{
    size_t need = strlen(text) + 1;
    size_t want = need < ERR_MIN ? ERR_MIN : need > ERR_MAX ? ERR_MAX : need;
    objrt_errbuf *b = find_buf(ctx, true);
    if (!b)
        return -1;                  /* out of memory: the caller still sees failure */
    if (b->cap < want) {
        char *t = realloc(b->text, want);
        if (t) {
            b->text = t;
            b->cap = want;
        }
    }
    if (b->cap)
        snprintf(b->text, b->cap, "%s", text);
    return -1;
}

/* Every message is escaped as a whole (escape.h): whatever a name from an input holds, the
 * error is one line of printable text. */
int objrt_fail(objrt_ctx *ctx, const char *fmt, ...)
{
    char raw[ERR_MAX], esc[ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    return store(ctx, objrt_escape(raw, esc, sizeof esc));
}

int objrt_fail_lines(objrt_ctx *ctx, const char *lines)
{
    return store(ctx, lines);
}

const char *objrt_error(objrt_ctx *ctx)
{
    const objrt_errbuf *b = ctx ? find_buf(ctx, false) : NULL;
    return b && b->text ? b->text : "";
}

void objrt_errors_release(objrt_ctx *ctx)
{
    pthread_mutex_lock(&err_lock);
    while (ctx->errbufs) {
        objrt_errbuf *b = ctx->errbufs;
        ctx->errbufs = b->ctx_next;
        unlink_buf(&b->owner->bufs, b, false);
        free_buf(b);
    }
    pthread_mutex_unlock(&err_lock);
}

OBJRT_FORK_LOCK(err_lock)

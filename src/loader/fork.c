/*
 * fork.c - the one fork handler of objrt (base/fork.h says the rule): the contexts alive,
 * and their locks and the leaf locks taken before a fork, released after it in the
 * parent, made anew in the child. A provider's own locks (the kernel runtime's) are its
 * own pthread_atfork handlers: registered before this one (from the provider's constructor),
 * their prepare runs after ours, so their locks nest inside the contexts' as in a load.
 */
#include <stdlib.h>

#include "base/context.h"
#include "base/fork.h"
#include "loader/pipeline.h"

static pthread_mutex_t ctxs_lock = PTHREAD_MUTEX_INITIALIZER;
static objrt_ctx **ctxs;
static size_t nctxs, capctxs;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void ctx_lock_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);  /* as objrt_new made it */
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

/* Waits for every load, unload and lookup in flight (the context locks are recursive: a
 * constructor that forks from inside a load takes its own context's again). */
static void prepare(void)
{
    pthread_mutex_lock(&ctxs_lock);
    for (size_t i = 0; i < nctxs; i++)
        pthread_mutex_lock(&ctxs[i]->lock);
    objrt_fork_leaves(OBJRT_FORK_PREPARE);
}

static void parent(void)
{
    objrt_fork_leaves(OBJRT_FORK_PARENT);
    for (size_t i = nctxs; i-- > 0;)
        pthread_mutex_unlock(&ctxs[i]->lock);
    pthread_mutex_unlock(&ctxs_lock);
}

static void child(void)
{
    objrt_fork_leaves(OBJRT_FORK_CHILD);
    for (size_t i = 0; i < nctxs; i++)
        ctx_lock_init(&ctxs[i]->lock);
    pthread_mutex_init(&ctxs_lock, NULL);
}

static void install(void) { pthread_atfork(prepare, parent, child); }

int objrt_fork_track(objrt_ctx *ctx)
{
    pthread_once(&once, install);
    pthread_mutex_lock(&ctxs_lock);
    int rc = 0;
    if (nctxs == capctxs) {
        size_t cap = capctxs ? 2 * capctxs : 16;
        objrt_ctx **v = realloc(ctxs, cap * sizeof *v);
        if (v) {
            ctxs = v;
            capctxs = cap;
        } else {
            rc = -1;
        }
    }
    if (rc == 0)
        ctxs[nctxs++] = ctx;
    pthread_mutex_unlock(&ctxs_lock);
    return rc;
}

void objrt_fork_untrack(objrt_ctx *ctx)
{
    pthread_mutex_lock(&ctxs_lock);
    for (size_t i = 0; i < nctxs; i++)
        if (ctxs[i] == ctx) {
            ctxs[i] = ctxs[--nctxs];    /* order does not matter: no two nest */
            break;
        }
    pthread_mutex_unlock(&ctxs_lock);
}

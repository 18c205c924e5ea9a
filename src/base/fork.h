/*
 * fork.h - fork() while another thread is inside objrt (issue 27: a child forked during a
 * load hung on the context lock at its first load, 99 times in 100).
 *
 * The rule: every lock objrt takes during a load or an unload has a fork handler, and
 * loader/fork.c runs them all from one pthread_atfork registration, in lock order (every
 * context's lock, which a load holds throughout, then the leaf locks that nest inside it).
 * Before the fork they are all taken, so the fork happens between loads, never inside one;
 * the parent then releases them; the child, whose only thread did not take them under its
 * own thread id, initialises them anew. Each lock's file exports one handler.
 */
#ifndef OBJRT_FORK_H
#define OBJRT_FORK_H

#include <pthread.h>

struct objrt_ctx;

enum objrt_fork_phase { OBJRT_FORK_PREPARE, OBJRT_FORK_PARENT, OBJRT_FORK_CHILD };

/* One plain (non-recursive) mutex through a phase. */
static inline void objrt_lock_atfork(pthread_mutex_t *m, enum objrt_fork_phase phase)
{
    if (phase == OBJRT_FORK_PREPARE)
        pthread_mutex_lock(m);
    else if (phase == OBJRT_FORK_PARENT)
        pthread_mutex_unlock(m);
    else
        pthread_mutex_init(m, NULL);
}

/* The leaf locks, each in its own file. */
void objrt_registry_atfork(enum objrt_fork_phase phase);    /* base/registry.c */
void objrt_errors_atfork(enum objrt_fork_phase phase);      /* base/error.c */
void objrt_unitinfo_atfork(enum objrt_fork_phase phase);    /* debug/unitinfo.c */
void objrt_gdbjit_atfork(enum objrt_fork_phase phase);      /* debug/gdbjit.c */

/* loader/fork.c: the contexts whose locks the handler takes (objrt_new, objrt_free).
 * Track returns -1 when out of memory. */
int objrt_fork_track(struct objrt_ctx *ctx);
void objrt_fork_untrack(struct objrt_ctx *ctx);

#endif

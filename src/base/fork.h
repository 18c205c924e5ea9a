/*
 * fork.h - fork() while another thread is inside objrt (issue 27: a child forked during a
 * load hung on the context lock at its first load, 99 times in 100).
 *
 * The rule: every lock objrt takes during a load or an unload has a fork handler, and
 * loader/fork.c runs them all from one pthread_atfork registration: every context's lock
 * (which a load holds throughout), then the leaf locks that nest inside it. Before the
 * fork they are all taken, so the fork happens between loads, never inside one; the parent
 * then releases them; the child, whose only thread did not take them under its own thread
 * id, initialises them anew.
 *
 * A leaf lock's file registers the lock here itself (OBJRT_FORK_LOCK), whatever its layer:
 * this header names nothing of the layers above it, and a new lock edits only its own
 * file. No leaf lock is taken while another is held (each is taken and released with no
 * call in between that takes another), so the order they are taken in is free.
 */
#ifndef OBJRT_FORK_H
#define OBJRT_FORK_H

#include <pthread.h>

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

/* The leaf locks (fork.c). A lock registers from a constructor of its own file (so before
 * anything can take it, and before the handler of loader/fork.c exists); at most
 * OBJRT_FORK_LOCKS. */
#define OBJRT_FORK_LOCKS 8
void objrt_fork_register(pthread_mutex_t *m);
/* Every registered lock through a phase (loader/fork.c's handler). */
void objrt_fork_leaves(enum objrt_fork_phase phase);

/* In the file that owns the plain mutex `lock` (a static of file scope): its registration. */
#define OBJRT_FORK_LOCK(lock)                                                              \
    __attribute__((constructor)) static void lock##_fork_register(void)                    \
    {                                                                                      \
        objrt_fork_register(&lock);                                                        \
    }

#endif

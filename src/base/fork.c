/*
 * fork.c - the leaf locks objrt takes inside a context's lock, as their files registered
 * them (fork.h), for loader/fork.c's one fork handler.
 */
#include <stdlib.h>

#include "base/fork.h"

static pthread_mutex_t *locks[OBJRT_FORK_LOCKS];
static size_t nlocks;

/* Constructors run one at a time, before any thread of objrt exists: no lock needed. A
 * lock past the table's end would leave a fork able to hang the child: refuse to run. */
void objrt_fork_register(pthread_mutex_t *m)
{
    if (nlocks == OBJRT_FORK_LOCKS)
        abort();
    locks[nlocks++] = m;
}

void objrt_fork_leaves(enum objrt_fork_phase phase)
{
    if (phase == OBJRT_FORK_PARENT)                 /* released in the reverse order */
        for (size_t i = nlocks; i-- > 0;)
            objrt_lock_atfork(locks[i], phase);
    else
        for (size_t i = 0; i < nlocks; i++)
            objrt_lock_atfork(locks[i], phase);
}

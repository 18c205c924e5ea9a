/*
 * t_wxpoll.h - a thread that scans /proc/self/maps for mappings both writable and
 * executable while a test loads units (t_wx, t_pack): the W^X check "at every instant".
 * One poller per process; start, load, then stop and read the counters.
 */
#ifndef T_WXPOLL_H
#define T_WXPOLL_H

#include <pthread.h>
#include <stdatomic.h>
#include "t_common.h"

static atomic_int t_wx_stop;
static atomic_long t_wx_scans, t_wx_hits;   /* scans done, scans that saw a w+x mapping */
static char t_wx_first_hit[256];            /* the first w+x mapping seen */

static void *t_wx_poller(void *arg)
{
    (void)arg;
    char why[256];
    while (!atomic_load(&t_wx_stop)) {
        if (t_wx_scan(why, sizeof why) > 0 && atomic_fetch_add(&t_wx_hits, 1) == 0)
            snprintf(t_wx_first_hit, sizeof t_wx_first_hit, "%s", why);
        atomic_fetch_add(&t_wx_scans, 1);
    }
    return NULL;
}

static void t_wx_poll_start(pthread_t *t)
{
    atomic_store(&t_wx_stop, 0);
    atomic_store(&t_wx_scans, 0);
    atomic_store(&t_wx_hits, 0);
    t_wx_first_hit[0] = 0;
    pthread_create(t, NULL, t_wx_poller, NULL);
}

static void t_wx_poll_stop(pthread_t t)
{
    atomic_store(&t_wx_stop, 1);
    pthread_join(t, NULL);
}

/* Wait until the poller finished at least two more full scans (bounded: 1 s). */
static void t_wx_wait_scans(void)
{
    long s = atomic_load(&t_wx_scans);
    for (int i = 0; i < 20000 && atomic_load(&t_wx_scans) < s + 2; i++)
        usleep(50);
}

#endif

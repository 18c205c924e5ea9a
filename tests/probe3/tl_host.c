/* tl_host.c - a plugin host whose threads use a C++ thread_local of a loaded unit, then
 * unload it (issue 40). usage: tl_host MODE PLUGIN.o
 *   main:   the main thread uses it, unloads, exits: the unload runs the main thread's
 *           destructor (1 run) and the process exits 0 (it crashed at exit in
 *           __call_tls_dtors when the destructor ran after the unload).
 *   thread: a running thread uses it: the unload is refused naming the thread_local; after
 *           the thread ends (its destructor ran, 1 run) the unload succeeds. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "objrt.h"

int tl_dtor_runs;
static int (*use)(void);
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int used, may_end;

static void *user(void *arg)
{
    (void)arg;
    int v = use();
    pthread_mutex_lock(&m);
    used = v;
    pthread_cond_broadcast(&c);
    while (!may_end)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: tl_host main|thread PLUGIN.o\n"), 2;
    objrt_ctx *ctx = objrt_new();
    objrt_define(ctx, "tl_dtor_runs", &tl_dtor_runs);
    objrt_add_library(ctx, "stdc++");       /* what a C++ plugin host links */
    objrt_unit *u = objrt_load(ctx, (const char *[]){ argv[2] }, 1);
    if (!u || !(*(void **)&use = objrt_unit_sym(u, "plugin_use")))
        return fprintf(stderr, "load: %s\n", objrt_error(ctx)), 2;
    if (strcmp(argv[1], "main") == 0) {
        int v = use(), rc = objrt_unload(u);
        printf("used %d, unload %d, destructor runs %d\n", v, rc, tl_dtor_runs);
        fflush(stdout);
        return rc == 0 && v == 5 && tl_dtor_runs == 1 ? 0 : 1;
    }
    pthread_t t;
    pthread_create(&t, NULL, user, NULL);
    pthread_mutex_lock(&m);
    while (!used)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    int refused = objrt_unload(u);
    printf("unload while the thread runs: %d: %s\n", refused, objrt_error(ctx));
    pthread_mutex_lock(&m);
    may_end = 1;
    pthread_cond_broadcast(&c);
    pthread_mutex_unlock(&m);
    pthread_join(t, NULL);
    int rc = objrt_unload(u);
    printf("after the thread ended: unload %d, destructor runs %d\n", rc, tl_dtor_runs);
    objrt_free(ctx);
    return refused == -1 && rc == 0 && tl_dtor_runs == 1 ? 0 : 1;
}

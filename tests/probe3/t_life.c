/* t_life.c - the C side of one lifecycle (issue 40, items 2 and 3; objrt.h "Threads").
 * usage: t_life LIFE_UNIT.o
 * objrt_free while another thread is inside objrt_load (held in the resolver): the free
 * waits, the load fails and leaves nothing (its constructor ran, its destructor too).
 * objrt_unload of one unit from two threads at once: one unloads (0), the other -1. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "objrt.h"
#include "report.h"

int life_wait = 7, life_ctors, life_dtors;
static const char *obj;
static char why[512];
static atomic_int in_resolver, free_began, free_began_first;

static void *resolver(void *data, const char *name)
{
    (void)data;
    if (strcmp(name, "life_ctors") == 0)
        return &life_ctors;
    if (strcmp(name, "life_dtors") == 0)
        return &life_dtors;
    if (strcmp(name, "life_wait") != 0)
        return NULL;
    atomic_store(&in_resolver, 1);
    for (int i = 0; i < 200 && !atomic_load(&free_began); i++)
        nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
    nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);   /* objrt_free is in */
    atomic_store(&free_began_first, atomic_load(&free_began));
    return &life_wait;
}

static objrt_unit *loaded;
static atomic_int load_returned;

static void *loader(void *ctx)
{
    loaded = objrt_load(ctx, (const char *[]){ obj }, 1);
    atomic_store(&load_returned, 1);
    return NULL;
}

static int t_free_during_load(void)
{
    objrt_ctx *ctx = objrt_new();
    pthread_t t;
    life_ctors = life_dtors = 0;
    objrt_set_resolver(ctx, resolver, NULL);
    pthread_create(&t, NULL, loader, ctx);
    while (!atomic_load(&in_resolver))
        nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
    atomic_store(&free_began, 1);
    objrt_free(ctx);
    pthread_join(t, NULL);
    if (loaded)
        return snprintf(why, sizeof why, "the load objrt_free overtook returned a unit %p "
                        "(freed with its context)", (void *)loaded), 0;
    if (life_ctors != 1 || life_dtors != 1)
        return snprintf(why, sizeof why, "constructors ran %d times, destructors %d",
                        life_ctors, life_dtors), 0;
    return 1;
}

/* One 0 and one -1: the unit unloaded once, the other call a no-op. */
static int outcome_ok(int a, int b) { return (a == 0 && b == -1) || (a == -1 && b == 0); }

static objrt_unit *shared;
static pthread_barrier_t go;
static int rcs[2];

static void *unloader(void *arg)
{
    int i = (int)(long)arg;
    pthread_barrier_wait(&go);
    rcs[i] = objrt_unload(shared);
    return NULL;
}

static int t_unload_twice_at_once(void)
{
    objrt_ctx *ctx = objrt_new();
    int ok = 1;
    objrt_define(ctx, "life_wait", &life_wait);
    objrt_define(ctx, "life_ctors", &life_ctors);
    objrt_define(ctx, "life_dtors", &life_dtors);
    life_ctors = life_dtors = 0;
    for (int r = 0; r < 200 && ok; r++) {
        pthread_t t[2];
        if (!(shared = objrt_load(ctx, (const char *[]){ obj }, 1)))
            return snprintf(why, sizeof why, "load: %s", objrt_error(ctx)), 0;
        pthread_barrier_init(&go, NULL, 2);
        for (long i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, unloader, (void *)i);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&go);
        if (!outcome_ok(rcs[0], rcs[1]) || life_dtors != r + 1)
            ok = !snprintf(why, sizeof why, "round %d: objrt_unload returned %d and %d, "
                           "destructors ran %d times for %d units", r, rcs[0], rcs[1],
                           life_dtors, r + 1);
    }
    objrt_free(ctx);
    return ok;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {
        "objrt_free during a load: the load fails, nothing left",
        "HARNESS objrt_free began while the load was held",
        "objrt_unload of one unit from two threads: one unloads, one is a no-op",
        "HARNESS the unload outcome check rejects two unloads and none", NULL };
    t_declare(names);
    if (argc != 2)
        return fprintf(stderr, "usage: t_life LIFE_UNIT.o\n"), 2;
    obj = argv[1];
    t_run(names[0], t_free_during_load, why);
    if (t_selected(names[1] + 8))
        t_harness(names[1] + 8, atomic_load(&free_began_first), "the resolver returned before "
                  "objrt_free began: the race was not exercised");
    t_run(names[2], t_unload_twice_at_once, why);
    if (t_selected(names[3] + 8))
        t_harness(names[3] + 8, !outcome_ok(0, 0) && !outcome_ok(-1, -1) && outcome_ok(-1, 0),
                  "the check accepts a wrong outcome");
    return t_exit_status();
}

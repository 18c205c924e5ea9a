/*
 * t_concurrent.c - loads from several threads: no crash, no cross-talk, nothing left.
 *
 * usage: t_concurrent BASIC.o BIG.o CTOR.o ROUNDS
 *  - same context: two threads load BASIC.o, call it and unload it ROUNDS times while
 *    also making failing loads (each must see its own error), and a third thread keeps
 *    calling objrt_sym() and objrt_error() on the context;
 *  - separate contexts: two threads load and unload BIG.o (.eh_frame registration) and
 *    CTOR.o (constructors, destructors) on their own contexts at the same time;
 *  - a second such round leaves no more mappings than the first did.
 * (x86_64 only: under qemu-user here a dynamic program hangs in pthread_create.)
 */
#include <pthread.h>
#include <stdatomic.h>
#include "t_common.h"

struct blob { unsigned char *data; size_t size; };
static struct blob g_basic, g_big, g_ctor;
static int g_rounds;
static atomic_int g_stop;

struct worker {
    objrt_ctx *ctx;
    const char *bad_name;          /* name of this thread's failing input */
    int bad;                       /* failures seen */
    int leak;                      /* negative control: leave a mapping behind */
    char first[512];
};

static void note(struct worker *w, const char *fmt, const char *detail)
{
    if (w->bad++ == 0) snprintf(w->first, sizeof w->first, fmt, detail);
}

static void *same_ctx_worker(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < g_rounds; i++) {
        objrt_unit *u = t_load_mem(w->ctx, "basic.o", g_basic.data, g_basic.size);
        if (!u) { note(w, "load failed: %s", objrt_error(w->ctx)); continue; }
        int (*answer)(void) = (int (*)(void))objrt_unit_sym(u, "basic_answer");
        if (!answer || answer() != 42) note(w, "%s", "basic_answer() wrong");
        objrt_unload(u);
        if (t_load_mem(w->ctx, w->bad_name, g_basic.data, 100)) note(w, "%s", "truncated input loaded");
        else if (!strstr(objrt_error(w->ctx), w->bad_name)) note(w, "error not this thread's: %s", objrt_error(w->ctx));
    }
    return NULL;
}

static void *lookup_worker(void *arg)
{
    objrt_ctx *ctx = arg;
    while (!atomic_load(&g_stop)) {
        objrt_sym(ctx, "basic_answer");
        objrt_sym(ctx, "no_such_symbol_at_all");
        (void)strlen(objrt_error(ctx));
    }
    return NULL;
}

static void *own_ctx_worker(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < g_rounds / 4 + 1; i++) {
        objrt_unit *big = t_load_mem(w->ctx, "big.o", g_big.data, g_big.size);
        objrt_unit *ctor = t_load_mem(w->ctx, "ctor.o", g_ctor.data, g_ctor.size);
        if (!big || !ctor) note(w, "load failed: %s", objrt_error(w->ctx));
        int (*count)(void) = ctor ? (int (*)(void))objrt_unit_sym(ctor, "ctor_count") : NULL;
        if (ctor && (!count || count() != 1)) note(w, "%s", "constructor did not run exactly once");
        if (ctor) objrt_unload(ctor);
        if (big) objrt_unload(big);
    }
    if (w->leak) mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return NULL;
}

static int run_same_ctx(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    struct worker a = { ctx, "thread-a-cut.o", 0, 0, "" }, b = { ctx, "thread-b-cut.o", 0, 0, "" };
    pthread_t ta, tb, tl;
    atomic_store(&g_stop, 0);
    pthread_create(&tl, NULL, lookup_worker, ctx);
    pthread_create(&ta, NULL, same_ctx_worker, &a);
    pthread_create(&tb, NULL, same_ctx_worker, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    atomic_store(&g_stop, 1);
    pthread_join(tl, NULL);
    objrt_free(ctx);
    if (a.bad || b.bad) {
        snprintf(why, whylen, "thread a: %d problems (first: %s); thread b: %d (first: %s)", a.bad, a.first, b.bad, b.first);
        return 0;
    }
    return 1;
}

static int run_own_ctx(void *arg, char *why, size_t whylen)
{
    struct worker a = { NULL, "", 0, 0, "" }, b = { NULL, "", 0, 0, "" };
    /* Two rounds: the first also creates what threads keep (stacks in glibc's cache,
     * per-thread malloc arenas); the second must not add mappings to that. Each round has
     * contexts of its own, freed before the count: a context keeps the reservations of
     * units it unloaded for its next load until it is freed (place.c). */
    int base = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 1) base = t_maps_count();
        a.ctx = objrt_new();
        b.ctx = objrt_new();
        b.leak = round == 1 && arg != NULL;
        pthread_t ta, tb;
        pthread_create(&ta, NULL, own_ctx_worker, &a);
        pthread_create(&tb, NULL, own_ctx_worker, &b);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        objrt_free(a.ctx);
        objrt_free(b.ctx);
    }
    int after = t_maps_count();
    if (a.bad || b.bad) {
        snprintf(why, whylen, "thread a: %d problems (first: %s); thread b: %d (first: %s)", a.bad, a.first, b.bad, b.first);
        return 0;
    }
    if (after > base) { snprintf(why, whylen, "%d mappings after a first round of threads, %d after a second", base, after); return 0; }
    return 1;
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 5, "BASIC.o BIG.o CTOR.o ROUNDS");
    g_basic.data = t_read_file(argv[1], &g_basic.size);
    g_big.data = t_read_file(argv[2], &g_big.size);
    g_ctor.data = t_read_file(argv[3], &g_ctor.size);
    g_rounds = atoi(argv[4]);
    t_case("concurrent-same-context", run_same_ctx, NULL);
    t_case("concurrent-own-contexts", run_own_ctx, NULL);
    char why[512];
    t_harness("concurrent-control-mapping-check-sees-leak", !t_case_quiet(run_own_ctx, (void *)1, why, sizeof why),
             "a thread leaving a mapping behind was not noticed");
    free(g_basic.data);
    free(g_big.data);
    free(g_ctor.data);
    return t_exit_status();
}

/*
 * t_error_api.c - objrt_error() is per thread and per context; errors are survivable;
 * objrt_unload() returns memory.
 *
 * usage: t_error_api MISSING.o BASIC.o
 *  - a fresh context reports "" (not NULL);
 *  - two threads failing differently on one context each see their own message, and a
 *    message stays intact while the other thread keeps failing;
 *  - two contexts on one thread keep their own messages;
 *  - a nonexistent path, an empty input and objrt_unload(NULL) fail without crashing;
 *    of three inputs, the error names the truncated one;
 *  - after all these errors a good load still works, and loading 20 units then unloading
 *    them brings the mapping count back to the baseline.
 * Control: the "own message" check rejects the other thread's message.
 */
#include <malloc.h>
#include <pthread.h>
#include "t_common.h"

#define ROUNDS 200

static const char *g_missing;
static unsigned char *g_basic;
static size_t g_basic_size;
static objrt_ctx *g_ctx;
static pthread_barrier_t g_bar;

/* A failing load for each thread, with a marker only its message contains. */
static const char *const MARK_A = "objrt_test_no_such_symbol_xyz";
static const char *const MARK_B = "thread-b-truncated.o";

static int own_message(const char *err, const char *mine, const char *theirs)
{
    return err && strstr(err, mine) && !strstr(err, theirs);
}

static void fail_a(void)
{
    const char *paths[1] = { g_missing };
    objrt_unit *u = objrt_load(g_ctx, paths, 1);
    if (u) objrt_unload(u);
}

static void fail_b(void)
{
    objrt_unit *u = t_load_mem(g_ctx, MARK_B, g_basic, 100);
    if (u) objrt_unload(u);
}

struct result { int bad; char first[512]; };

static void *thread_b(void *arg)
{
    struct result *r = arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_barrier_wait(&g_bar);
        fail_b();
        pthread_barrier_wait(&g_bar);          /* A fails now; then we read ours */
        pthread_barrier_wait(&g_bar);
        const char *err = objrt_error(g_ctx);
        if (!own_message(err, MARK_B, MARK_A) && r->bad++ == 0) snprintf(r->first, sizeof r->first, "%s", err);
    }
    for (int i = 0; i < 5; i++) fail_b();      /* while A still holds its last message */
    return NULL;
}

/* Thread A fails after B; both then read their own message. */
static int run_threads(void *arg, char *why, size_t whylen)
{
    (void)arg;
    g_ctx = objrt_new();
    pthread_barrier_init(&g_bar, NULL, 2);
    struct result rb = { 0, "" };
    int bad_a = 0, bad_kept = 0;
    char first_a[512] = "";
    pthread_t t;
    pthread_create(&t, NULL, thread_b, &rb);
    for (int i = 0; i < ROUNDS; i++) {
        pthread_barrier_wait(&g_bar);
        pthread_barrier_wait(&g_bar);          /* B has failed */
        fail_a();
        const char *err = objrt_error(g_ctx);
        char copy[512];
        snprintf(copy, sizeof copy, "%s", err ? err : "(null)");
        pthread_barrier_wait(&g_bar);
        if (!own_message(copy, MARK_A, MARK_B) && bad_a++ == 0) snprintf(first_a, sizeof first_a, "%s", copy);
        /* B reads its message and fails again next round; A's string must stay valid. */
        if (i == ROUNDS - 1) {
            pthread_join(t, NULL);
            if (strcmp(err, copy) != 0) bad_kept++;
        }
    }
    objrt_free(g_ctx);
    if (bad_a || rb.bad || bad_kept) {
        snprintf(why, whylen, "thread A saw another message %d/%d times (first: %s); thread B %d/%d (first: %s);"
                 " A's string changed under it: %d", bad_a, ROUNDS, first_a, rb.bad, ROUNDS, rb.first, bad_kept);
        return 0;
    }
    return 1;
}

static int run_contexts(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *c1 = objrt_new(), *c2 = objrt_new();
    const char *paths[1] = { g_missing };
    objrt_unit *u = objrt_load(c1, paths, 1);
    if (u) { snprintf(why, whylen, "missing-symbol load succeeded"); return 0; }
    u = t_load_mem(c2, MARK_B, g_basic, 100);
    if (u) { snprintf(why, whylen, "truncated load succeeded"); return 0; }
    const char *e1 = objrt_error(c1), *e2 = objrt_error(c2);
    int ok = own_message(e1, MARK_A, MARK_B) && own_message(e2, MARK_B, MARK_A);
    if (!ok) snprintf(why, whylen, "context 1: '%s'; context 2: '%s'", e1 ? e1 : "(null)", e2 ? e2 : "(null)");
    objrt_free(c1);
    objrt_free(c2);
    return ok;
}

static int run_fresh(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *c = objrt_new();
    const char *e = objrt_error(c);
    int ok = e && e[0] == 0;
    if (!ok) snprintf(why, whylen, "fresh context error is %s%s%s", e ? "'" : "", e ? e : "NULL", e ? "'" : "");
    objrt_free(c);
    return ok;
}

/* `u` was just loaded into `c` and must have been refused naming `name`; frees `c`. */
static int refused(objrt_ctx *c, objrt_unit *u, const char *what, const char *name, char *why, size_t whylen)
{
    int ok = t_refused(c, u, what, name, NULL, why, whylen);
    objrt_free(c);
    return ok;
}

static int run_nonexistent(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *c = objrt_new();
    const char *paths[1] = { "/nonexistent/objrt-no-such-file.o" };
    return refused(c, objrt_load(c, paths, 1), "loading a nonexistent file succeeded",
                   "objrt-no-such-file.o", why, whylen);
}

static int run_empty(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *c = objrt_new();
    static const char nothing[1] = "";
    return refused(c, t_load_mem(c, "empty-input.o", nothing, 0), "an empty input loaded",
                   "empty-input.o", why, whylen);
}

/* Of several inputs, the error names the broken one, not the first. */
static int run_which_input(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *c = objrt_new();
    objrt_input in[3] = { { "good-first.o", g_basic, g_basic_size }, { "broken-second.o", g_basic, 200 },
                          { "good-third.o", g_basic, g_basic_size } };
    return refused(c, objrt_load_memory(c, in, 3), "a set with a truncated input loaded",
                   "broken-second.o", why, whylen);
}

static int run_unload_null(void *arg, char *why, size_t whylen)
{
    (void)arg;
    int r = objrt_unload(NULL);
    if (r != -1) { snprintf(why, whylen, "objrt_unload(NULL) returned %d, expected -1", r); return 0; }
    return 1;
}

/* After every kind of error above, on one context: a good load works and unloading
 * 20 units returns every mapping. */
static int run_recover(void *arg, char *why, size_t whylen)
{
    (void)arg;
    /* The count is of objrt's mappings: malloc's heap is grown once here and kept (no
     * trim), so that a growth of it between the counts (a few KB more in use in the
     * second round than in the first) is not counted as a mapping objrt kept. */
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    void *volatile grow = malloc(1 << 20);     /* volatile: the pair is not elided */
    free(grow);
    objrt_ctx *c = objrt_new();
    const char *paths[2] = { g_missing, "/nonexistent/x.o" };
    for (int i = 0; i < 10; i++) {
        objrt_load(c, paths, 1);
        objrt_load(c, paths + 1, 1);
        t_load_mem(c, "cut.o", g_basic, (size_t)(i * 37) % g_basic_size);
    }
    objrt_unit *warm = t_load_mem(c, "basic.o", g_basic, g_basic_size);
    if (!warm) { snprintf(why, whylen, "good load after errors failed: %s", objrt_error(c)); return 0; }
    objrt_unload(warm);
    /* Unloads keep up to 4 reservations for the next load, which returns those it does
     * not take, failed or not (place.c): counts are taken after such a load. A first
     * round grows malloc's heap to what 20 units need (under qemu-user each growth of the
     * heap is a mapping of its own); the second is counted. */
    int base = 0, loaded = 0;
    for (int round = 0; round < 2; round++) {
        objrt_load(c, paths + 1, 1);
        t_heap_settle();
        base = t_maps_count();
        objrt_unit *u[20];
        for (int i = 0; i < 20; i++) {
            u[i] = t_load_mem(c, "basic.o", g_basic, g_basic_size);
            if (!u[i]) { snprintf(why, whylen, "load %d failed: %s", i, objrt_error(c)); return 0; }
            int (*answer)(void) = (int (*)(void))objrt_unit_sym(u[i], "basic_answer");
            if (!answer || answer() != 42) { snprintf(why, whylen, "basic_answer() wrong in unit %d", i); return 0; }
        }
        loaded = t_maps_count();
        for (int i = 19; i >= 0; i--)
            if (objrt_unload(u[i]) != 0) { snprintf(why, whylen, "objrt_unload returned nonzero"); return 0; }
    }
    objrt_load(c, paths + 1, 1);
    t_heap_settle();
    int after = t_maps_count();
    objrt_free(c);
    if (after != base || loaded <= base) {
        snprintf(why, whylen, "mappings: %d baseline, %d with 20 units, %d after unloading", base, loaded, after);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 3, "MISSING.o BASIC.o");
    g_missing = argv[1];
    g_basic = t_read_file(argv[2], &g_basic_size);
    t_harness("error-control-own-message-check-rejects-other",
             !own_message("thread-b-truncated.o: truncated", MARK_A, MARK_B) &&
             !own_message("x.o: undefined symbol 'objrt_test_no_such_symbol_xyz' (thread-b-truncated.o)", MARK_A, MARK_B) &&
             own_message("x.o: undefined symbol 'objrt_test_no_such_symbol_xyz'", MARK_A, MARK_B),
             "own_message() does not tell the two messages apart");
    t_case("error-fresh-context-empty", run_fresh, NULL);
    t_case("error-per-thread", run_threads, NULL);
    static const t_entry cases[] = {
        { "error-per-context", run_contexts, NULL }, { "error-nonexistent-file", run_nonexistent, NULL },
        { "error-empty-input", run_empty, NULL }, { "error-names-the-broken-input", run_which_input, NULL },
        { "error-unload-null", run_unload_null, NULL },
        { "error-recover-and-unload-returns-mappings", run_recover, NULL },
    };
    t_cases(cases, sizeof cases / sizeof cases[0]);
    free(g_basic);
    return t_exit_status();
}

/* t_calls.c - every entry point given a context or a unit follows the one lifecycle
 * (objrt.h "Threads"), not only loads and unloads.
 * usage: t_calls LIFE_UNIT.o
 * Held: objrt_free waits for a running objrt_unit_foreach_sym, and meanwhile every other
 * entry point, each from a thread of its own (errors are per thread), refuses with
 * "context is closed" at once (before: objrt_addr_info and others took the context's lock,
 * held by the visitor, and blocked; or ran on).
 * Raced: threads call the unit's entry points in a loop while objrt_free runs; each answer
 * is right or a refusal, and once refused every later call on the now unloaded unit is
 * refused too without reading it (before: use-after-free under ASan). The functions of
 * <objrt/tvm_backend.h> and <objrt/tvm_ffi.h> given a unit are among both. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "objrt.h"
#include "objrt/tvm_backend.h"
#include "objrt/tvm_ffi.h"
#include "report.h"

int life_wait = 7, life_ctors, life_dtors;
static const char *obj;
static char why[512];

static objrt_ctx *new_ctx(void)
{
    objrt_ctx *ctx = objrt_new();
    objrt_define(ctx, "life_wait", &life_wait);
    objrt_define(ctx, "life_ctors", &life_ctors);
    objrt_define(ctx, "life_dtors", &life_dtors);
    return ctx;
}

static void pause_us(long us) { nanosleep(&(struct timespec){ .tv_nsec = us * 1000 }, NULL); }

/* ---- held: the entry points while objrt_free waits for a foreach ---------------------- */
static objrt_ctx *held_ctx;
static objrt_unit *held_unit;
static void *life_addr;
static atomic_int in_visitor, free_began, free_returned;

static int refuse_sym(void) { return objrt_unit_sym(held_unit, "life") == NULL; }
static int refuse_ctx_sym(void) { return objrt_sym(held_ctx, "life") == NULL; }
static int refuse_name(void) { return objrt_unit_name(held_unit) == NULL; }
static int refuse_deps(void) { return objrt_unit_dependants(held_unit) == 0; }
static int refuse_export(void) { return objrt_unit_export(held_unit) == -1; }
static int refuse_unload(void) { return objrt_unload(held_unit) == -1; }
static int count_sym(void *n, const char *s, void *a) { (void)s, (void)a; return ++*(int *)n, 0; }
static int refuse_foreach(void)
{
    int n = 0;
    return objrt_unit_foreach_sym(held_unit, count_sym, &n) == -1 && n == 0;
}
static int refuse_stats(void)
{
    objrt_stats s;
    return objrt_unit_stats(held_unit, &s) == -1;
}
static int refuse_addr(void)
{
    objrt_location loc;
    return objrt_addr_info(held_ctx, life_addr, &loc) == -1;
}
static int refuse_memory(void)
{
    objrt_memory m;
    return objrt_memory_usage(held_ctx, &m) == -1;
}
static int refuse_layout(void)
{
    FILE *f = fopen("/dev/null", "w");
    int rc = objrt_layout_report(held_ctx, (const char *[]){ obj }, 1, f);
    fclose(f);
    return rc == -1;
}

/* An error TVM-FFI raised is the caller's to take: dropped here, so nothing leaks. */
static void drop_raised(void)
{
    TVMFFIObjectHandle e = NULL;
    TVMFFIErrorMoveFromRaised(&e);
    if (e)
        TVMFFIObjectDecRef(e);
}
static int refuse_tvm_module(void) { return objrt_tvm_module(held_unit) == NULL; }
static int refuse_tvm_func(void) { return objrt_tvm_func(held_unit, "life") == NULL; }
static int refuse_tvm_main(void) { return objrt_tvm_main(held_unit) == NULL; }
static int no_name(void *d, const char *n) { (void)n; return ++*(int *)d, 0; }
static int refuse_tvm_foreach(void)
{
    int n = 0;
    return objrt_tvm_foreach_registered(held_unit, no_name, &n) == -1 && n == 0;
}
static int refuse_aot(void) { return objrt_aot_run(held_unit, "life", NULL, 0, NULL, 0) == -1; }
static int refuse_aot_unpacked(void)
{
    return objrt_aot_run_unpacked(held_unit, "life", NULL, 0, NULL, 0) == -1;
}
static int refuse_ffi_module(void) { return objrt_ffi_module(held_unit) == NULL; }
static int refuse_ffi_unit(void) { return objrt_ffi_unit(held_unit) == 0; }
static int refuse_ffi_func(void)
{
    TVMFFIObjectHandle f = NULL;
    int rc = objrt_ffi_func(held_unit, "life", &f);
    drop_raised();
    return rc == -1 && !f;
}

static const struct entry { const char *name; int (*refused)(void); } entries[] = {
    { "objrt_unit_sym", refuse_sym }, { "objrt_sym", refuse_ctx_sym },
    { "objrt_unit_name", refuse_name }, { "objrt_unit_dependants", refuse_deps },
    { "objrt_unit_export", refuse_export }, { "objrt_unload", refuse_unload },
    { "objrt_unit_foreach_sym", refuse_foreach }, { "objrt_unit_stats", refuse_stats },
    { "objrt_addr_info", refuse_addr }, { "objrt_memory_usage", refuse_memory },
    { "objrt_layout_report", refuse_layout }, { "objrt_tvm_module", refuse_tvm_module },
    { "objrt_tvm_func", refuse_tvm_func }, { "objrt_tvm_main", refuse_tvm_main },
    { "objrt_tvm_foreach_registered", refuse_tvm_foreach }, { "objrt_aot_run", refuse_aot },
    { "objrt_aot_run_unpacked", refuse_aot_unpacked }, { "objrt_ffi_module", refuse_ffi_module },
    { "objrt_ffi_unit", refuse_ffi_unit }, { "objrt_ffi_func", refuse_ffi_func },
    { NULL, NULL } };

typedef struct probe { const struct entry *e; atomic_int done; int ok; char err[128]; } probe;

static void *run_probe(void *arg)
{
    probe *p = arg;
    p->ok = p->e->refused();
    snprintf(p->err, sizeof p->err, "%s", objrt_error(held_ctx));
    atomic_store(&p->done, 1);
    return NULL;
}

/* One entry point from a thread of its own: refused, "context is closed", within 2 s. */
static int probe_one(const struct entry *e, char *out, size_t len)
{
    static probe p;     /* a thread that blocks keeps it: never reused after a failure */
    memset(&p, 0, sizeof p);
    p.e = e;
    pthread_t t;
    pthread_create(&t, NULL, run_probe, &p);
    for (int i = 0; i < 2000 && !atomic_load(&p.done); i++)
        pause_us(1000);
    if (!atomic_load(&p.done)) {
        pthread_detach(t);
        return snprintf(out, len, "%s blocked for 2 s while objrt_free waited", e->name), 0;
    }
    pthread_join(t, NULL);
    if (!p.ok || strcmp(p.err, "context is closed") != 0)
        return snprintf(out, len, "%s: %s, error '%s' (want refused, 'context is closed')",
                        e->name, p.ok ? "refused" : "answered", p.err), 0;
    return 1;
}

static char held_why[512];
static int held_ok;

static int visitor(void *data, const char *name, void *addr)
{
    (void)data, (void)name, (void)addr;
    atomic_store(&in_visitor, 1);
    while (!atomic_load(&free_began))
        pause_us(100);
    pause_us(20000);                        /* objrt_free is in, closed, waiting */
    held_ok = 1;
    if (atomic_load(&free_returned))
        held_ok = !snprintf(held_why, sizeof held_why, "objrt_free returned while "
                            "objrt_unit_foreach_sym was running");
    for (const struct entry *e = entries; held_ok && e->name; e++)
        held_ok = probe_one(e, held_why, sizeof held_why);
    if (held_ok && atomic_load(&free_returned))
        held_ok = !snprintf(held_why, sizeof held_why, "objrt_free returned during the probes");
    return 1;
}

static void *freer(void *arg)
{
    (void)arg;
    while (!atomic_load(&in_visitor))
        pause_us(100);
    atomic_store(&free_began, 1);
    objrt_free(held_ctx);
    atomic_store(&free_returned, 1);
    return NULL;
}

static int t_held(void)
{
    held_ctx = new_ctx();
    if (!(held_unit = objrt_load(held_ctx, (const char *[]){ obj }, 1)))
        return snprintf(why, sizeof why, "load: %s", objrt_error(held_ctx)), 0;
    life_addr = objrt_unit_sym(held_unit, "life");
    pthread_t t;
    pthread_create(&t, NULL, freer, NULL);
    int rc = objrt_unit_foreach_sym(held_unit, visitor, NULL);
    pthread_join(t, NULL);
    if (!held_ok)
        return snprintf(why, sizeof why, "%s", held_why), 0;
    if (rc != 1)
        return snprintf(why, sizeof why, "objrt_unit_foreach_sym returned %d, not the "
                        "visitor's 1", rc), 0;
    return 1;
}

/* ---- raced: the unit's entry points in loops while objrt_free runs --------------------- */
enum { NKINDS = 7, ROUNDS = 60, AFTER = 200, MAX_CALLS = 2000000 };
static const char *const kind_names[NKINDS] = { "objrt_unit_sym", "objrt_unit_foreach_sym",
                                                "objrt_unit_name", "objrt_unit_stats",
                                                "objrt_unit_dependants", "objrt_tvm_main",
                                                "objrt_ffi_func" };
static objrt_unit *raced;
static void *raced_life;
static const char *raced_name;  /* compared, never read: it goes with the unit */
static pthread_barrier_t go;

/* 1: answered right; 0: refused; -1: a wrong answer. */
static int call_kind(int k)
{
    int n = 0;
    objrt_stats s;
    const char *name;
    switch (k) {
    case 0: {
        void *p = objrt_unit_sym(raced, "life");
        return !p ? 0 : p == raced_life ? 1 : -1;
    }
    case 1:
        return objrt_unit_foreach_sym(raced, count_sym, &n) == -1 ? (n == 0 ? 0 : -1)
                                                                  : n >= 1 ? 1 : -1;
    case 2:
        name = objrt_unit_name(raced);
        return !name ? 0 : name == raced_name ? 1 : -1;
    case 3:
        return objrt_unit_stats(raced, &s) == -1 ? 0 : s.objects == 1 ? 1 : -1;
    /* below, a right answer and a refusal look alike (0 dependants, no __tvm_main__):
     * what they show is that the unit is not read once it is gone */
    case 4:
        return objrt_unit_dependants(raced) == 0 ? 0 : -1;
    case 5:
        return objrt_tvm_main(raced) == NULL ? 0 : -1;
    default: {          /* life as an old-ABI packed function, adapted */
        TVMFFIObjectHandle f = NULL;
        if (objrt_ffi_func(raced, "life", &f) == 0)
            return TVMFFIObjectDecRef(f), 1;
        drop_raised();
        return 0;
    }
    }
}

typedef struct racer { int kind; long answered; char bad[160]; } racer;

/* Right answers until the first refusal, then only refusals (the unit is gone for good). */
static void *race(void *arg)
{
    racer *r = arg;
    pthread_barrier_wait(&go);
    long i = 0, refused_at = -1;
    for (; i < MAX_CALLS && (refused_at < 0 || i < refused_at + AFTER); i++) {
        int a = call_kind(r->kind);
        if (a < 0 || (a == 1 && refused_at >= 0)) {
            snprintf(r->bad, sizeof r->bad, "%s: %s at call %ld", kind_names[r->kind],
                     a < 0 ? "a wrong answer" : "answered after a refusal", i);
            return NULL;
        }
        if (a == 1)
            r->answered++;
        else if (refused_at < 0)
            refused_at = i;
    }
    if (refused_at < 0)
        snprintf(r->bad, sizeof r->bad, "%s: never refused in %d calls", kind_names[r->kind],
                 MAX_CALLS);
    return NULL;
}

static long raced_answers;

static int t_raced(void)
{
    for (int round = 0; round < ROUNDS; round++) {
        objrt_ctx *ctx = new_ctx();
        if (!(raced = objrt_load(ctx, (const char *[]){ obj }, 1)))
            return snprintf(why, sizeof why, "load: %s", objrt_error(ctx)), 0;
        raced_life = objrt_unit_sym(raced, "life");
        if (!(raced_name = objrt_unit_name(raced)) || strcmp(raced_name, obj) != 0)
            return snprintf(why, sizeof why, "the unit's name is %s", raced_name), 0;
        racer r[NKINDS] = { { 0 } };
        pthread_t t[NKINDS];
        pthread_barrier_init(&go, NULL, NKINDS + 1);
        for (int k = 0; k < NKINDS; k++) {
            r[k].kind = k;
            pthread_create(&t[k], NULL, race, &r[k]);
        }
        pthread_barrier_wait(&go);
        pause_us(50 * (round % 10));        /* objrt_free early and late in the calls */
        objrt_free(ctx);
        for (int k = 0; k < NKINDS; k++)
            pthread_join(t[k], NULL);       /* before the next load: it may reuse the address */
        pthread_barrier_destroy(&go);
        for (int k = 0; k < NKINDS; k++) {
            if (r[k].bad[0])
                return snprintf(why, sizeof why, "round %d: %s", round, r[k].bad), 0;
            raced_answers += r[k].answered;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {
        "entry points while objrt_free waits for a foreach: each refused, context is closed",
        "entry points on a unit racing objrt_free: right answers, then refusals only",
        "HARNESS some calls in the race were answered before objrt_free",
        "HARNESS the probe catches an entry point that answers", NULL };
    t_declare(names);
    if (argc != 2)
        return fprintf(stderr, "usage: t_calls LIFE_UNIT.o\n"), 2;
    obj = argv[1];
    t_run(names[0], t_held, why);
    t_run(names[1], t_raced, why);
    if (t_selected(names[2] + 8))
        t_harness(names[2] + 8, raced_answers > 0, "no call was answered: the race only "
                  "ever saw a freed context");
    if (t_selected(names[3] + 8)) {
        /* An entry point that answers (objrt_unit_sym on an open context) must be caught. */
        objrt_ctx *ctx = new_ctx();
        held_ctx = ctx;
        held_unit = objrt_load(ctx, (const char *[]){ obj }, 1);
        char out[256] = "";
        int caught = held_unit && !probe_one(&entries[0], out, sizeof out) &&
                     strstr(out, "answered");
        objrt_free(ctx);
        t_harness(names[3] + 8, caught, "the probe accepted an answer: %s", out);
    }
    return t_exit_status();
}

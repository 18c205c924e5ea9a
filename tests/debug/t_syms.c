/*
 * t_syms.c - lookup misses say "undefined symbol: NAME" (objrt_sym, objrt_unit_sym); a hit
 * leaves the error alone; objrt_unit_foreach_sym visits every global once, stops early.
 *   usage: t_syms OBJ      case foreach-all prints "SYM name" lines for the suite to
 *                          compare with nm
 * Each case loads OBJ into a fresh context and runs crash-isolated (t_case). Under ASan a
 * case also fails when it leaked heap memory.
 */
#include "../robustness/t_common.h"

static const char *g_obj;

static objrt_unit *load_obj(objrt_ctx **ctx, char *why, size_t whylen)
{
    return t_load_fresh(ctx, g_obj, why, whylen);
}

/* ---- lookups and the error they leave ----------------------------------------------------- */

static int error_empty_before(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx;
    if (!load_obj(&ctx, why, whylen)) return 0;
    snprintf(why, whylen, "error already '%s'", objrt_error(ctx));
    return t_ctx_done(ctx, objrt_error(ctx)[0] == '\0', why, whylen);
}

static int hit_sets_no_error(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx;
    objrt_unit *u = load_obj(&ctx, why, whylen);
    if (!u) return 0;
    void *hit = objrt_unit_sym(u, "global_fn");
    snprintf(why, whylen, "hit=%p error '%s'", hit, objrt_error(ctx));
    return t_ctx_done(ctx, hit && objrt_error(ctx)[0] == '\0', why, whylen);
}

/* A miss through objrt_unit_sym (arg NULL) or objrt_sym (arg non-NULL) names the symbol. */
static int use_ctx = 1;
static int miss_named(void *arg, char *why, size_t whylen)
{
    objrt_ctx *ctx;
    objrt_unit *u = load_obj(&ctx, why, whylen);
    if (!u) return 0;
    const char *name = arg ? "also_missing" : "no_such_fn";
    void *miss = arg ? objrt_sym(ctx, name) : objrt_unit_sym(u, name);
    char want[128];
    snprintf(want, sizeof want, "undefined symbol: %s", name);
    snprintf(why, whylen, "%s miss: %p, error '%s'", arg ? "objrt_sym" : "objrt_unit_sym", miss,
             objrt_error(ctx));
    return t_ctx_done(ctx, !miss && strcmp(objrt_error(ctx), want) == 0, why, whylen);
}

/* Local symbols stay private: a static function is a miss. */
static int local_is_miss(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx;
    objrt_unit *u = load_obj(&ctx, why, whylen);
    if (!u) return 0;
    void *miss = objrt_unit_sym(u, "local_fn");
    snprintf(why, whylen, "local_fn found at %p, error '%s'", miss, objrt_error(ctx));
    return t_ctx_done(ctx, !miss && strstr(objrt_error(ctx), "local_fn"), why, whylen);
}

/* ---- objrt_unit_foreach_sym ----------------------------------------------------------------- */

static int stop_at_second(void *data, const char *name, void *addr)
{
    (void)name, (void)addr;
    return ++*(int *)data == 2 ? 7 : 0;
}

static int foreach_stops(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx;
    objrt_unit *u = load_obj(&ctx, why, whylen);
    if (!u) return 0;
    int n = 0, rc = objrt_unit_foreach_sym(u, stop_at_second, &n);
    snprintf(why, whylen, "returned %d after %d calls, expected 7 after 2", rc, n);
    return t_ctx_done(ctx, rc == 7 && n == 2, why, whylen);
}

static int foreach_bad_args(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx;
    objrt_unit *u = load_obj(&ctx, why, whylen);
    if (!u) return 0;
    int n = 0;
    int ok = objrt_unit_foreach_sym(NULL, stop_at_second, &n) == -1 &&
             objrt_unit_foreach_sym(u, NULL, NULL) == -1;
    snprintf(why, whylen, "NULL arguments accepted");
    return t_ctx_done(ctx, ok, why, whylen);
}

/* Every visit: print "SYM name", and count addresses objrt_unit_sym disagrees with. */
typedef struct visit { objrt_unit *u; int bad; char first[256]; } visit;

static int print_sym(void *data, const char *name, void *addr)
{
    visit *v = data;
    void *looked_up = objrt_unit_sym(v->u, name);    /* the same table objrt_unit_sym searches */
    if (looked_up != addr && v->bad++ == 0)
        snprintf(v->first, sizeof v->first, "%s visited at %p, objrt_unit_sym says %p", name,
                 addr, looked_up);
    printf("SYM %s\n", name);
    return 0;
}

static int foreach_all(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx;
    objrt_unit *u = load_obj(&ctx, why, whylen);
    if (!u) return 0;
    visit v = { u, 0, "" };
    int rc = objrt_unit_foreach_sym(u, print_sym, &v);
    fflush(stdout);          /* a forked case leaves by _exit: the SYM lines must be out */
    if (rc != 0)
        snprintf(why, whylen, "returned %d", rc);
    else if (v.bad)
        snprintf(why, whylen, "%d symbols at another address than objrt_unit_sym's: %s", v.bad, v.first);
    return t_ctx_done(ctx, rc == 0 && !v.bad, why, whylen);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 2, "OBJ");
    g_obj = argv[1];
    static const t_entry cases[] = {
        { "syms-error-empty-before", error_empty_before, NULL },
        { "syms-hit-sets-no-error", hit_sets_no_error, NULL },
        { "syms-unit-miss", miss_named, NULL },
        { "syms-ctx-miss", miss_named, &use_ctx },
        { "syms-local-is-miss", local_is_miss, NULL },
        { "foreach-stops", foreach_stops, NULL },
        { "foreach-bad-args", foreach_bad_args, NULL },
        { "foreach-all", foreach_all, NULL },
    };
    t_cases(cases, sizeof cases / sizeof cases[0]);
    return t_exit_status();
}

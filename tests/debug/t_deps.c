/*
 * t_deps.c - objrt_unload() refuses a unit another loaded unit is bound to, naming the
 * dependant; both unload orders; a unit bound to nothing does not block (negative control).
 *   usage: t_deps DIR    (DIR holds dep_a.o, dep_b.o, dep_c.o)
 * Each case loads its own units into a fresh context and runs crash-isolated (t_case); a
 * case about a later step repeats the steps before it, so it passes only when the whole
 * sequence up to it behaves. Under ASan a case also fails when it leaked heap memory.
 */
#include "../robustness/t_common.h"

static const char *g_dir;

/* dep_a.o and, bound to it or not, a second unit in a fresh context. */
typedef struct pair { objrt_ctx *ctx; objrt_unit *a, *second; } pair;

static objrt_unit *load1(objrt_ctx *ctx, const char *name, char *why, size_t whylen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    const char *p = path;
    objrt_unit *u = objrt_load(ctx, &p, 1);
    if (!u)
        snprintf(why, whylen, "loading %s failed: %s", name, objrt_error(ctx));
    return u;
}

/* Load dep_a.o, then `second`; on failure the context is freed and `why` says which. */
static int pair_load(pair *p, const char *second, char *why, size_t whylen)
{
    p->ctx = objrt_new();
    p->a = load1(p->ctx, "dep_a.o", why, whylen);
    p->second = p->a ? load1(p->ctx, second, why, whylen) : NULL;
    if (p->second)
        return 1;
    objrt_free(p->ctx);
    return 0;
}

/* Free the pair's context; a case that passed must also have leaked nothing. */
static int pair_done(pair *p, int ok, char *why, size_t whylen)
{
    objrt_free(p->ctx);
    if (ok && t_leaks_now()) {
        snprintf(why, whylen, "leaked heap memory (LeakSanitizer report on stderr)");
        return 0;
    }
    return ok;
}

static int call(objrt_unit *u, const char *fn)
{
    int (*f)(void) = (int (*)(void))objrt_unit_sym(u, fn);
    return f ? f() : -1;
}

/* The first step of the dependant-first sequence: unload(a) is refused while b is bound. */
static int refused(pair *p, char *why, size_t whylen)
{
    int rc = objrt_unload(p->a);
    if (rc == -1)
        return 1;
    snprintf(why, whylen, "unload(a) = %d with dep_b.o bound to it, expected -1", rc);
    return 0;
}

/* ---- A loaded first, B bound to it: A refused while B is there, then both go in order ---- */

static int deps_count(void *arg, char *why, size_t whylen)
{
    (void)arg;
    pair p;
    if (!pair_load(&p, "dep_b.o", why, whylen)) return 0;
    size_t na = objrt_unit_dependants(p.a), nb = objrt_unit_dependants(p.second);
    snprintf(why, whylen, "dependants(a)=%zu dependants(b)=%zu, expected 1 and 0", na, nb);
    return pair_done(&p, na == 1 && nb == 0, why, whylen);
}

static int deps_refuse_names_dependant(void *arg, char *why, size_t whylen)
{
    (void)arg;
    pair p;
    if (!pair_load(&p, "dep_b.o", why, whylen)) return 0;
    int rc = objrt_unload(p.a);
    const char *err = objrt_error(p.ctx);
    int ok = rc == -1 && strstr(err, "cannot unload") && strstr(err, "dep_b.o") && strstr(err, "a_value");
    snprintf(why, whylen, "unload(a) = %d, error '%s'", rc, err);
    return pair_done(&p, ok, why, whylen);
}

static int deps_dependant_still_works(void *arg, char *why, size_t whylen)
{
    (void)arg;
    pair p;
    if (!pair_load(&p, "dep_b.o", why, whylen)) return 0;
    int ok = refused(&p, why, whylen), v = ok ? call(p.second, "b_value") : 0;
    if (ok && v != 43) {
        snprintf(why, whylen, "b_value() after the refused unload = %d, expected 43", v);
        ok = 0;
    }
    return pair_done(&p, ok, why, whylen);
}

static int deps_unload_dependant(void *arg, char *why, size_t whylen)
{
    (void)arg;
    pair p;
    if (!pair_load(&p, "dep_b.o", why, whylen)) return 0;
    int ok = refused(&p, why, whylen), rc = ok ? objrt_unload(p.second) : 0;
    if (ok && rc != 0) {
        snprintf(why, whylen, "unload(b) = %d: %s", rc, objrt_error(p.ctx));
        ok = 0;
    }
    return pair_done(&p, ok, why, whylen);
}

/* After the refused unload and b's: a has no dependant left and unloads. */
static int refused_then_b_unloaded(pair *p, char *why, size_t whylen)
{
    if (!refused(p, why, whylen)) return 0;
    int rc = objrt_unload(p->second);
    if (rc == 0) return 1;
    snprintf(why, whylen, "unload(b) = %d: %s", rc, objrt_error(p->ctx));
    return 0;
}

static int deps_count_after(void *arg, char *why, size_t whylen)
{
    (void)arg;
    pair p;
    if (!pair_load(&p, "dep_b.o", why, whylen)) return 0;
    int ok = refused_then_b_unloaded(&p, why, whylen);
    if (ok && objrt_unit_dependants(p.a) != 0) {
        snprintf(why, whylen, "dependants(a)=%zu after b left", objrt_unit_dependants(p.a));
        ok = 0;
    }
    return pair_done(&p, ok, why, whylen);
}

static int deps_unload_after_dependant(void *arg, char *why, size_t whylen)
{
    (void)arg;
    pair p;
    if (!pair_load(&p, "dep_b.o", why, whylen)) return 0;
    int ok = refused_then_b_unloaded(&p, why, whylen), rc = ok ? objrt_unload(p.a) : 0;
    if (ok && rc != 0) {
        snprintf(why, whylen, "unload(a) = %d: %s", rc, objrt_error(p.ctx));
        ok = 0;
    }
    return pair_done(&p, ok, why, whylen);
}

/* ---- Negative control: C loaded after A but bound to nothing of it; A unloads at once ---- */

static int deps_unrelated(void *arg, char *why, size_t whylen)
{
    (void)arg;
    pair p;
    if (!pair_load(&p, "dep_c.o", why, whylen)) return 0;
    int rc = objrt_unload(p.a);
    int ok = rc == 0 && objrt_unit_dependants(p.second) == 0 && call(p.second, "c_value") == 7;
    snprintf(why, whylen, "unload(a) with an unrelated later unit = %d: %s", rc, objrt_error(p.ctx));
    return pair_done(&p, ok, why, whylen);
}

/* ---- objrt_free() with a dependant still loaded unloads newest first, never refuses ---- */

static int deps_free_context(void *arg, char *why, size_t whylen)
{
    (void)arg;
    pair p;
    if (!pair_load(&p, "dep_b.o", why, whylen)) return 0;
    return pair_done(&p, 1, why, whylen);     /* a hang or a leak here is the failure */
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 2, "DIR");
    g_dir = argv[1];
    static const t_entry cases[] = {
        { "deps-count", deps_count, NULL },
        { "deps-refuse-names-dependant", deps_refuse_names_dependant, NULL },
        { "deps-dependant-still-works", deps_dependant_still_works, NULL },
        { "deps-unload-dependant", deps_unload_dependant, NULL },
        { "deps-count-after", deps_count_after, NULL },
        { "deps-unload-after-dependant", deps_unload_after_dependant, NULL },
        { "deps-unrelated", deps_unrelated, NULL },
        { "deps-free-context", deps_free_context, NULL },
    };
    t_cases(cases, sizeof cases / sizeof cases[0]);
    return t_exit_status();
}

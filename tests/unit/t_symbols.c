/*
 * t_symbols.c - symbol resolution errors name what is wrong.
 *
 * usage: t_symbols MISSING.o DUP_A.o DUP_B.o WEAK_A.o WEAK_B.o LONGNAME.o
 *  - MISSING.o references objrt_test_no_such_symbol_xyz: the error names that symbol.
 *    Control: with the symbol given by objrt_define() it loads and calls through.
 *  - DUP_A.o + DUP_B.o both define dup_value strongly: the error names the symbol and
 *    both files. Control: WEAK_A.o (weak wk_value) + WEAK_B.o (strong) load, and the
 *    strong definition wins.
 *  - LONGNAME.o references a 64 KiB name: the (possibly cut) error names file and name.
 * Failed loads leave nothing mapped or leaked; no crash.
 */
#include "t_common.h"

static const char *g_missing, *g_dup_a, *g_dup_b, *g_weak_a, *g_weak_b, *g_longname;

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int load_missing(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    const char *paths[1] = { g_missing };
    objrt_unit *u = objrt_load(ctx, paths, 1);
    if (u) { snprintf(why, whylen, "object with an undefined symbol loaded"); objrt_unload(u); return 0; }
    const char *needles[] = { "objrt_test_no_such_symbol_xyz", NULL };
    return t_check_error(ctx, base(g_missing), needles, why, whylen);
}

/* A 64 KiB symbol name: the message may be cut, but names the file and the name's start. */
static int load_longname(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    const char *paths[1] = { g_longname };
    objrt_unit *u = objrt_load(ctx, paths, 1);
    if (u) { snprintf(why, whylen, "object with an undefined symbol loaded"); objrt_unload(u); return 0; }
    const char *needles[] = { "objrt_long_name_objrt_long_name_", NULL };
    return t_check_error(ctx, base(g_longname), needles, why, whylen);
}

static int load_dup(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    const char *paths[2] = { g_dup_a, g_dup_b };
    objrt_unit *u = objrt_load(ctx, paths, 2);
    if (u) { snprintf(why, whylen, "two strong definitions of dup_value loaded"); objrt_unload(u); return 0; }
    const char *needles[] = { "dup_value", base(g_dup_a), base(g_dup_b), NULL };
    return t_check_error(ctx, NULL, needles, why, whylen);
}

static int run(void *arg, char *why, size_t whylen)
{
    objrt_ctx *ctx = objrt_new();
    int ok = t_fails_cleanly(ctx, (t_load_fn)arg, NULL, why, whylen);
    objrt_free(ctx);
    return ok;
}

static int provided(void) { return 41; }

static int run_missing_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    if (objrt_define(ctx, "objrt_test_no_such_symbol_xyz", (void *)provided) != 0) {
        snprintf(why, whylen, "objrt_define failed: %s", objrt_error(ctx));
        return 0;
    }
    const char *paths[1] = { g_missing };
    objrt_unit *u = objrt_load(ctx, paths, 1);
    if (!u) { snprintf(why, whylen, "did not load with the symbol defined: %s", objrt_error(ctx)); return 0; }
    int (*fn)(void) = (int (*)(void))objrt_unit_sym(u, "use_missing");
    int v = fn ? fn() : -1;
    objrt_unload(u);
    objrt_free(ctx);
    if (v != 42) { snprintf(why, whylen, "use_missing() returned %d, expected 42", v); return 0; }
    return 1;
}

static int run_weak_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    const char *paths[2] = { g_weak_a, g_weak_b };
    objrt_unit *u = objrt_load(ctx, paths, 2);
    if (!u) { snprintf(why, whylen, "weak+strong pair did not load: %s", objrt_error(ctx)); return 0; }
    int (*fn)(void) = (int (*)(void))objrt_unit_sym(u, "wk_call");
    int v = fn ? fn() : -1;
    objrt_unload(u);
    objrt_free(ctx);
    if (v != 20) { snprintf(why, whylen, "wk_call() returned %d, expected 20 (strong wk_value)", v); return 0; }
    return 1;
}

/* Control: each of the duplicate objects alone loads (the failure is the pair). */
static int run_dup_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    const char *paths[1] = { g_dup_a };
    objrt_unit *u = objrt_load(ctx, paths, 1);
    if (!u) { snprintf(why, whylen, "dup_a.o alone did not load: %s", objrt_error(ctx)); return 0; }
    objrt_unload(u);
    objrt_free(ctx);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 7) { fprintf(stderr, "usage: %s MISSING.o DUP_A.o DUP_B.o WEAK_A.o WEAK_B.o LONGNAME.o\n", argv[0]); return 2; }
    g_missing = argv[1]; g_dup_a = argv[2]; g_dup_b = argv[3]; g_weak_a = argv[4]; g_weak_b = argv[5];
    g_longname = argv[6];
    t_case("symbols-missing-named", run, (void *)load_missing);
    t_case("symbols-control-missing-defined-loads", run_missing_control, NULL);
    t_case("symbols-missing-64kib-name", run, (void *)load_longname);
    t_case("symbols-duplicate-strong-named", run, (void *)load_dup);
    t_case("symbols-control-one-definition-loads", run_dup_control, NULL);
    t_case("symbols-control-weak-strong-loads", run_weak_control, NULL);
    return t_exit_status();
}

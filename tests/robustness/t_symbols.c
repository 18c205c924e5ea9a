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

/* One load that must fail: `paths`, the error naming `name` (or NULL) and `needles`. */
static int refused(objrt_ctx *ctx, const char *const *paths, size_t n, const char *what,
                   const char *name, const char *const *needles, char *why, size_t whylen)
{
    objrt_unit *u = objrt_load(ctx, (const char **)paths, n);
    return t_refused(ctx, u, what, name, needles, why, whylen);
}

static int load_missing(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    const char *needles[] = { "objrt_test_no_such_symbol_xyz", NULL };
    return refused(ctx, &g_missing, 1, "object with an undefined symbol loaded", base(g_missing),
                   needles, why, whylen);
}

/* A 64 KiB symbol name: the message may be cut, but names the file and the name's start. */
static int load_longname(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    const char *needles[] = { "objrt_long_name_objrt_long_name_", NULL };
    return refused(ctx, &g_longname, 1, "object with an undefined symbol loaded", base(g_longname),
                   needles, why, whylen);
}

static int load_dup(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    const char *paths[2] = { g_dup_a, g_dup_b };
    const char *needles[] = { "dup_value", base(g_dup_a), base(g_dup_b), NULL };
    return refused(ctx, paths, 2, "two strong definitions of dup_value loaded", NULL, needles, why, whylen);
}

static int run(void *arg, char *why, size_t whylen)
{
    return t_fails_cleanly_new((t_load_fn)arg, NULL, NULL, why, whylen);
}

/* A "failed load" that leaves a page mapped each time: t_fails_cleanly must catch it. */
static int leaky_failure(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)ctx; (void)arg; (void)why; (void)whylen;
    return mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED;
}

static void harness_leak_is_caught(void)
{
    char why[512] = "";
    int caught = !t_fails_cleanly_new(leaky_failure, NULL, NULL, why, sizeof why);
    t_harness("symbols-harness-leftover-mapping-caught", caught, "a load leaving a page mapped "
              "each time passed the leftover-mapping check");
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
    return t_call_unload(ctx, objrt_load(ctx, &g_missing, 1), "use_missing", 42, why, whylen);
}

/* The strong definition (wk_value 20) wins over the weak one. */
static int run_weak_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    const char *paths[2] = { g_weak_a, g_weak_b };
    return t_files_call(paths, 2, "wk_call", 20, why, whylen);
}

/* Control: each of the duplicate objects alone loads (the failure is the pair). */
static int run_dup_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return t_files_call(&g_dup_a, 1, NULL, 0, why, whylen);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 7, "MISSING.o DUP_A.o DUP_B.o WEAK_A.o WEAK_B.o LONGNAME.o");
    g_missing = argv[1]; g_dup_a = argv[2]; g_dup_b = argv[3]; g_weak_a = argv[4]; g_weak_b = argv[5];
    g_longname = argv[6];
    t_case("symbols-missing-named", run, (void *)load_missing);
    t_case("symbols-control-missing-defined-loads", run_missing_control, NULL);
    t_case("symbols-missing-64kib-name", run, (void *)load_longname);
    t_case("symbols-duplicate-strong-named", run, (void *)load_dup);
    t_case("symbols-control-one-definition-loads", run_dup_control, NULL);
    t_case("symbols-control-weak-strong-loads", run_weak_control, NULL);
    harness_leak_is_caught();
    return t_exit_status();
}

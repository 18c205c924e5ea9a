/*
 * t_deps.c - objrt_unload() refuses a unit another loaded unit is bound to, naming the
 * dependant; both unload orders; a unit bound to nothing does not block (negative control).
 *   usage: t_deps DIR    (DIR holds dep_a.o, dep_b.o, dep_c.o)
 */
#include "../unit/t_common.h"

static objrt_unit *load1(objrt_ctx *ctx, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const char *p = path;
    objrt_unit *u = objrt_load(ctx, &p, 1);
    if (!u)
        printf("FAIL deps-load-%s: %s\n", name, objrt_error(ctx));
    return u;
}

static int call(objrt_unit *u, const char *fn)
{
    int (*f)(void) = (int (*)(void))objrt_unit_sym(u, fn);
    return f ? f() : -1;
}

/* A loaded first, B bound to it: A refused while B is there, then both go in order. */
static void dependant_first(const char *dir)
{
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load1(ctx, dir, "dep_a.o"), *b = a ? load1(ctx, dir, "dep_b.o") : NULL;
    if (!b) {
        t_report("deps-order-a-then-b", 0, "load failed");
        objrt_free(ctx);
        return;
    }
    t_report("deps-count", objrt_unit_dependants(a) == 1 && objrt_unit_dependants(b) == 0,
             "dependants(a)=%zu dependants(b)=%zu, expected 1 and 0",
             objrt_unit_dependants(a), objrt_unit_dependants(b));
    int rc = objrt_unload(a);
    const char *err = objrt_error(ctx);
    t_report("deps-refuse-names-dependant",
             rc == -1 && strstr(err, "cannot unload") && strstr(err, "dep_b.o") &&
             strstr(err, "a_value"), "unload(a) = %d, error '%s'", rc, err);
    t_report("deps-dependant-still-works", call(b, "b_value") == 43,
             "b_value() after the refused unload = %d, expected 43", call(b, "b_value"));
    rc = objrt_unload(b);
    t_report("deps-unload-dependant", rc == 0, "unload(b) = %d: %s", rc, objrt_error(ctx));
    t_report("deps-count-after", objrt_unit_dependants(a) == 0, "dependants(a)=%zu after b left",
             objrt_unit_dependants(a));
    rc = objrt_unload(a);
    t_report("deps-unload-after-dependant", rc == 0, "unload(a) = %d: %s", rc, objrt_error(ctx));
    objrt_free(ctx);
}

/* Negative control: C loaded after A but bound to nothing of it; A unloads at once. */
static void unrelated(const char *dir)
{
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load1(ctx, dir, "dep_a.o"), *c = a ? load1(ctx, dir, "dep_c.o") : NULL;
    if (!c) {
        t_report("deps-unrelated", 0, "load failed");
        objrt_free(ctx);
        return;
    }
    int rc = objrt_unload(a);
    t_report("deps-unrelated", rc == 0 && objrt_unit_dependants(c) == 0 && call(c, "c_value") == 7,
             "unload(a) with an unrelated later unit = %d: %s", rc, objrt_error(ctx));
    objrt_free(ctx);
}

/* objrt_free() with a dependant still loaded unloads newest first and never refuses. */
static void free_with_dependant(const char *dir)
{
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load1(ctx, dir, "dep_a.o");
    objrt_unit *b = a ? load1(ctx, dir, "dep_b.o") : NULL;
    objrt_free(ctx);              /* a hang or a leak here is the failure */
    t_report("deps-free-context", b != NULL, "load failed");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: t_deps DIR\n");
        return 2;
    }
    dependant_first(argv[1]);
    unrelated(argv[1]);
    free_with_dependant(argv[1]);
    return t_exit_status();
}

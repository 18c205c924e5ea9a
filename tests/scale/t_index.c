/*
 * t_index.c - the context's name and address indexes give what the walk of its units gave
 * (37-scale):  t_index A.o B.o USER.o FILLER.o
 * A.o and B.o both define `which` (returning 1 and 2); USER.o calls it (user() returns
 * which() * 10). Prints one PASS/FAIL line per case: index-newest-first (objrt_sym and a
 * later unit's binding take the newest definition), index-unload-reverts (unloading the
 * newest uncovers the older one), index-dependants (a bound unit counts its dependant and
 * refuses to unload until it is gone), each with filler units loaded in between.
 */
#include <stdio.h>
#include <stdlib.h>

#include "objrt.h"

static int failed;
static void report(int ok, const char *name, const char *why)
{
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : ": ", ok ? "" : why);
    failed |= !ok;
}

static objrt_unit *load1(objrt_ctx *ctx, const char *path)
{
    objrt_unit *u = objrt_load(ctx, &path, 1);
    if (!u)
        fprintf(stderr, "t_index: %s: %s\n", path, objrt_error(ctx));
    return u;
}

static int call(void *f) { return f ? ((int (*)(void))f)() : -1; }

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load1(ctx, argv[1]);
    for (int i = 0; i < 50; i++)
        load1(ctx, argv[4]);
    objrt_unit *b = load1(ctx, argv[2]);
    for (int i = 0; i < 50; i++)
        load1(ctx, argv[4]);
    if (!a || !b)
        return 1;
    objrt_unit *user = load1(ctx, argv[3]);
    int s = call(objrt_sym(ctx, "which")), us = user ? call(objrt_unit_sym(user, "user")) : -1;
    char why[200];
    snprintf(why, sizeof why, "objrt_sym(which)() = %d, user() = %d (expected 2, 20)", s, us);
    report(s == 2 && us == 20, "index-newest-first", why);
    size_t deps = objrt_unit_dependants(b);
    int refused = objrt_unload(b) != 0;
    objrt_unload(user);
    size_t after = objrt_unit_dependants(b);
    int gone = objrt_unload(b) == 0;
    snprintf(why, sizeof why, "dependants %zu, unload refused %d, after user's unload %zu, unloaded %d",
             deps, refused, after, gone);
    report(deps == 1 && refused && after == 0 && gone, "index-dependants", why);
    s = call(objrt_sym(ctx, "which"));
    objrt_unit *user2 = load1(ctx, argv[3]);
    us = user2 ? call(objrt_unit_sym(user2, "user")) : -1;
    snprintf(why, sizeof why, "after unloading B: objrt_sym(which)() = %d, user() = %d (expected 1, 10)", s, us);
    report(s == 1 && us == 10, "index-unload-reverts", why);
    objrt_free(ctx);
    return failed;
}

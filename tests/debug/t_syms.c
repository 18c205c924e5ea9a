/*
 * t_syms.c - lookup misses say "undefined symbol: NAME" (objrt_sym, objrt_unit_sym); a hit
 * leaves the error alone; objrt_unit_foreach_sym visits every global once, stops early.
 *   usage: t_syms OBJ      prints "SYM name" lines for the suite to compare with nm
 */
#include "../unit/t_common.h"

static int print_sym(void *data, const char *name, void *addr)
{
    objrt_unit *u = data;
    if (objrt_unit_sym(u, name) != addr)    /* the same table objrt_unit_sym searches */
        printf("FAIL foreach-addr: %s visited at %p, objrt_unit_sym says %p\n", name, addr,
               objrt_unit_sym(u, name));
    printf("SYM %s\n", name);
    return 0;
}

static int stop_at_second(void *data, const char *name, void *addr)
{
    (void)name, (void)addr;
    return ++*(int *)data == 2 ? 7 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: t_syms OBJ\n");
        return 2;
    }
    objrt_ctx *ctx = objrt_new();
    const char *p = argv[1];
    objrt_unit *u = objrt_load(ctx, &p, 1);
    if (!u) {
        t_report("syms-load", 0, "%s", objrt_error(ctx));
        return 1;
    }
    t_report("syms-error-empty-before", objrt_error(ctx)[0] == '\0', "error already '%s'",
             objrt_error(ctx));
    void *hit = objrt_unit_sym(u, "global_fn");
    t_report("syms-hit-sets-no-error", hit && objrt_error(ctx)[0] == '\0', "hit=%p error '%s'",
             hit, objrt_error(ctx));
    void *miss = objrt_unit_sym(u, "no_such_fn");
    t_report("syms-unit-miss", !miss && strcmp(objrt_error(ctx), "undefined symbol: no_such_fn") == 0,
             "objrt_unit_sym miss: %p, error '%s'", miss, objrt_error(ctx));
    miss = objrt_sym(ctx, "also_missing");
    t_report("syms-ctx-miss", !miss && strcmp(objrt_error(ctx), "undefined symbol: also_missing") == 0,
             "objrt_sym miss: %p, error '%s'", miss, objrt_error(ctx));
    /* Local symbols stay private: a static function is a miss. */
    miss = objrt_unit_sym(u, "local_fn");
    t_report("syms-local-is-miss", !miss && strstr(objrt_error(ctx), "local_fn"),
             "local_fn found at %p", miss);
    int n = 0, rc = objrt_unit_foreach_sym(u, stop_at_second, &n);
    t_report("foreach-stops", rc == 7 && n == 2, "returned %d after %d calls", rc, n);
    t_report("foreach-bad-args", objrt_unit_foreach_sym(NULL, stop_at_second, &n) == -1 &&
             objrt_unit_foreach_sym(u, NULL, NULL) == -1, "NULL arguments accepted");
    rc = objrt_unit_foreach_sym(u, print_sym, u);
    t_report("foreach-all", rc == 0, "returned %d", rc);
    objrt_free(ctx);
    return t_exit_status();
}

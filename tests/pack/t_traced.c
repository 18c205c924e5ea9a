/*
 * t_traced.c - t_traced UNIT.o: loads one small unit (tests/pack/unit.c) with pack_small
 * into a context, prints "packed=N" (objrt_stats.packed) and f(3). Run by 34-pack natively
 * (the unit shares pages) and under gdb with a breakpoint on f set before the load: a
 * process traced from the start does not pack, so gdb can plant the breakpoint.
 */
#include <stdio.h>
#include <stdlib.h>

#include "objrt.h"

static int zero_fn(int x) { (void)x; return 0; }
static int zero;

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s UNIT.o\n", argv[0]);
        return 2;
    }
    objrt_ctx *ctx = objrt_new();
    objrt_options o = { .pack_small = 1 };
    objrt_set_options(ctx, &o);
    objrt_define(ctx, "prev", (void *)zero_fn);
    objrt_define(ctx, "prev_g", &zero);
    objrt_unit *u = objrt_load(ctx, (const char *const *)&argv[1], 1);
    if (!u) {
        fprintf(stderr, "t_traced: %s\n", objrt_error(ctx));
        return 1;
    }
    objrt_stats s;
    objrt_unit_stats(u, &s);
    int (*f)(int) = (int (*)(int))objrt_unit_sym(u, "f");
    printf("packed=%zu\n", s.packed);
    fflush(stdout);
    printf("f=%d\n", f(3));
    objrt_free(ctx);
    return 0;
}

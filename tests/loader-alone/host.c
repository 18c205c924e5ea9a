/*
 * host.c - a host of the loader alone (libobjrt_loader.a, no kernel runtime linked):
 *   host UNIT.o [FUNC ARG]   loads UNIT.o; with FUNC, calls int FUNC(int) with ARG and
 *                            prints "FUNC(ARG) = N". Exit 0, or 1 with objrt's error.
 * Uses only the public API (objrt.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "objrt.h"

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 4) {
        fprintf(stderr, "usage: host UNIT.o [FUNC ARG]\n");
        return 2;
    }
    objrt_ctx *ctx = objrt_new();
    if (!ctx)
        return 1;
    const char *paths[] = { argv[1] };
    objrt_unit *u = objrt_load(ctx, paths, 1);
    if (!u) {
        fprintf(stderr, "objrt_load: %s\n", objrt_error(ctx));
        objrt_free(ctx);
        return 1;
    }
    if (argc == 4) {
        int (*fn)(int) = (int (*)(int))objrt_unit_sym(u, argv[2]);
        if (!fn) {
            fprintf(stderr, "objrt_unit_sym: %s\n", objrt_error(ctx));
            objrt_free(ctx);
            return 1;
        }
        printf("%s(%s) = %d\n", argv[2], argv[3], fn(atoi(argv[3])));
    }
    objrt_unload(u);
    objrt_free(ctx);
    return 0;
}

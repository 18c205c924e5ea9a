/*
 * t_gdbhost.c - a host for the gdb checks: loads OBJ, calls kernel_fn, unloads it unless
 * told to keep it, then calls debug_stop() where gdb looks at what it still knows.
 *   usage: t_gdbhost OBJ [keep]
 */
#include <stdio.h>
#include <string.h>

#include "objrt.h"

__attribute__((noinline)) void debug_stop(int result)
{
    __asm__ volatile("" ::: "memory");
    printf("kernel_fn returned %d\n", result);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    objrt_ctx *ctx = objrt_new();
    const char *p = argv[1];
    objrt_unit *u = objrt_load(ctx, &p, 1);
    int (*fn)(int) = u ? (int (*)(int))objrt_unit_sym(u, "kernel_fn") : NULL;
    if (!fn) {
        fprintf(stderr, "t_gdbhost: %s\n", objrt_error(ctx));
        return 1;
    }
    int r = fn(20);
    if (!(argc > 2 && strcmp(argv[2], "keep") == 0))
        objrt_unload(u);
    debug_stop(r);
    objrt_free(ctx);
    return 0;
}

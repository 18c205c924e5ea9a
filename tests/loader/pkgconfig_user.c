/* Built against an installed objrt through pkg-config: loads an object and calls it. */
#include <objrt.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load(ctx, (const char *const *)argv + 1, (size_t)argc - 1);
    if (!u) {
        fprintf(stderr, "%s\n", objrt_error(ctx));
        return 1;
    }
    int (*f)(int) = (int (*)(int))objrt_unit_sym(u, "long_name_one");
    int r = f ? f(14) : -1;
    objrt_unload(u);
    objrt_free(ctx);
    return r == 42 ? 0 : 1;
}

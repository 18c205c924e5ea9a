/* A host that opens libobjrt.so with dlopen, as Python's ctypes does, and loads a unit:
 * prints "loaded" or objrt's error. Usage: dlopen_host LIBOBJRT.so UNIT.o */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 2;
    }
    void *(*new_ctx)(void) = (void *(*)(void))dlsym(h, "objrt_new");
    void *(*load)(void *, const char *const *, size_t) =
        (void *(*)(void *, const char *const *, size_t))dlsym(h, "objrt_load");
    const char *(*error)(void *) = (const char *(*)(void *))dlsym(h, "objrt_error");
    if (!new_ctx || !load || !error)
        return 2;
    void *ctx = new_ctx();
    const char *paths[1] = { argv[2] };
    if (load(ctx, paths, 1)) {
        printf("loaded\n");
        return 0;
    }
    printf("error: %s\n", error(ctx));
    return 1;
}

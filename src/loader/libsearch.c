/*
 * libsearch.c - find a shared library as `cc -l` would, for objrt_add_library().
 *
 * "m" -> the newest libm.so.N in the usual directories: libm.so itself may be a linker
 * script, which dlopen cannot read, and may be missing when no -dev package is installed.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "loader/internal.h"

static void *open_short_name(const char *name, const char *multiarch)
{
    char dirs[2][64], want[256], best[512] = "";
    snprintf(dirs[0], sizeof dirs[0], "/lib/%s", multiarch);
    snprintf(dirs[1], sizeof dirs[1], "/usr/lib/%s", multiarch);
    const char *order[] = { dirs[0], dirs[1], "/lib", "/usr/lib", "/usr/local/lib" };
    snprintf(want, sizeof want, "lib%s.so", name);
    void *h = dlopen(want, RTLD_NOW | RTLD_GLOBAL);
    if (h)
        return h;
    size_t wl = strlen(want);
    for (size_t d = 0; d < sizeof order / sizeof order[0] && !best[0]; d++) {
        DIR *dir = opendir(order[d]);
        struct dirent *e;
        while (dir && (e = readdir(dir)))
            if (strncmp(e->d_name, want, wl) == 0 && e->d_name[wl] == '.' &&
                (!best[0] || strverscmp(e->d_name, strrchr(best, '/') + 1) > 0))
                snprintf(best, sizeof best, "%s/%s", order[d], e->d_name);
        if (dir)
            closedir(dir);
    }
    return best[0] ? dlopen(best, RTLD_NOW | RTLD_GLOBAL) : NULL;
}

void *objrt_lib_open(const char *name)
{
    if (strchr(name, '/') || strstr(name, ".so"))
        return dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    return open_short_name(name, objrt_host_arch()->multiarch);
}

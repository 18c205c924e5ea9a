/*
 * fuzz_link.c - libFuzzer harness: several inputs linked as one unit.
 *
 * The input is cut into up to four parts (fuzz_common.h): objects and archives linked
 * together, so archive members are pulled by what the objects leave undefined (resolve.c),
 * duplicate and weak definitions meet, and COMMON symbols merge. Flag bit 0 passes the
 * parts as files (memfds, by /proc/self/fd path) through objrt_load(), the path the other
 * harnesses never take; otherwise as buffers through objrt_load_memory().
 * Build: tests/fuzz/build.sh OUTDIR.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"

static objrt_unit *load_as_files(const fz_part *p, size_t n)
{
    int fd[FZ_MAX_PARTS] = { -1, -1, -1, -1 };
    char path[FZ_MAX_PARTS][64];
    const char *paths[FZ_MAX_PARTS];
    objrt_unit *u = NULL;
    size_t i;
    for (i = 0; i < n; i++) {
        fd[i] = memfd_create("fuzz", MFD_CLOEXEC);
        if (fd[i] < 0 || (p[i].size && write(fd[i], p[i].data, p[i].size) != (ssize_t)p[i].size))
            break;
        snprintf(path[i], sizeof path[i], "/proc/self/fd/%d", fd[i]);
        paths[i] = path[i];
    }
    if (i == n && !(u = objrt_load(fz_ctx, paths, n)))
        fz_failed();
    for (i = 0; i < n; i++)
        if (fd[i] >= 0)
            close(fd[i]);
    return u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_part parts[FZ_MAX_PARTS];
    unsigned flags;
    size_t n = fz_split(data, size, parts, &flags);
    objrt_unit *u;
    if (!n)
        return 0;
    if (flags & 1) {
        u = load_as_files(parts, n);
    } else {
        objrt_input in[FZ_MAX_PARTS];
        static const char *names[2][FZ_MAX_PARTS] = {
            { "a.o", "b.o", "c.o", "d.o" }, { "liba.a", "libb.a", "libc.a", "libd.a" } };
        for (size_t i = 0; i < n; i++)
            in[i] = (objrt_input){ names[fz_is_ar(parts[i].data, parts[i].size)][i],
                                   parts[i].data, parts[i].size };
        u = objrt_load_memory(fz_ctx, in, n);
        if (!u)
            fz_failed();
    }
    if (u)
        objrt_unload(u);
    return 0;
}

/*
 * libgcc.c - the compiler's helper library, found the way `gcc` links it.
 *
 * gcc links every program with -lgcc (libgcc.a): arithmetic helpers, and on AArch64 the
 * outline atomics (__aarch64_ldadd4_acq_rel, ...) that default-flag code calls and that
 * libgcc_s.so does not export. objrt searches it after everything else left a strong
 * reference undefined (resolve.c), pulling its members into the unit like any archive's.
 * The path is the build compiler's `-print-libgcc-file-name`, recorded at build time
 * (OBJRT_LIBGCC_DEFAULT, mk/libgcc.mk); the environment variable OBJRT_LIBGCC overrides it
 * (a path, which must then be a readable regular file: the user chose it, so anything
 * else is an error when the search comes), or turns the search off ("" or "none"). Without it, AArch64 units still get
 * the outline atomics from objrt itself (arch/atomics_aarch64.c, the backend's host_helper).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/regular.h"
#include "symbols/symbols.h"
#include "symbols/lookup.h"

#ifndef OBJRT_LIBGCC_DEFAULT
#define OBJRT_LIBGCC_DEFAULT ""
#endif

const char *objrt_libgcc_path(bool *named)
{
    /* secure_getenv: in a set-user-ID host the variable must not choose code to load */
    const char *p = secure_getenv("OBJRT_LIBGCC");
    *named = p && *p && strcmp(p, "none") != 0;
    if (*named)
        return p;
    if (p || !*OBJRT_LIBGCC_DEFAULT || access(OBJRT_LIBGCC_DEFAULT, R_OK) != 0)
        return NULL;        /* turned off, or the build compiler's is not on this machine */
    return OBJRT_LIBGCC_DEFAULT;
}

/* Does the archive's symbol index ("/" member: big-endian count, offsets, then names)
 * name `name`? Checked before libgcc.a is parsed, so a symbol that is simply undefined
 * costs no parse of the archive's members. */
static bool index_names(const uint8_t *d, size_t n, const char *name)
{
    if (n < 8 + 60 + 4 || memcmp(d, "!<arch>\n", 8) != 0 || memcmp(d + 8, "/ ", 2) != 0)
        return true;                        /* no index: let the archive be searched */
    size_t size = strtoul((const char *)d + 8 + 48, NULL, 10);
    if (size > n - 68)
        return true;
    const uint8_t *p = d + 68, *end = p + size;
    uint32_t count = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    if (count > (size - 4) / 4)
        return true;
    const char *s = (const char *)p + 4 + 4 * (size_t)count;
    while ((const uint8_t *)s < end) {
        size_t len = strnlen(s, (size_t)(end - (const uint8_t *)s));
        if (len == strlen(name) && memcmp(s, name, len) == 0)
            return true;
        s += len + 1;
    }
    return false;
}

/* The path goes through the inputs' own opener (base/regular.h): a FIFO named by the
 * variable blocked the load forever, a directory or /dev/zero was passed over in silence. */
int objrt_libgcc_defines_any(objrt_ctx *ctx, const char *path, bool named,
                             const char *const *names, size_t n)
{
    uint64_t size;
    const char *why;
    int fd = objrt_open_regular(path, &size, &why);
    if (fd < 0 && named)
        return objrt_fail(ctx, "OBJRT_LIBGCC %s: %s (it names the libgcc.a searched for what "
                          "is left undefined; \"none\" turns the search off)", path, why);
    if (fd < 0 || size < 8 || size > SIZE_MAX) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return 0;
    bool found = false;
    for (size_t i = 0; i < n && !found; i++)
        found = index_names(m, (size_t)size, names[i]);
    munmap(m, (size_t)size);
    return found;
}

/*
 * libgcc.c - the compiler's helper library, found the way `gcc` links it.
 *
 * gcc links every program with -lgcc (libgcc.a): arithmetic helpers, and on AArch64 the
 * outline atomics (__aarch64_ldadd4_acq_rel, ...) that default-flag code calls and that
 * libgcc_s.so does not export. objrt searches it after everything else left a strong
 * reference undefined (resolve.c), pulling its members into the unit like any archive's.
 * The path is the build compiler's `-print-libgcc-file-name`, recorded at build time
 * (OBJRT_LIBGCC_DEFAULT, mk/libgcc.mk); the environment variable OBJRT_LIBGCC overrides it
 * (a path), or turns the search off ("" or "none"). Without it, AArch64 units still get
 * the outline atomics from objrt itself (atomics_aarch64.c).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/internal.h"

#ifndef OBJRT_LIBGCC_DEFAULT
#define OBJRT_LIBGCC_DEFAULT ""
#endif

const char *objrt_libgcc_path(void)
{
    const char *p = getenv("OBJRT_LIBGCC");
    if (!p)
        p = OBJRT_LIBGCC_DEFAULT;
    if (!*p || strcmp(p, "none") == 0 || access(p, R_OK) != 0)
        return NULL;
    return p;
}

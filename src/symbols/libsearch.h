/* libsearch.h - the GNU ld script reader of libsearch.c, exposed for its tests. */
#ifndef OBJRT_LOADER_LIBSEARCH_H
#define OBJRT_LOADER_LIBSEARCH_H

#include <stdbool.h>
#include <stddef.h>

/* The nth (from 0) shared library a GNU ld script's GROUP or INPUT names outside AS_NEEDED
 * ("/lib/x86_64-linux-gnu/libm.so.6" from glibc's libm.so), copied to out; false if there
 * is none, or the script is longer than 4096 bytes. Archives and -lNAME are not counted. */
bool objrt_ld_script_lib(const char *script, size_t nth, char *out, size_t outsz);

#endif

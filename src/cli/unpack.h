/* unpack.h - `objrt call`'s archives linked whole (unpack.c); tars and objects pass through
 * to the loader. */
#ifndef OBJRT_CLI_UNPACK_H
#define OBJRT_CLI_UNPACK_H

#include <stddef.h>
#include "objrt.h"

typedef struct call_inputs {
    objrt_input *in;             /* for objrt_load_memory */
    size_t n, cap;
    char **names;                /* "FILE" or "FILE(member)", owned */
    char **bufs;                 /* each file's bytes, owned; in[] points into them */
    size_t nbufs;
} call_inputs;

/* Whether any of the files is an archive (.a) that must be unpacked. */
int call_inputs_needed(const char *const *files, int n);
/* Read every file (into a zeroed `ci`): an ar archive gives each ELF member, anything
 * else (a tar, an object) itself. 0, or -1 after a message naming the file. Free with call_inputs_free. */
int call_inputs_read(const char *const *files, int n, call_inputs *ci);
void call_inputs_free(call_inputs *ci);

#endif

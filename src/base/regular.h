/*
 * regular.h - the one way objrt opens a file it reads: the loader's inputs (input.c) and
 * every reader of the CLI (.npy tensors, graph JSON, params).
 *
 * Only a regular file is read. A FIFO, a terminal or a device would block the reader
 * forever, or feed it bytes without end; a directory is not data. The file is opened with
 * O_NONBLOCK, so that opening a FIFO does not wait for a writer, and fstat decides before
 * anything is read (O_NONBLOCK means nothing for a regular file).
 */
#ifndef OBJRT_REGULAR_H
#define OBJRT_REGULAR_H

#include <stdint.h>
#include <stdio.h>

/* A descriptor of path (read-only, close-on-exec) with its size in *size; or -1 with *why
 * ("not a regular file", or strerror's text). */
int objrt_open_regular(const char *path, uint64_t *size, const char **why);
/* The same as a stdio stream ("rb"); NULL with *why. */
FILE *objrt_fopen_regular(const char *path, const char **why);

#endif

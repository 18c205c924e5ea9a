/*
 * fuzz_common.h - shared by the libFuzzer harnesses in tests/fuzz/ (header only).
 *
 * One context per process, created by the LLVMFuzzerInitialize below, constructors off
 * (fuzzed code never runs); every failed load must explain itself (fz_load_one). fz_split() cuts one fuzz input into several: byte 0 holds the part
 * count (1..4) and flags, then each part but the last is a 2-byte little-endian length and
 * its bytes; the last part takes the rest. libFuzzer's mutations of the lengths move bytes
 * between parts, so seeds made with fz_join() (build.sh) stay meaningful.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "objrt.h"

static objrt_ctx *fz_ctx;

static void fz_init(void)
{
    fz_ctx = objrt_new();
    objrt_options opt = { .no_constructors = 1 };     /* system page size */
    objrt_set_options(fz_ctx, &opt);
}

/* The contract: a failed load always explains itself. */
static void fz_failed(void)
{
    const char *err = objrt_error(fz_ctx);
    if (!err || !*err)
        __builtin_trap();
}

static int fz_is_ar(const uint8_t *d, size_t n) { return n >= 8 && memcmp(d, "!<arch>\n", 8) == 0; }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_init();
    return 0;
}

/* The input as one in-memory file, named like an archive when it starts with the ar magic;
 * NULL (after checking the failure explained itself) when it does not load. */
static objrt_unit *fz_load_one(const uint8_t *data, size_t size)
{
    objrt_input in = { fz_is_ar(data, size) ? "fuzz.a" : "fuzz.o", data, size };
    objrt_unit *u = objrt_load_memory(fz_ctx, &in, 1);
    if (!u)
        fz_failed();
    return u;
}

#define FZ_MAX_PARTS 4
typedef struct fz_part { const uint8_t *data; size_t size; } fz_part;

/* Returns the part count (0: input too short); *flags gets byte 0's high bits. */
static size_t fz_split(const uint8_t *d, size_t n, fz_part *parts, unsigned *flags)
{
    if (n < 1)
        return 0;
    size_t np = (size_t)(d[0] & 3) + 1, k = 0, at = 1;
    *flags = d[0] >> 2;
    for (; k + 1 < np && at + 2 <= n; k++) {
        size_t len = (size_t)d[at] | (size_t)d[at + 1] << 8;
        at += 2;
        if (len > n - at)
            len = n - at;
        parts[k] = (fz_part){ d + at, len };
        at += len;
    }
    parts[k++] = (fz_part){ d + at, n - at };
    return k;
}

#endif

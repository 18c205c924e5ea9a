/*
 * fuzz_load.c - libFuzzer harness: objrt_load_memory() on arbitrary bytes.
 *
 * The input is handed to objrt as one in-memory file, named like an archive when it
 * starts with the ar magic. A successful load is unloaded again at once; constructors
 * are disabled so fuzzed code never runs. Any crash, sanitizer report or leak is a bug.
 * Build: tests/fuzz/build.sh OUTDIR.
 */
#include <stdint.h>
#include <string.h>

#include "objrt.h"

static objrt_ctx *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    ctx = objrt_new();
    objrt_options opt = { .no_constructors = 1 };      /* system page size */
    objrt_set_options(ctx, &opt);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int is_ar = size >= 8 && memcmp(data, "!<arch>\n", 8) == 0;
    objrt_input in = { is_ar ? "fuzz.a" : "fuzz.o", data, size };
    objrt_unit *u = objrt_load_memory(ctx, &in, 1);
    if (u) {
        objrt_unload(u);
    } else {
        const char *err = objrt_error(ctx);
        /* The contract: a failed load always explains itself. */
        if (!err || !*err) __builtin_trap();
    }
    return 0;
}

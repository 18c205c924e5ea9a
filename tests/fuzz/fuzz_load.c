/*
 * fuzz_load.c - libFuzzer harness: objrt_load_memory() on arbitrary bytes.
 *
 * The input is handed to objrt as one in-memory file, named like an archive when it
 * starts with the ar magic. A successful load is unloaded again at once; constructors
 * are disabled so fuzzed code never runs. Any crash, sanitizer report or leak is a bug.
 * Build: tests/fuzz/build.sh OUTDIR.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    objrt_unit *u = fz_load_one(data, size);
    if (u)
        objrt_unload(u);
    return 0;
}

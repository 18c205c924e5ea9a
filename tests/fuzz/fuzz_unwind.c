/*
 * fuzz_unwind.c - libFuzzer harness: unwinding after a load.
 *
 * A loaded unit's .eh_frame is registered with libgcc's unwinder; the unwinder parses it
 * lazily, at the first search after registration. So after each successful load this
 * harness walks the host's own stack (backtrace(), which makes libgcc classify every
 * registered section) and asks the unwinder for the FDE of every symbol of the unit
 * (_Unwind_Find_FDE, what a throw through the unit's code would ask), before unloading.
 * Nothing of the unit runs. Build: tests/fuzz/build.sh OUTDIR.
 */
#include <execinfo.h>

#include "fuzz_common.h"

struct dwarf_eh_bases { void *tbase, *dbase, *func; };
const void *_Unwind_Find_FDE(void *pc, struct dwarf_eh_bases *bases);   /* libgcc_s */

static int find_fde(void *data, const char *name, void *addr)
{
    struct dwarf_eh_bases b;
    (void)name;
    if (!addr)                          /* no address of its own: a TLS or absolute-0 symbol */
        return 0;
    *(size_t *)data += _Unwind_Find_FDE((char *)addr + 1, &b) != NULL;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    objrt_unit *u = fz_load_one(data, size);
    if (!u)
        return 0;
    void *frames[32];
    size_t found = 0;
    if (backtrace(frames, 32) < 1)
        __builtin_trap();               /* the host's own frames must still unwind */
    objrt_unit_foreach_sym(u, find_fde, &found);
    objrt_unload(u);
    return 0;
}

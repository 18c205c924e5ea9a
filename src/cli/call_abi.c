/* call_abi.c - which calling convention `objrt call` uses for FUNC. TVM's AOT entry has
 * had three: 0.8 emits a packed tvmgen_<n>_run (DLTensors) beside tvmgen_<n>_run_model
 * (positional raw data pointers); 0.9 and later emit tvmgen_<n>_run(struct inputs *,
 * struct outputs *) beside tvmgen_<n>___tvm_main__. The name alone cannot tell 0.8's
 * _run from 0.9's, so the unit's other definitions decide, and nothing is guessed. */
#include <stdio.h>
#include <string.h>

#include "call.h"
#include "cli.h"

/* tvmgen_<n>SUFFIX with a non-empty <n>: the length of "tvmgen_<n>", else 0. */
static size_t aot_stem(const char *f, const char *suffix)
{
    size_t n = strlen(f), k = strlen(suffix);
    if (strncmp(f, "tvmgen_", 7) != 0 || n <= 7 + k || strcmp(f + n - k, suffix) != 0)
        return 0;
    return n - k;
}

static int defines(objrt_unit *u, const char *stem, size_t len, const char *suffix)
{
    char name[512];
    if (snprintf(name, sizeof name, "%.*s%s", (int)len, stem, suffix) >= (int)sizeof name)
        return 0;
    return objrt_unit_sym(u, name) != NULL;
}

const char *call_abi_name(int abi)
{
    switch (abi) {
    case ABI_AOT: return "aot (TVM >= 0.9 C interface: struct inputs *, struct outputs *)";
    case ABI_UNPACKED: return "unpacked (raw data pointers, TVM 0.8 run_model)";
    default: return "packed (TVMValue *, int *, int, ...)";
    }
}

int call_abi_by_name(objrt_unit *u, const char *f)
{
    size_t stem;
    if (!f)
        return ABI_PACKED;                         /* __tvm_main__ names a packed function */
    if (aot_stem(f, "_run_model"))
        return ABI_UNPACKED;
    if (!(stem = aot_stem(f, "_run")))
        return ABI_PACKED;
    int v08 = defines(u, f, stem, "_run_model"), v09 = defines(u, f, stem, "___tvm_main__");
    return v08 == v09 ? -1 : v08 ? ABI_PACKED : ABI_AOT;
}

int call_pick_abi(objrt_unit *u, const call_args *a, const char *f)
{
    if (a->abi != ABI_BY_NAME)
        return a->abi;
    int abi = call_abi_by_name(u, f);
    if (abi >= 0)
        return abi;
    size_t stem = aot_stem(f, "_run");
    int v08 = defines(u, f, stem, "_run_model");
    fprintf(stderr, "objrt: -f %s: cannot tell which AOT interface it has: the unit defines %s "
            "%.*s_run_model (TVM 0.8) %s %.*s___tvm_main__ (TVM >= 0.9). Say which: --packed "
            "(0.8: DLTensors), --aot (>= 0.9: struct inputs *, struct outputs *), or -f "
            "%.*s_run_model --unpacked (0.8: raw data pointers)\n", f, v08 ? "both" : "neither",
            (int)stem, f, v08 ? "and" : "nor", (int)stem, f, (int)stem, f);
    return -1;
}

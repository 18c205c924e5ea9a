/* ffi_provider.c - TVM-FFI as a provider of the loader (base/provider.h): the TVMFFI* names
 * loaded code binds to, and what a load does to a unit that speaks TVM-FFI (ffi_env.c).
 * It registers after the kernel runtime, so a unit's old-ABI module exists before its
 * TVM-FFI slots are filled, and a host's registration made in between wins. */
#include <string.h>
#include "base/provider.h"
#include "ffi_internal.h"

static void *ffi_lookup(const char *name)
{
    static const struct { const char *name; void *addr; } anylist[] = {   /* ffi_anylist.c */
        {"TVMBackendAnyListSetPackedArg", (void *)TVMBackendAnyListSetPackedArg},
        {"TVMBackendAnyListResetItem", (void *)TVMBackendAnyListResetItem},
        {"TVMBackendAnyListMoveFromPackedReturn", (void *)TVMBackendAnyListMoveFromPackedReturn},
    };
    if (strncmp(name, "TVMFFI", 6) == 0)
        return rt_ffi_lookup(name);
    for (size_t i = 0; strncmp(name, "TVMBackendAnyList", 17) == 0 && i < 3; i++)
        if (strcmp(name, anylist[i].name) == 0)
            return anylist[i].addr;
    return NULL;
}

/* TVM 0.21 registers its functions the old way (TVMBackendRegisterSystemLibSymbol), into
 * the runtime's module of the unit: read them once the constructors have run. */
static int ffi_after_init(objrt_unit *unit, char *err, size_t errlen)
{
    return rt_ffi_after_init(unit, rt_module_syms(unit), err, errlen);
}

static const objrt_provider tvm_ffi = {
    .name = "TVM-FFI",
    .lookup = ffi_lookup,
    .before_init = rt_ffi_before_init,
    .after_init = ffi_after_init,
    .unload = rt_ffi_unload,
};

__attribute__((constructor)) static void ffi_register(void)
{
    rt_register_provider();         /* first: the order of constructors is not ours to pick */
    objrt_provider_register(&tvm_ffi);
}

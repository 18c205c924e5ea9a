/* loader_hooks.c - the runtime as a provider of the loader (base/provider.h): which names
 * loaded code binds to the runtime, the DSO-mode slots it fills, and what a load does to a
 * unit that speaks the TVM ABI. It registers itself when the library is loaded. */
#include <stdio.h>
#include <string.h>
#include "base/provider.h"
#include "finish/unit.h"
#include "modules.h"

#define ENTRY(f) {#f, (void *)f}
static const struct { const char *name; void *addr; } exported[] = {
    ENTRY(TVMBackendAllocWorkspace), ENTRY(TVMBackendFreeWorkspace),
    ENTRY(TVMBackendParallelLaunch), ENTRY(TVMBackendParallelBarrier),
    ENTRY(TVMAPISetLastError), ENTRY(TVMGetLastError),
    ENTRY(TVMBackendGetFuncFromEnv), ENTRY(TVMFuncCall),
    ENTRY(TVMBackendRegisterSystemLibSymbol), ENTRY(TVMBackendRunOnce),
    ENTRY(objrt_ws_alloc), ENTRY(objrt_ws_free), ENTRY(objrt_ws_trim),
    ENTRY(objrt_ws_reserved_bytes), ENTRY(objrt_parallel_launch),
    ENTRY(objrt_parallel_barrier), ENTRY(objrt_num_threads), ENTRY(objrt_set_num_threads),
    ENTRY(objrt_set_last_error), ENTRY(objrt_last_error), ENTRY(objrt_register_packed),
    ENTRY(TVMArrayAlloc), ENTRY(TVMArrayFree), ENTRY(TVMArrayCopyFromBytes),
    ENTRY(TVMArrayCopyToBytes), ENTRY(TVMFuncGetGlobal), ENTRY(TVMModGetFunction),
    ENTRY(TVMFuncFree), ENTRY(TVMModFree),
};

/* DSO mode: the object defines these zero-initialised slots and calls through them. The one
 * list of them (modules.h): TVM-FFI units use the TVMBackend ones too (tvm_ffi/ffi_provider.c). */
const objrt_provided rt_dso_slots[] = {
    {"__TVMFuncCall", (void *)TVMFuncCall},                /* the old ABI's own: */
    {"__TVMAPISetLastError", (void *)TVMAPISetLastError},  /* RT_OLD_ONLY_SLOTS of them */
    {"__TVMBackendGetFuncFromEnv", (void *)TVMBackendGetFuncFromEnv},
    {"__TVMBackendAllocWorkspace", (void *)TVMBackendAllocWorkspace},
    {"__TVMBackendFreeWorkspace", (void *)TVMBackendFreeWorkspace},
    {"__TVMBackendParallelLaunch", (void *)TVMBackendParallelLaunch},
    {"__TVMBackendParallelBarrier", (void *)TVMBackendParallelBarrier},
};

static void *rt_lookup(const char *name)
{
    if (strncmp(name, "TVM", 3) != 0 && strncmp(name, "objrt_", 6) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof exported / sizeof exported[0]; i++)
        if (strcmp(name, exported[i].name) == 0)
            return exported[i].addr;
    return NULL;
}

/* The loader filled the DSO slots (each a writable pointer of the unit itself: an object
 * does not get to choose where the loader writes); the module context slot gets the
 * unit's own module. */
static int rt_before_init(objrt_unit *unit, char *err, size_t errlen)
{
    rt_module *m;
    void *ctx;
    if (objrt_unit_slot(unit, "__tvm_module_ctx", sizeof(void *), true, &ctx, NULL, err, errlen) < 0)
        return -1;
    if (!(m = rt_module_open(unit))) {
        snprintf(err, errlen, "kernel runtime: out of memory creating the module context");
        return -1;
    }
    if (ctx)
        *(void **)ctx = m;
    return 0;
}

static int rt_after_init(objrt_unit *unit, char *err, size_t errlen)
{
    /* a CRT system library registers through its registry: still attributed to the unit */
    if (rt_crt_register(unit, err, errlen) != 0) {
        rt_module_close_init(unit);
        return -1;
    }
    rt_module *m = rt_module_close_init(unit);
    return m ? rt_module_publish(m, err, errlen) : 0;
}

static void rt_unload(objrt_unit *unit)
{
    rt_module_forget(unit);
}

static const objrt_provider runtime = {
    .name = "kernel runtime",
    .lookup = rt_lookup,
    .slots = rt_dso_slots,
    .nslots = RT_NDSO_SLOTS,
    .before_init = rt_before_init,
    .after_init = rt_after_init,
    .unload = rt_unload,
};

void rt_register_provider(void)
{
    objrt_provider_register(&runtime);
}

/* Before main (or at dlopen of libobjrt.so): the first load already sees the runtime. */
__attribute__((constructor)) static void rt_register(void)
{
    rt_register_provider();
}

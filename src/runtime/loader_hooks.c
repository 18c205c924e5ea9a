/* loader_hooks.c - the runtime side of src/rt_hooks.h: which names loaded code binds to
 * the runtime, and what a load does to a unit that speaks the TVM ABI. */
#include <stdio.h>
#include <string.h>
#include "rt_hooks.h"
#include "modules.h"
#include "ffi_internal.h"

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

/* DSO mode: the object defines these zero-initialised slots and calls through them. */
static const struct { const char *slot; void *addr; } dso_slots[] = {
    {"__TVMFuncCall", (void *)TVMFuncCall},
    {"__TVMAPISetLastError", (void *)TVMAPISetLastError},
    {"__TVMBackendGetFuncFromEnv", (void *)TVMBackendGetFuncFromEnv},
    {"__TVMBackendAllocWorkspace", (void *)TVMBackendAllocWorkspace},
    {"__TVMBackendFreeWorkspace", (void *)TVMBackendFreeWorkspace},
    {"__TVMBackendParallelLaunch", (void *)TVMBackendParallelLaunch},
    {"__TVMBackendParallelBarrier", (void *)TVMBackendParallelBarrier},
};

void *objrt_rt_lookup(const char *name)
{
    if (strncmp(name, "TVM", 3) != 0 && strncmp(name, "objrt_", 6) != 0)
        return NULL;
    if (strncmp(name, "TVMFFI", 6) == 0)
        return rt_ffi_lookup(name);
    for (size_t i = 0; i < sizeof exported / sizeof exported[0]; i++)
        if (strcmp(name, exported[i].name) == 0)
            return exported[i].addr;
    return NULL;
}

/* Each slot must be a writable pointer of the unit itself: an object does not get to choose
 * where the loader writes. */
int objrt_rt_before_init(objrt_unit *unit, char *err, size_t errlen)
{
    rt_module *m;
    void *slots[sizeof dso_slots / sizeof dso_slots[0]], *ctx;
    for (size_t i = 0; i < sizeof dso_slots / sizeof dso_slots[0]; i++)
        if (objrt_unit_slot(unit, dso_slots[i].slot, sizeof(void *), true, &slots[i], NULL,
                            err, errlen) < 0)
            return -1;
    if (objrt_unit_slot(unit, "__tvm_module_ctx", sizeof(void *), true, &ctx, NULL, err, errlen) < 0)
        return -1;
    if (!(m = rt_module_open(unit))) {
        snprintf(err, errlen, "kernel runtime: out of memory creating the module context");
        return -1;
    }
    for (size_t i = 0; i < sizeof dso_slots / sizeof dso_slots[0]; i++)
        if (slots[i])
            *(void **)slots[i] = dso_slots[i].addr;
    if (ctx)
        *(void **)ctx = m;
    /* a TVM-FFI unit (ffi_env.c): its slots after these, so a host's registration wins */
    if (rt_ffi_before_init(unit, err, errlen) < 0) {
        rt_module_forget(unit);
        return -1;
    }
    return 0;
}

int objrt_rt_after_init(objrt_unit *unit, char *err, size_t errlen)
{
    rt_module *m = rt_module_close_init(unit);
    if (m && rt_module_publish(m, err, errlen) != 0)
        return -1;
    return rt_ffi_after_init(unit, m ? m->syms : NULL, err, errlen);
}

void objrt_rt_unload(objrt_unit *unit)
{
    rt_module_forget(unit);
    rt_ffi_unload(unit);
}

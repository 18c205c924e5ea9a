/* ffi_provider.c - TVM-FFI as a provider of the loader (base/provider.h): the one table of
 * names loaded code binds to TVM-FFI, the DSO-mode slots it fills, and what a load does to
 * a unit that speaks TVM-FFI (its module: ffi_env.c). It registers after the kernel
 * runtime, so a unit's old-ABI module exists before its TVM-FFI slots are filled, and a
 * host's registration made in between wins. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/provider.h"
#include "ffi_internal.h"
#include "finish/unit.h"

#define OWN SIZE_MAX                        /* no field of the core: always objrt's own */

/* Every name loaded code binds to TVM-FFI, in one table: objrt's definition, the field of
 * the process's core that replaces it when that core is another library's (ffi_core_get:
 * objrt's own core's fields are these same functions), and whether a TVM-FFI unit in DSO
 * mode defines "__" + name as a slot to call through. Kept as "__" + name: the slot's name
 * and, two characters on, the function's. The slots are checked in the table's order. */
#define NAME(f, field, slot) {"__" #f, (void *)f, field, slot}
#define CORE(field) offsetof(ffi_core, field)
static const struct ffi_name {
    const char *slot_name;
    void *own;
    size_t core;
    int slot;
} names[] = {
    NAME(TVMFFIFunctionCall, CORE(function_call), 1),
    NAME(TVMFFIErrorSetRaisedFromCStr, CORE(set_raised_cstr), 1),
    NAME(TVMFFIErrorSetRaisedFromCStrParts, CORE(set_raised_parts), 1),
    NAME(TVMFFIEnvModLookupFromImports, OWN, 1),
    NAME(TVMFFIHandleInitOnce, CORE(init_once), 1),
    NAME(TVMFFIEnvModRegisterSystemLibSymbol, OWN, 0),
    NAME(TVMFFIEnvModRegisterContextSymbol, OWN, 0),
    NAME(TVMFFIObjectIncRef, CORE(inc_ref), 0),
    NAME(TVMFFIObjectDecRef, CORE(dec_ref), 0),
    NAME(TVMFFIErrorSetRaised, CORE(set_raised), 0),
    NAME(TVMFFIHandleDeinitOnce, CORE(deinit_once), 0),
    NAME(TVMFFIErrorMoveFromRaised, CORE(move_from_raised), 0),
    NAME(TVMFFIFunctionCreate, CORE(function_create), 0),
    NAME(TVMFFIFunctionGetGlobal, CORE(get_global), 0),
    NAME(TVMFFIFunctionSetGlobal, CORE(set_global), 0),
    NAME(TVMBackendAnyListSetPackedArg, OWN, 0),            /* ffi_anylist.c */
    NAME(TVMBackendAnyListResetItem, OWN, 0),
    NAME(TVMBackendAnyListMoveFromPackedReturn, OWN, 0),
};
#define NNAMES (sizeof names / sizeof names[0])

static void *ffi_lookup(const char *name)
{
    if (strncmp(name, "TVM", 3) != 0)
        return NULL;
    for (size_t i = 0; i < NNAMES; i++)
        if (strcmp(name, names[i].slot_name + 2) == 0) {
            const ffi_core *c = names[i].core == OWN ? NULL : ffi_core_get();
            return c && c->external ? *(void **)((char *)c + names[i].core) : names[i].own;
        }
    if (strncmp(name, "TVMFFI", 6) == 0)
        ffi_core_get();             /* a unit naming the core's ABI is a first use of it */
    return NULL;
}

/* ---- The slots ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static rt_reg *ctx_syms;                    /* TVMFFIEnvModRegisterContextSymbol() */

int TVMFFIEnvModRegisterContextSymbol(const char *name, void *symbol)
{
    int rc;
    if (!name) {
        ffi_raise("ValueError", "TVMFFIEnvModRegisterContextSymbol: NULL name");
        return -1;
    }
    pthread_mutex_lock(&lock);
    rc = rt_reg_add(&ctx_syms, name, symbol) ? 0 : -1;
    pthread_mutex_unlock(&lock);
    if (rc)
        ffi_raise("MemoryError", "TVMFFIEnvModRegisterContextSymbol: out of memory");
    return rc;
}

/* objrt's value of DSO-mode slot `name` ("__" + function), or NULL when it is not one. */
static void *default_slot(const char *name)
{
    for (size_t i = RT_OLD_ONLY_SLOTS; i < RT_NDSO_SLOTS; i++)   /* the runtime's list */
        if (strcmp(name, rt_dso_slots[i].name) == 0)
            return rt_dso_slots[i].addr;
    return strncmp(name, "__TVMFFI", 8) == 0 ? ffi_lookup(name + 2) : NULL;
}

/* The value for slot `name`: the host's registration, else objrt's. */
static void *slot_value_locked(const char *name)
{
    rt_reg *r = rt_reg_find(ctx_syms, NULL, name);
    return r ? r->ptr : default_slot(name);
}

/* Check (write == 0) or fill (write == 1) every slot the unit defines: the table's, the
 * runtime's TVMBackend ones (rt_dso_slots, modules.h: TVM-FFI units define them too), and
 * the host's registrations; -1 with err set when one is not an aligned, writable pointer of
 * the unit itself. */
static int slots(objrt_unit *unit, int write, char *err, size_t errlen)
{
    size_t n = RT_NDSO_SLOTS - RT_OLD_ONLY_SLOTS, i = 0;
    const char **list;
    void *at, *val;
    int rc = 0;
    for (size_t k = 0; k < NNAMES; k++)
        n += names[k].slot;
    pthread_mutex_lock(&lock);
    for (rt_reg *r = ctx_syms; r; r = r->next)
        n++;
    if ((list = calloc(n, sizeof *list))) {
        for (size_t k = 0; k < NNAMES; k++)
            if (names[k].slot)
                list[i++] = names[k].slot_name;
        for (size_t k = RT_OLD_ONLY_SLOTS; k < RT_NDSO_SLOTS; k++)
            list[i++] = rt_dso_slots[k].name;
        for (rt_reg *r = ctx_syms; r; r = r->next)
            list[i++] = r->name;              /* registrations are never freed */
    }
    pthread_mutex_unlock(&lock);
    if (!list) {
        snprintf(err, errlen, "kernel runtime: out of memory filling TVM-FFI slots");
        return -1;
    }
    for (i = 0; i < n && rc == 0; i++) {
        int found = objrt_unit_slot(unit, list[i], sizeof(void *), true, &at, NULL, err, errlen);
        if (found < 0)
            rc = -1;
        else if (found && write) {
            pthread_mutex_lock(&lock);
            val = slot_value_locked(list[i]);
            pthread_mutex_unlock(&lock);
            if (val)
                *(void **)at = val;
        }
    }
    free(list);
    return rc;
}

/* ---- The hooks ---- */

/* DSO mode (a library context defined): the slots filled and the unit's module written
 * into the context before its constructors run. */
static int dso_mode(objrt_unit *unit, char *err, size_t errlen)
{
    void *c22 = NULL, *c21 = NULL;
    ffi_module *m;
    if (objrt_unit_slot(unit, FFI_CTX22, sizeof(void *), true, &c22, NULL, err, errlen) < 0 ||
        objrt_unit_slot(unit, FFI_CTX21, sizeof(void *), true, &c21, NULL, err, errlen) < 0)
        return -1;
    if (!c22 && !c21)
        return 0;
    ffi_core_get();
    if (slots(unit, 0, err, errlen) < 0)
        return -1;
    if (!(m = ffi_module_open(unit, !c22))) {
        snprintf(err, errlen, "kernel runtime: out of memory creating the TVM-FFI module");
        return -1;
    }
    slots(unit, 1, err, errlen);
    *(void **)(c22 ? c22 : c21) = m;
    return 0;
}

/* Registrations the unit's constructors make go to its module (ffi_env.c): it is the one
 * being loaded on this thread from now until after_init. */
static int ffi_before_init(objrt_unit *unit, char *err, size_t errlen)
{
    if (ffi_loading_push(unit, err, errlen) < 0)
        return -1;
    if (dso_mode(unit, err, errlen) < 0) {
        ffi_loading_pop(unit);
        return -1;
    }
    return 0;
}

/* TVM 0.21 registers its functions the old way (TVMBackendRegisterSystemLibSymbol), into
 * the runtime's module of the unit: read them once the constructors have run. */
static int ffi_after_init(objrt_unit *unit, char *err, size_t errlen)
{
    ffi_loading_pop(unit);
    return ffi_module_finish(unit, rt_module_syms(unit), err, errlen);
}

static void ffi_unload(objrt_unit *unit)
{
    ffi_loading_pop(unit);
    ffi_module_close(unit);
}

static const objrt_provider tvm_ffi = {
    .name = "TVM-FFI",
    .lookup = ffi_lookup,
    .before_init = ffi_before_init,
    .after_init = ffi_after_init,
    .unload = ffi_unload,
};

/* Before main: the provider after the runtime's, and the lookup of TVMBackendGetFuncFromEnv
 * in a TVM-FFI unit handed to modules.c (which names nothing of TVM-FFI). Here, in the object
 * that travels with api.c (docs/layers.md), so that a static link never leaves them out. */
__attribute__((constructor)) static void ffi_register(void)
{
    rt_register_provider();         /* first: the order of constructors is not ours to pick */
    objrt_provider_register(&tvm_ffi);
    rt_modules_env_lookup(ffi_bridge_get_func_from_env);
}

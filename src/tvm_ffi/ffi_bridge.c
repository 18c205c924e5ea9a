/* ffi_bridge.c - where the two TVM ABIs meet: an old-ABI packed function seen as a TVM-FFI
 * Function (objrt_ffi_func on an old-ABI unit), and a TVM-FFI module handed to the old
 * ABI's TVMBackendGetFuncFromEnv (modules.c asks this file through the function
 * ffi_provider.c hands it at start-up). TVM 0.21's registrations made the old way are adopted by the unit's
 * module where the loader's hooks run (ffi_env.c, ffi_module_finish). */
#include <stdlib.h>
#include <string.h>
#include "ffi_internal.h"
#include "base/names.h"
#include "finish/unit.h"

#define FN_PREFIX "__tvm_ffi_"

/* Whether a loaded unit defines __tvm_ffi_<name> (C code exporting the ABI by hand). */
static int exports_ffi(objrt_unit *unit, const char *name)
{
    char *sym = objrt_name_join(FN_PREFIX, name, NULL);
    int found = sym && objrt_unit_sym(unit, sym) != NULL;
    free(sym);
    return found;
}


/* ---- an old-ABI packed function seen as a TVM-FFI Function ---- */

/* TVMFFIAny -> TVMValue and type code; -1 for a type the old ABI has no code for. */
static int to_old(const TVMFFIAny *a, TVMValue *v, int *code)
{
    switch (a->type_index) {
    case kTVMFFINone: v->v_handle = NULL; *code = kTVMNullptr; return 0;
    case kTVMFFIInt: case kTVMFFIBool: v->v_int64 = a->v_int64; *code = kTVMArgInt; return 0;
    case kTVMFFIFloat: v->v_float64 = a->v_float64; *code = kTVMArgFloat; return 0;
    case kTVMFFIOpaquePtr: v->v_handle = a->v_ptr; *code = kTVMOpaqueHandle; return 0;
    case kTVMFFIDataType: v->v_type = a->v_dtype; *code = kTVMDataType; return 0;
    case kTVMFFIDevice: v->v_device = a->v_device; *code = kDLDevice; return 0;
    case kTVMFFIDLTensorPtr: v->v_handle = a->v_ptr; *code = kTVMDLTensorHandle; return 0;
    case kTVMFFIRawStr: v->v_str = a->v_c_str; *code = kTVMStr; return 0;
    case kTVMFFITensor:                      /* the DLTensor follows the object header */
        v->v_handle = (char *)a->v_obj + sizeof(TVMFFIObject);
        *code = kTVMDLTensorHandle;
        return 0;
    default: return -1;
    }
}

#define OLD_MAX_ARGS 64

static int old_call(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret)
{
    TVMValue v[OLD_MAX_ARGS], rv = { 0 };
    int codes[OLD_MAX_ARGS], rcode = kTVMNullptr;
    if (n < 0 || n > OLD_MAX_ARGS) {
        ffi_raise("ValueError", "%s: at most %d arguments through the old ABI",
                  objrt_tvm_func_name(self), OLD_MAX_ARGS);
        return -1;
    }
    for (int32_t i = 0; i < n; i++)
        if (to_old(&args[i], &v[i], &codes[i]) != 0) {
            ffi_raise("TypeError", "%s: argument #%d has type index %d, which TVM's old packed "
                      "ABI cannot pass", objrt_tvm_func_name(self), (int)i, args[i].type_index);
            return -1;
        }
    objrt_set_last_error("%s", "");
    if (TVMFuncCall(self, v, codes, n, &rv, &rcode) != 0) {
        ffi_raise("RuntimeError", "%s", objrt_last_error()[0] ? objrt_last_error() :
                  "the kernel failed and set no error message");
        return -1;
    }
    ret->zero_padding = 0;
    switch (rcode) {
    case kTVMArgInt: ret->type_index = kTVMFFIInt; ret->v_int64 = rv.v_int64; break;
    case kTVMArgFloat: ret->type_index = kTVMFFIFloat; ret->v_float64 = rv.v_float64; break;
    case kTVMNullptr: ret->type_index = kTVMFFINone; ret->v_int64 = 0; break;
    default: ret->type_index = kTVMFFIOpaquePtr; ret->v_ptr = rv.v_handle; break;
    }
    return 0;
}

static int ffi_func(objrt_unit *unit, const char *name, TVMFFIObjectHandle *out)
{
    ffi_module *m = ffi_module_of(unit, 0);
    TVMFFIObjectHandle f = NULL;
    const char *want = name ? name : "main";
    if (out)
        *out = NULL;
    if (!out) {
        ffi_raise("ValueError", "objrt_ffi_func: NULL out");
        return -1;
    }
    if (!m && unit && exports_ffi(unit, want)) {   /* pure C exports: no library context */
        m = ffi_module_of(unit, 1);
    }
    if (!m && unit) {                        /* an old-ABI unit: its packed function, adapted */
        TVMFunctionHandle h = name ? objrt_tvm_func(unit, name) : objrt_tvm_main(unit);
        if (!h) {
            ffi_raise("RuntimeError", "%s", objrt_last_error());
            return -1;
        }
        return ffi_core_get()->function_create(h, old_call, NULL, out);
    }
    if (!m) {
        ffi_raise("RuntimeError", "objrt_ffi_func: NULL unit");
        return -1;
    }
    if (!name && ffi_module_v21(m)) {                   /* 0.21: the function __tvm_main__ names */
        TVMFunctionHandle h = objrt_tvm_main(unit);
        if (!h) {
            ffi_raise("RuntimeError", "%s", objrt_last_error());
            return -1;
        }
        want = objrt_tvm_func_name(h);
    }
    char why[FFI_WHY_LEN];
    if (!(f = ffi_module_function(m, want, why)) && why[0]) {
        ffi_raise("RuntimeError", "%s", why);
        return -1;
    }
    if (!f) {
        ffi_raise("RuntimeError", "Cannot find function %s in %s", name ? name : FN_PREFIX "main",
                  objrt_unit_name(unit));
        return -1;
    }
    TVMFFIObjectIncRef(f);
    *out = f;
    return 0;
}

/* A call on the unit's context (rt_unit_enter): a unit no longer loaded is never read. */
int objrt_ffi_func(objrt_unit *unit, const char *name, TVMFFIObjectHandle *out)
{
    const char *why;
    objrt_ctx *ctx = unit ? objrt_unit_call(unit, &why) : NULL;
    if (unit && !ctx) {
        if (out)
            *out = NULL;
        ffi_raise("RuntimeError", "objrt_ffi_func: unit %p: %s", (void *)unit, why);
        return -1;
    }
    int rc = ffi_func(unit, name, out);
    if (ctx)
        objrt_ctx_leave(ctx);
    return rc;
}

int ffi_bridge_get_func_from_env(void *mod, const char *name, void **out, int *rc)
{
    if (!ffi_module_known(mod))
        return 0;
    *rc = TVMFFIEnvModLookupFromImports(mod, name, out);
    return 1;
}

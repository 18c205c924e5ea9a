/* call_ffi.c - `objrt call` on a TVM-FFI unit (TVM 0.21-0.26): the function is
 * __tvm_ffi_FUNC (a system-lib prefix optional; 0.21: FUNC), without -f the entry
 * (__tvm_ffi_main; 0.21: the function __tvm_main__ names); tensors are passed as DLTensor
 * pointers (type index 7); a raised error is printed as "<kind>: <message>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "cli.h"
#include "objrt/tvm_ffi.h"

typedef struct ffi_call {
    TVMFFIObjectHandle f;
    TVMFFIAny *args;
    int nargs;
} ffi_call;

int call_ffi_wanted(objrt_unit *u, const char *func)
{
    char sym[512];
    snprintf(sym, sizeof sym, "__tvm_ffi_%s", func ? func : "main");
    return objrt_ffi_unit(u) || objrt_unit_sym(u, sym) != NULL;
}

static int call_once(const void *p)
{
    const ffi_call *c = p;
    TVMFFIAny ret = { .type_index = kTVMFFINone };
    int rc = TVMFFIFunctionCall(c->f, c->args, c->nargs, &ret);
    if (rc == 0 && ret.type_index >= kTVMFFIStaticObjectBegin)
        TVMFFIObjectDecRef(ret.v_obj);        /* a result nobody reads */
    return rc;
}

int call_ffi_run(objrt_unit *u, const char *func, DLTensor **t, int n, long repeat)
{
    ffi_call c = { .nargs = n };
    char err[2048];
    const char *name = func ? func : "__tvm_ffi_main";
    int rc = 0;
    if (objrt_ffi_func(u, func, &c.f) != 0) {
        objrt_ffi_error_text(err, sizeof err);
        fprintf(stderr, "objrt: %s%s: %s\n", func ? "-f " : "no -f FUNC given: ", name, err);
        return EXIT_NOENTRY;
    }
    if (!(c.args = calloc((size_t)n + 1, sizeof *c.args))) {
        fprintf(stderr, "objrt: out of memory\n");
        TVMFFIObjectDecRef(c.f);
        return EXIT_OBJRT;
    }
    for (int i = 0; i < n; i++)
        c.args[i] = (TVMFFIAny){ .type_index = kTVMFFIDLTensorPtr, .v_ptr = t[i] };
    if (repeat ? cli_repeat_timed(call_once, &c, repeat, name, "call") : call_once(&c)) {
        if (!objrt_ffi_error_text(err, sizeof err) && !err[0])
            snprintf(err, sizeof err, "RuntimeError: %s returned an error and raised none", name);
        fprintf(stderr, "objrt: %s failed: %s\n", name, err);
        rc = EXIT_KERNEL;
    }
    free(c.args);
    TVMFFIObjectDecRef(c.f);
    return rc;
}

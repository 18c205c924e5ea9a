/* syslib_unit.c - an old-ABI system library whose prefix is 600 bytes: it registers
 * "<prefix>fn" (answers 7) and, unprefixed, "fn" (answers 8, what a lookup that lost the
 * prefix would find). */
#include "objrt/tvm_backend.h"
#include "long_names.h"

#define PREFIX LONG600 "_"

static void *module_ctx;

static int answer(TVMValue *ret, int *code, int v)
{
    ret->v_int64 = v;
    *code = kTVMArgInt;
    return 0;
}

static int prefixed(TVMValue *a, int *c, int n, TVMValue *ret, int *code, void *h)
{
    (void)a; (void)c; (void)n; (void)h;
    return answer(ret, code, 7);
}

static int unprefixed(TVMValue *a, int *c, int n, TVMValue *ret, int *code, void *h)
{
    (void)a; (void)c; (void)n; (void)h;
    return answer(ret, code, 8);
}

__attribute__((constructor)) static void register_all(void)
{
    TVMBackendRegisterSystemLibSymbol(PREFIX "__tvm_module_ctx", &module_ctx);
    TVMBackendRegisterSystemLibSymbol(PREFIX "fn", (void *)prefixed);
    TVMBackendRegisterSystemLibSymbol("fn", (void *)unprefixed);
}

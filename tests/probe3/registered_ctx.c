/* registered_ctx.c - what old TVM's system-lib output does: __tvm_module_ctx, a data
 * object, registered beside the kernel (TVMBackendRegisterSystemLibSymbol), so a lookup of
 * that name finds a registration, not a symbol (issue 40). Names called as code must
 * reach code through every lookup. */
#include "objrt/tvm_backend.h"

void *__tvm_module_ctx = 0;
static const char table[64] = "not code";

int add1(TVMValue *args, int *codes, int n, TVMValue *ret, int *rcode, void *h)
{
    (void)args; (void)codes; (void)n; (void)h;
    ret->v_int64 = 1;
    *rcode = kTVMArgInt;
    return 0;
}

__attribute__((constructor)) static void register_all(void)
{
    TVMBackendRegisterSystemLibSymbol("__tvm_module_ctx", &__tvm_module_ctx);
    TVMBackendRegisterSystemLibSymbol("add1", (void *)add1);
    TVMBackendRegisterSystemLibSymbol("table", (void *)table);
}

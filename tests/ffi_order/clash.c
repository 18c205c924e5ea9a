/* clash.c FUNCS.O - a host with a function of its own named like one of libobjrt's
 * internal ones (base/hashmap.h's objrt_strmap_find), linked statically with libobjrt.a:
 * the link must succeed and both must work, the host's function and objrt loading and
 * calling test_add(10, 20). libobjrt.a's internal names are local symbols. */
#include <stdio.h>
#include "objrt.h"
#include "objrt/tvm_ffi.h"

int objrt_strmap_find(void);
int objrt_strmap_find(void)
{
    return 42;
}

int main(int argc, char **argv)
{
    TVMFFIAny args[2] = { { .type_index = kTVMFFIInt, .v_int64 = 10 },
                          { .type_index = kTVMFFIInt, .v_int64 = 20 } }, ret = { 0 };
    TVMFFIObjectHandle f = NULL;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = argc > 1 ? objrt_load(ctx, (const char *const *)&argv[1], 1) : NULL;
    if (!u || objrt_ffi_func(u, "test_add", &f) != 0 || TVMFFIFunctionCall(f, args, 2, &ret) != 0) {
        printf("objrt failed: %s\n", objrt_error(ctx));
        return 1;
    }
    printf("host's objrt_strmap_find %d, test_add %lld\n", objrt_strmap_find(), (long long)ret.v_int64);
    TVMFFIObjectDecRef(f);
    objrt_free(ctx);
    return 0;
}

/* relax.c - what TVM's Relax VM emits in compiled mode ("exec_mode=compiled"), by hand:
 * registers kept in an anylist, each call's arguments taken from it with
 * TVMBackendAnyListSetPackedArg, the result moved back with
 * TVMBackendAnyListMoveFromPackedReturn, dead registers released with
 * TVMBackendAnyListResetItem. TVM's runtime defines those three; here objrt does.
 *   chain(f, x) -> f(f(x)): the intermediate value lives in a register, released as soon
 *   as it is dead; the result's reference passes from its register to the caller.
 *   chain_leaky(f, x): the same without releasing the intermediate (a planted fault). */
#include <tvm/ffi/c_api.h>

int TVMBackendAnyListSetPackedArg(void *anylist, int index, TVMFFIAny *args, int arg_offset);
int TVMBackendAnyListMoveFromPackedReturn(void *anylist, int index, TVMFFIAny *args,
                                          int ret_offset);
int TVMBackendAnyListResetItem(void *anylist, int index);

#define EXPORT __attribute__((visibility("default")))
#define TRY(x) do { if ((x) != 0) goto fail; } while (0)

/* One step: regs[out] = f(regs[in]), through a stack as the generated code has it. */
static int step(TVMFFIObjectHandle f, TVMFFIAny *regs, int in, int out)
{
    TVMFFIAny stack[2] = { { .type_index = kTVMFFINone }, { .type_index = kTVMFFINone } };
    if (TVMBackendAnyListSetPackedArg(regs, in, stack, 0) != 0 ||
        TVMFFIFunctionCall(f, stack, 1, &stack[1]) != 0)
        return -1;
    return TVMBackendAnyListMoveFromPackedReturn(regs, out, stack, 1);
}

static int chain(const TVMFFIAny *a, int32_t n, TVMFFIAny *r, int leak)
{
    TVMFFIAny regs[3] = { a[1], { .type_index = kTVMFFINone }, { .type_index = kTVMFFINone } };
    if (n != 2 || a[0].type_index != kTVMFFIFunction) {
        TVMFFIErrorSetRaisedFromCStr("TypeError", "chain(f: Function, x)");
        return -1;
    }
    if (regs[0].type_index >= kTVMFFIStaticObjectBegin)
        TVMFFIObjectIncRef(regs[0].v_obj);   /* the register file owns what it holds */
    TRY(step(a[0].v_obj, regs, 0, 1));
    TRY(TVMBackendAnyListResetItem(regs, 0));
    TRY(step(a[0].v_obj, regs, 1, 2));
    if (!leak)
        TRY(TVMBackendAnyListResetItem(regs, 1));
    *r = regs[2];
    return 0;
fail:
    TVMBackendAnyListResetItem(regs, 0);
    TVMBackendAnyListResetItem(regs, 1);
    TVMBackendAnyListResetItem(regs, 2);
    return -1;
}

EXPORT int __tvm_ffi_chain(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    return chain(a, n, r, 0);
}

/* The test's control: register 1 never released (its check must see the extra reference). */
EXPORT int __tvm_ffi_chain_leaky(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    return chain(a, n, r, 1);
}

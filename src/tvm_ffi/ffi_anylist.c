/* ffi_anylist.c - the register file of TVM's Relax VM in compiled mode ("anylist"): an
 * array of TVMFFIAny that the generated code reads arguments from and writes results into
 * around each TVMFFIFunctionCall. TVM's runtime defines these three for it (0.22+, each
 * returns 0 or -1 with an error raised); objrt does, so such code runs without TVM.
 * The list owns its objects: an argument taken from it is borrowed for the call, a result
 * moved into it is owned, and the value it replaces is released through the process's
 * TVM-FFI core (its objects may be libtvm_ffi's). */
#include "ffi_internal.h"

static void release(TVMFFIAny *a)
{
    if (a->type_index >= kTVMFFIStaticObjectBegin && a->v_obj)
        ((int (*)(void *))ffi_core_get()->dec_ref)(a->v_obj);
    a->type_index = kTVMFFINone;
    a->zero_padding = 0;
    a->v_int64 = 0;
}

static int null_list(const char *fn)
{
    ffi_raise("ValueError", "%s: NULL list or argument stack", fn);
    return -1;
}

/* args[arg_offset] = list[index], borrowed: the list keeps the reference. */
int TVMBackendAnyListSetPackedArg(void *anylist, int index, TVMFFIAny *args, int arg_offset)
{
    if (!anylist || !args)
        return null_list("TVMBackendAnyListSetPackedArg");
    args[arg_offset] = ((TVMFFIAny *)anylist)[index];
    return 0;
}

/* list[index] = None, releasing what it held. */
int TVMBackendAnyListResetItem(void *anylist, int index)
{
    if (!anylist)
        return null_list("TVMBackendAnyListResetItem");
    release(&((TVMFFIAny *)anylist)[index]);
    return 0;
}

/* list[index] = the call's result at args[ret_offset], moved: the slot is None after. */
int TVMBackendAnyListMoveFromPackedReturn(void *anylist, int index, TVMFFIAny *args,
                                          int ret_offset)
{
    TVMFFIAny *dst, *src;
    if (!anylist || !args)
        return null_list("TVMBackendAnyListMoveFromPackedReturn");
    dst = &((TVMFFIAny *)anylist)[index];
    src = &args[ret_offset];
    if (dst != src) {
        TVMFFIAny v = *src;
        release(dst);                        /* after reading src: they may alias */
        *dst = v;
        src->type_index = kTVMFFINone;
        src->zero_padding = 0;
        src->v_int64 = 0;
    }
    return 0;
}

/*
 * fuzz_runtime.c - libFuzzer harness: the kernel runtime's hooks on a loaded unit.
 *
 * A load fills the unit's TVM DSO slots and __tvm_module_ctx (the loader, and the runtime's before-init hook: base/provider.h) and
 * registers the unit as a module; this harness then reads __tvm_main__ (objrt_tvm_main),
 * looks up a packed function named by the input's last bytes (objrt_tvm_func), and asks
 * TVMBackendGetFuncFromEnv through the module context the loader wrote, if any. No
 * function found is called (constructors are off: nothing of the unit runs).
 * Build: tests/fuzz/build.sh OUTDIR.
 */
#include <objrt/tvm_backend.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    objrt_unit *u = fz_load_one(data, size);
    if (!u)
        return 0;
    char name[33] = "";
    size_t tail = size < 32 ? size : 32;        /* a name from the input's last bytes */
    memcpy(name, data + size - tail, tail);
    objrt_tvm_main(u);
    objrt_tvm_func(u, name);
    void **slot = objrt_unit_sym(u, "__tvm_module_ctx");
    TVMFunctionHandle f;
    if (slot)                               /* the loader checked and filled it */
        TVMBackendGetFuncFromEnv(*slot, name, &f);
    objrt_unload(u);
    return 0;
}

/* crt_syslib.c - a microTVM CRT system library as TVM's C codegen writes one (target
 * "c --system-lib --runtime=crt"): packed functions, a TVMFuncRegistry of their names and
 * pointers, and TVMSystemLibEntryPoint handing out the module. Compiled against objrt's
 * TVM headers only (-I include/objrt), as a deployer without TVM would.
 *   crt_axpy(X f32[n], Y f32[n], Z f32[n]):  Z = 3 X + Y
 *   crt_neg(X f32[n], Y f32[n]):             Y = -X
 * -DCOUNT8: TVM 0.7's one-byte count; -DBAD_PTR: a table entry outside the unit. */
#include <stdint.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/crt/module.h>

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t crt_axpy(void *args, int32_t *arg_type_ids, int32_t num_args,
                         void *out_ret_value, int32_t *out_ret_tcode, void *resource_handle)
{
    (void)arg_type_ids, (void)out_ret_value, (void)out_ret_tcode, (void)resource_handle;
    if (num_args != 3) {
        TVMAPISetLastError("crt_axpy: num_args should be 3");
        return -1;
    }
    TVMValue *a = (TVMValue *)args;
    DLTensor *x = a[0].v_handle, *y = a[1].v_handle, *z = a[2].v_handle;
    for (int64_t i = 0; i < x->shape[0]; i++)
        ((float *)z->data)[i] = 3.0f * ((float *)x->data)[i] + ((float *)y->data)[i];
    return 0;
}

TVM_DLL int32_t crt_neg(void *args, int32_t *arg_type_ids, int32_t num_args,
                        void *out_ret_value, int32_t *out_ret_tcode, void *resource_handle)
{
    (void)arg_type_ids, (void)num_args, (void)out_ret_value, (void)out_ret_tcode, (void)resource_handle;
    TVMValue *a = (TVMValue *)args;
    DLTensor *x = a[0].v_handle, *y = a[1].v_handle;
    for (int64_t i = 0; i < x->shape[0]; i++)
        ((float *)y->data)[i] = -((float *)x->data)[i];
    return 0;
}

static TVMBackendPackedCFunc _tvm_func_array[] = {
    (TVMBackendPackedCFunc)crt_axpy,
#ifdef BAD_PTR
    (TVMBackendPackedCFunc)(uintptr_t)0x1000,
#else
    (TVMBackendPackedCFunc)crt_neg,
#endif
};
static const TVMFuncRegistry _tvm_func_registry = {
#ifdef COUNT8
    "\002crt_axpy\000crt_neg\000",
#else
    "\002\000crt_axpy\000crt_neg\000",
#endif
    _tvm_func_array,
};
static const TVMModule _tvm_system_lib = {
    &_tvm_func_registry,
};
const TVMModule *TVMSystemLibEntryPoint(void)
{
    return &_tvm_system_lib;
}

/* old_tvmarray.c - a packed function in the shape TVM 0.6's C host codegen wrote: the
 * arguments as TVMArray with DLPack's old `ctx` field, TVM_DLL, TVMContext, and the
 * metadata header later releases include. Compiled against objrt's TVM headers only.
 *   old_scale(X f32[n] on CPU, Y f32[n]):  Y = X * 0.5 (refuses a non-CPU ctx) */
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/metadata_types.h>

static const struct TVMTensorInfo old_scale_inputs[1] = {{"X", 0, 1, {kDLFloat, 32, 1}}};

TVM_DLL int32_t old_scale(void *args, void *arg_type_ids, int32_t num_args,
                          void *out_ret_value, void *out_ret_tcode, void *resource_handle)
{
    (void)arg_type_ids, (void)out_ret_value, (void)out_ret_tcode, (void)resource_handle;
    TVMArray *arg0 = (TVMArray *)(((TVMValue *)args)[0].v_handle);
    TVMArray *arg1 = (TVMArray *)(((TVMValue *)args)[1].v_handle);
    TVMContext ctx = arg0->ctx;
    if (num_args != 2 || ctx.device_type != kDLCPU || arg0->dtype.bits != old_scale_inputs[0].dtype.bits) {
        TVMAPISetLastError("old_scale: Assert fail: (1 == tvm_struct_get(arg0, 0, 10)), device_type");
        return -1;
    }
    for (int64_t i = 0; i < arg0->shape[0]; i++)
        ((float *)arg1->data)[i] = ((float *)arg0->data)[i] * 0.5f;
    return 0;
}

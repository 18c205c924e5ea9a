#include <objrt/tvm_backend.h>
int add_k(TVMValue *args, int *codes, int n, TVMValue *ret, int *rcode, void *res)
{
    (void)res;
    if (n != 3 || codes[0] != kTVMDLTensorHandle || codes[1] != kTVMDLTensorHandle || codes[2] != kTVMArgFloat) {
        TVMAPISetLastError("add_k: expected (DLTensor a, DLTensor out, float k)");
        return -1;
    }
    DLTensor *a = args[0].v_handle, *o = args[1].v_handle;
    if (a->dtype.code != kDLFloat || a->dtype.bits != 64 || a->ndim != 1 || o->shape[0] != a->shape[0]) {
        TVMAPISetLastError("add_k: float64 vectors of one length please");
        return -1;
    }
    double *x = (double *)((char *)a->data + a->byte_offset), *y = (double *)((char *)o->data + o->byte_offset);
    for (int64_t i = 0; i < a->shape[0]; i++) y[i] = x[i] + args[2].v_float64;
    ret->v_int64 = a->shape[0];
    *rcode = kTVMArgInt;
    return 0;
}

/* tvm_args.h - the argument checks TVM's codegen puts at the top of every packed function
 * (tir.transform.MakePackedAPI), with the same messages. The kernel defines
 * KERNEL_SET_ERROR(msg): TVMAPISetLastError in system-lib mode, the slot in DSO mode. */
#include <stdarg.h>
#include <stdio.h>
#include <objrt/tvm_backend.h>

static int kernel_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* args[i] must be a CPU DLTensor of dtype (code, bits), rank ndim, compact, and when
 * shape[d] >= 0, extent shape[d] in dimension d. */
static int check_tensor(const char *fn, const char *arg, const TVMValue *args, const int *codes,
                        int i, int code, int bits, int ndim, const int64_t *shape)
{
    static const char *names[] = {"int", "uint", "float"};
    const DLTensor *t;
    if (codes[i] != kTVMDLTensorHandle && codes[i] != kTVMNDArrayHandle &&
        codes[i] != kTVMOpaqueHandle && codes[i] != kTVMNullptr)
        return kernel_error("%s: Expect arg[%d] to be pointer", fn, i);
    t = args[i].v_handle;
    if (!t)
        return kernel_error("%s.%s is expected to have non-NULL DLTensor* pointer", fn, arg);
    if (t->ndim != ndim)
        return kernel_error("%s.%s.ndim is expected to equal %d", fn, arg, ndim);
    if (t->dtype.code != code || t->dtype.bits != bits || t->dtype.lanes != 1)
        return kernel_error("%s.%s.dtype is expected to be %s%d", fn, arg,
                            names[code < 3 ? code : 0], bits);
    for (int d = 0; d < ndim; d++)
        if (shape[d] >= 0 && t->shape[d] != shape[d])
            return kernel_error("Argument %s.%s.shape[%d] has an unsatisfied constraint: "
                                "%lld == %s.shape[%d] (got %lld)", fn, arg, d,
                                (long long)shape[d], arg, d, (long long)t->shape[d]);
    if (t->strides) {
        int64_t expect = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            if (t->shape[d] != 1 && t->strides[d] != expect)
                return kernel_error("%s.%s.strides: expected to be compact array", fn, arg);
            expect *= t->shape[d];
        }
    }
    if (t->device.device_type != kDLCPU)
        return kernel_error("Argument %s.%s.device_type has an unsatisfied constraint: "
                            "1 == %s.device_type", fn, arg, arg);
    return 0;
}

static int check_nargs(const char *fn, int nargs, int want)
{
    return nargs == want ? 0 : kernel_error("%s: num_args should be %d", fn, want);
}

static int kernel_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    KERNEL_SET_ERROR(msg);
    return -1;
}

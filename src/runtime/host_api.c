/* host_api.c - the host side of TVM's C runtime API (c_runtime_api.h): CPU tensors,
 * global functions, module lookups, and AOT entry points (TVM's "unpacked" C interface). */
#include <stdlib.h>
#include <string.h>
#include "modules.h"

#define MAX_NDIM 64                        /* numpy's limit; TVM has none */

typedef struct rt_array {                  /* a TVMArrayHandle points at t */
    DLTensor t;
    int64_t shape[];
} rt_array;

int64_t objrt_tensor_nbytes(const DLTensor *t)
{
    uint64_t n = 1, elem;
    if (!t || t->ndim < 0 || (t->ndim > 0 && !t->shape) || t->dtype.lanes == 0 ||
        t->dtype.bits == 0)
        return -1;
    elem = ((uint64_t)t->dtype.bits * t->dtype.lanes + 7) / 8;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] < 0)
            return -1;
        if (t->shape[i] && n > (uint64_t)INT64_MAX / (uint64_t)t->shape[i])
            return -1;
        n *= (uint64_t)t->shape[i];
    }
    return n > (uint64_t)INT64_MAX / elem ? -1 : (int64_t)(n * elem);
}

int TVMArrayAlloc(const tvm_index_t *shape, int ndim, int dtype_code, int dtype_bits,
                  int dtype_lanes, int device_type, int device_id, TVMArrayHandle *out)
{
    rt_array *a;
    int64_t nbytes;
    void *data = NULL;
    if (!out || ndim < 0 || ndim > MAX_NDIM || (ndim > 0 && !shape)) {
        objrt_set_last_error("TVMArrayAlloc: bad arguments (ndim %d, shape %p, out %p)", ndim,
                             (const void *)shape, (void *)out);
        return -1;
    }
    *out = NULL;
    if (device_type != kDLCPU || device_id != 0) {
        objrt_set_last_error("TVMArrayAlloc: only the CPU (device %d:0) is supported, not %d:%d",
                             kDLCPU, device_type, device_id);
        return -1;
    }
    if (dtype_code < 0 || dtype_code > 255 || dtype_lanes < 1 || dtype_lanes > 65535 ||
        !(dtype_bits == 1 || (dtype_bits > 0 && dtype_bits <= 255 && dtype_bits % 8 == 0))) {
        objrt_set_last_error("TVMArrayAlloc: unsupported dtype (code %d, bits %d, lanes %d)",
                             dtype_code, dtype_bits, dtype_lanes);
        return -1;
    }
    if (!(a = calloc(1, sizeof *a + (size_t)ndim * sizeof(int64_t)))) {
        objrt_set_last_error("TVMArrayAlloc: out of memory");
        return -1;
    }
    if (ndim)
        memcpy(a->shape, shape, (size_t)ndim * sizeof(int64_t));
    a->t = (DLTensor){ .device = { kDLCPU, 0 }, .ndim = ndim, .shape = a->shape,
                       .dtype = { (uint8_t)dtype_code, (uint8_t)dtype_bits, (uint16_t)dtype_lanes } };
    nbytes = objrt_tensor_nbytes(&a->t);
    /* rounded up so that vector code reading whole aligned blocks stays inside */
    if (nbytes < 0 || (uint64_t)nbytes > SIZE_MAX - OBJRT_TENSOR_ALIGN) {
        objrt_set_last_error("TVMArrayAlloc: negative shape or size overflow");
        free(a);
        return -1;
    }
    size_t room = ((size_t)nbytes + OBJRT_TENSOR_ALIGN - 1) / OBJRT_TENSOR_ALIGN * OBJRT_TENSOR_ALIGN;
    if (posix_memalign(&data, OBJRT_TENSOR_ALIGN, room ? room : OBJRT_TENSOR_ALIGN) != 0) {
        objrt_set_last_error("TVMArrayAlloc: out of memory for %lld bytes", (long long)nbytes);
        free(a);
        return -1;
    }
    memset(data, 0, room);
    a->t.data = data;
    *out = &a->t;
    return 0;
}

int TVMArrayFree(TVMArrayHandle handle)
{
    if (handle) {
        free(handle->data);
        free(handle);          /* the DLTensor is the first member of its rt_array */
    }
    return 0;
}

/* Bytes a copy must move: the whole tensor, which must be compact (no strides). */
static int copy_size(const char *what, TVMArrayHandle h, const void *data, size_t nbytes)
{
    int64_t want = objrt_tensor_nbytes(h);
    if (!h || !data || want < 0 || h->strides || h->device.device_type != kDLCPU) {
        objrt_set_last_error("%s: not a compact CPU tensor, or a NULL buffer", what);
        return -1;
    }
    if ((uint64_t)want != nbytes) {
        objrt_set_last_error("%s: %zu bytes given, the tensor has %lld", what, nbytes,
                             (long long)want);
        return -1;
    }
    return 0;
}

int TVMArrayCopyFromBytes(TVMArrayHandle handle, void *data, size_t nbytes)
{
    if (copy_size("TVMArrayCopyFromBytes", handle, data, nbytes) != 0)
        return -1;
    if (nbytes)
        memcpy((char *)handle->data + handle->byte_offset, data, nbytes);
    return 0;
}

int TVMArrayCopyToBytes(TVMArrayHandle handle, void *data, size_t nbytes)
{
    if (copy_size("TVMArrayCopyToBytes", handle, data, nbytes) != 0)
        return -1;
    if (nbytes)
        memcpy(data, (const char *)handle->data + handle->byte_offset, nbytes);
    return 0;
}

/* runtime.SystemLib([prefix]) -> kTVMModuleHandle */
static int system_lib(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    const char *prefix = "";
    rt_module *m;
    (void)res;
    if (nargs > 1 || (nargs == 1 && (codes[0] != kTVMStr || !args[0].v_str))) {
        objrt_set_last_error("runtime.SystemLib: takes no argument or one string (the prefix)");
        return -1;
    }
    if (nargs == 1)
        prefix = args[0].v_str;
    if (!(m = rt_syslib(prefix))) {
        objrt_set_last_error("runtime.SystemLib: prefix too long or out of memory");
        return -1;
    }
    ret->v_handle = m;
    *rcode = kTVMModuleHandle;
    return 0;
}

int TVMFuncGetGlobal(const char *name, TVMFunctionHandle *out)
{
    if (!name || !out) {
        objrt_set_last_error("TVMFuncGetGlobal: NULL name or out");
        return -1;
    }
    /* as TVM: an unknown name is not an error, *out is NULL */
    *out = rt_host_func(name, strcmp(name, "runtime.SystemLib") == 0 ? system_lib : NULL);
    return 0;
}

int TVMModGetFunction(TVMModuleHandle mod, const char *func_name, int query_imports,
                      TVMFunctionHandle *out)
{
    rt_module *m = mod;
    const char *name = func_name;
    (void)query_imports;                   /* objrt modules import nothing */
    if (!out || !func_name) {
        objrt_set_last_error("TVMModGetFunction: NULL name or out");
        return -1;
    }
    *out = NULL;
    if (!rt_module_known(mod)) {
        objrt_set_last_error("TVMModGetFunction: %p is not a module handle of objrt "
                             "(looking up '%s')", mod, func_name);
        return -1;
    }
    if (strcmp(name, "__tvm_main__") == 0 && !(name = rt_module_main_name(m)))
        return 0;
    bool refused;
    *out = rt_module_lookup(m, name, &refused);
    return refused ? -1 : 0;            /* unknown: NULL as TVM; not a function: an error */
}

int TVMFuncFree(TVMFunctionHandle func)
{
    (void)func;                            /* owned by its module */
    return 0;
}

int TVMModFree(TVMModuleHandle mod)
{
    (void)mod;                             /* owned by its unit, or by the process */
    return 0;
}

typedef int32_t (*aot_entry)(void *inputs, void *outputs);

int objrt_aot_run(objrt_unit *unit, const char *name, DLTensor *const *inputs, int ninputs,
                  DLTensor *const *outputs, int noutputs)
{
    rt_module *m = objrt_tvm_module(unit);
    bool refused = false;
    rt_func *f = m && name ? rt_module_lookup(m, name, &refused) : NULL;
    void **ptrs;
    int rc;
    if (refused)
        return -1;
    if (!f) {
        objrt_set_last_error("objrt_aot_run: entry '%s' not found in the unit",
                             name ? name : "(null)");
        return -1;
    }
    if (ninputs < 0 || noutputs < 0 || (ninputs && !inputs) || (noutputs && !outputs)) {
        objrt_set_last_error("objrt_aot_run: bad tensor lists");
        return -1;
    }
    /* each struct is one void * per tensor: an array of pointers has the same layout */
    if (!(ptrs = calloc((size_t)ninputs + (size_t)noutputs + 1, sizeof *ptrs))) {
        objrt_set_last_error("objrt_aot_run: out of memory");
        return -1;
    }
    for (int i = 0; i < ninputs + noutputs; i++) {
        DLTensor *t = i < ninputs ? inputs[i] : outputs[i - ninputs];
        if (!t || !t->data) {
            objrt_set_last_error("objrt_aot_run: %s %d is NULL or has no data",
                                 i < ninputs ? "input" : "output", i < ninputs ? i : i - ninputs);
            free(ptrs);
            return -1;
        }
        ptrs[i] = (char *)t->data + t->byte_offset;
    }
    objrt_set_last_error("%s", "");
    rc = ((aot_entry)(void (*)(void))f->fn)(ptrs, ptrs + ninputs);  /* stored as packed */
    if (rc != 0 && !objrt_last_error()[0])
        objrt_set_last_error("%s returned %d", name, rc);
    free(ptrs);
    return rc;
}

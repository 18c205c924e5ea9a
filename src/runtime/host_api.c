/* host_api.c - the host side of TVM's C runtime API (c_runtime_api.h): CPU tensors,
 * global functions, module lookups, and AOT entry points (TVM's "unpacked" C interface). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/names.h"
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
        objrt_set_last_error("runtime.SystemLib: out of memory");
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

/* One data pointer per tensor, inputs then outputs, in ptrs[0 .. nin + nout); -1 with the
 * last error set when an argument is unusable. `who` names the API in messages. */
static int data_pointers(const char *who, DLTensor *const *inputs, int ninputs,
                         DLTensor *const *outputs, int noutputs, void **ptrs)
{
    for (int i = 0; i < ninputs + noutputs; i++) {
        DLTensor *t = i < ninputs ? inputs[i] : outputs[i - ninputs];
        if (!t || !t->data) {
            objrt_set_last_error("%s: %s %d is NULL or has no data", who,
                                 i < ninputs ? "input" : "output", i < ninputs ? i : i - ninputs);
            return -1;
        }
        ptrs[i] = (char *)t->data + t->byte_offset;
    }
    return 0;
}

/* The entry and the argument lists, checked; NULL with the last error set. */
static rt_func *aot_entry_of(const char *who, objrt_unit *unit, const char *name,
                             DLTensor *const *inputs, int ninputs, DLTensor *const *outputs,
                             int noutputs)
{
    rt_module *m = objrt_tvm_module(unit);
    bool refused = false;       /* the name is there but is not a function: error set */
    rt_func *f = m && name ? rt_module_lookup(m, name, &refused) : NULL;
    if (refused)
        return NULL;
    if (!f)
        objrt_set_last_error("%s: entry '%s' not found in the unit", who, name ? name : "(null)");
    else if (ninputs < 0 || noutputs < 0 || (ninputs && !inputs) || (noutputs && !outputs)) {
        objrt_set_last_error("%s: bad tensor lists", who);
        f = NULL;
    }
    return f;
}

static int aot_result(const char *name, int rc)
{
    if (rc != 0 && !objrt_last_error()[0])
        objrt_set_last_error("%s returned %d", name, rc);
    return rc;
}

/* TVM 0.8's tvmgen_<n>_run is packed: called with two struct pointers it would read data
 * as DLTensors and return 0 with nothing computed. A unit defining tvmgen_<n>_run_model
 * (0.8) and no tvmgen_<n>___tvm_main__ (>= 0.9) is that release: refused with the choices. */
static int is_v08_run(objrt_unit *unit, const char *name)
{
    size_t n = strlen(name);
    char *stem, *main09, *model;
    int v08;
    if (strncmp(name, "tvmgen_", 7) != 0 || n <= 11 || strcmp(name + n - 4, "_run") != 0)
        return 0;
    stem = strndup(name, n - 4);
    main09 = stem ? objrt_name_join(stem, "___tvm_main__", NULL) : NULL;
    model = objrt_name_join(name, "_model", NULL);
    v08 = main09 && model && !objrt_unit_sym(unit, main09) && objrt_unit_sym(unit, model);
    free(stem);
    free(main09);
    free(model);
    return v08;
}

static int aot_run(objrt_unit *unit, const char *name, DLTensor *const *inputs, int ninputs,
                   DLTensor *const *outputs, int noutputs)
{
    rt_func *f = aot_entry_of("objrt_aot_run", unit, name, inputs, ninputs, outputs, noutputs);
    void **ptrs;
    int rc;
    if (!f)
        return -1;
    if (is_v08_run(unit, name)) {
        objrt_set_last_error("objrt_aot_run: '%s' is TVM 0.8's packed entry (the unit defines "
                             "%s_model, not the >= 0.9 struct interface): call it with "
                             "TVMFuncCall on DLTensors, or objrt_aot_run_unpacked on %s_model",
                             name, name, name);
        return -1;
    }
    /* each struct is one void * per tensor: an array of pointers has the same layout */
    if (!(ptrs = calloc((size_t)ninputs + (size_t)noutputs + 1, sizeof *ptrs))) {
        objrt_set_last_error("objrt_aot_run: out of memory");
        return -1;
    }
    if (data_pointers("objrt_aot_run", inputs, ninputs, outputs, noutputs, ptrs) != 0) {
        free(ptrs);
        return -1;
    }
    objrt_set_last_error("%s", "");
    rc = ((aot_entry)(void (*)(void))f->fn)(ptrs, ptrs + ninputs);  /* stored as packed */
    free(ptrs);
    return aot_result(name, rc);
}

/* A call with exactly n pointer arguments, each count its own function type (calling
 * through a type with more parameters than the function has is undefined in C). */
#define V1 void *
#define V2 V1, void *
#define V3 V2, void *
#define V4 V3, void *
#define V5 V4, void *
#define V6 V5, void *
#define V7 V6, void *
#define V8 V7, void *
#define V9 V8, void *
#define V10 V9, void *
#define V11 V10, void *
#define V12 V11, void *
#define V13 V12, void *
#define V14 V13, void *
#define V15 V14, void *
#define V16 V15, void *
#define P1 p[0]
#define P2 P1, p[1]
#define P3 P2, p[2]
#define P4 P3, p[3]
#define P5 P4, p[4]
#define P6 P5, p[5]
#define P7 P6, p[6]
#define P8 P7, p[7]
#define P9 P8, p[8]
#define P10 P9, p[9]
#define P11 P10, p[10]
#define P12 P11, p[11]
#define P13 P12, p[12]
#define P14 P13, p[13]
#define P15 P14, p[14]
#define P16 P15, p[15]
#define CALL_N(n) case n: return ((int32_t (*)(V##n))fn)(P##n);

static int32_t call_positional(void (*fn)(void), void *const *p, int n)
{
    switch (n) {
    case 0: return ((int32_t (*)(void))fn)();
    CALL_N(1) CALL_N(2) CALL_N(3) CALL_N(4) CALL_N(5) CALL_N(6) CALL_N(7) CALL_N(8)
    CALL_N(9) CALL_N(10) CALL_N(11) CALL_N(12) CALL_N(13) CALL_N(14) CALL_N(15) CALL_N(16)
    }
    return -1;
}

static int aot_run_unpacked(objrt_unit *unit, const char *name, DLTensor *const *inputs,
                            int ninputs, DLTensor *const *outputs, int noutputs)
{
    const char *who = "objrt_aot_run_unpacked";
    rt_func *f = aot_entry_of(who, unit, name, inputs, ninputs, outputs, noutputs);
    void *ptrs[OBJRT_AOT_MAX_POSITIONAL];
    if (!f)
        return -1;
    if (ninputs + noutputs > OBJRT_AOT_MAX_POSITIONAL) {
        objrt_set_last_error("%s: %s: %d tensors, at most %d positional arguments", who, name,
                             ninputs + noutputs, OBJRT_AOT_MAX_POSITIONAL);
        return -1;
    }
    if (data_pointers(who, inputs, ninputs, outputs, noutputs, ptrs) != 0)
        return -1;
    objrt_set_last_error("%s", "");
    return aot_result(name, call_positional((void (*)(void))f->fn, ptrs, ninputs + noutputs));
}

/* A run is a call on the unit's context (modules.c, rt_unit_enter): objrt_free waits for
 * the kernel to return before it unloads the code. */
int objrt_aot_run(objrt_unit *unit, const char *name, DLTensor *const *inputs, int ninputs,
                  DLTensor *const *outputs, int noutputs)
{
    objrt_ctx *ctx = rt_unit_enter("objrt_aot_run", unit);
    if (!ctx)
        return -1;
    int rc = aot_run(unit, name, inputs, ninputs, outputs, noutputs);
    objrt_ctx_leave(ctx);
    return rc;
}

int objrt_aot_run_unpacked(objrt_unit *unit, const char *name, DLTensor *const *inputs,
                           int ninputs, DLTensor *const *outputs, int noutputs)
{
    objrt_ctx *ctx = rt_unit_enter("objrt_aot_run_unpacked", unit);
    if (!ctx)
        return -1;
    int rc = aot_run_unpacked(unit, name, inputs, ninputs, outputs, noutputs);
    objrt_ctx_leave(ctx);
    return rc;
}

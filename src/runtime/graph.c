/* graph.c - TVM's graph executor: a graph JSON (as relay.build writes it), a params blob
 * (runtime.save_param_dict) and a module holding the fused functions. JSON parsing is
 * Jansson's; every field it yields is validated here before it sizes or indexes anything. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/number.h"
#include "rt_internal.h"

#define MAX_NDIM 64
#define NDARRAY_LIST_MAGIC 0xF7E58D4F05049CB7ULL
#define NDARRAY_MAGIC 0xDD5E40F096B4A13FULL

typedef struct g_entry {            /* one node output: a view on a storage block */
    DLTensor t;
    DLTensor flat;                  /* the same as 1-D, for flatten_data nodes */
    int64_t shape[MAX_NDIM], flat_shape[1];
    int64_t storage;
    int set;                        /* an input's data was given (set, params, linked) */
} g_entry;

typedef struct g_node {
    char *name;
    int is_op;
    TVMFunctionHandle fn;           /* NULL for "__nop" */
    char *func_name;
    int nargs;
    TVMValue *args;
    int *codes;
} g_node;

struct objrt_graph {
    int nnodes, nentries, nstorage, nheads;
    g_node *nodes;
    g_entry *entries;
    int64_t *row;                   /* node_row_ptr, nnodes + 1 */
    int64_t *heads;                 /* entry ids */
    void **storage;
};

static int gerr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int gerr(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    objrt_set_last_error("graph: %s", msg);
    return -1;
}

/* An integer field: a JSON integer, or a decimal string (TVM writes node attrs as strings). */
static int get_int(json_t *v, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    long long x;
    if (json_is_integer(v)) {
        x = json_integer_value(v);
    } else if (json_is_string(v) && *json_string_value(v)) {
        x = strtoll(json_string_value(v), &end, 10);
        if (*end)
            return -1;
    } else {
        return -1;
    }
    if (x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

/* "float32", "int8", "uint1", "bool", "float16x4" -> DLDataType */
static int parse_dltype(const char *s, DLDataType *dt)
{
    static const struct { const char *p; uint8_t code; } kinds[] = {
        {"float", kDLFloat}, {"uint", kDLUInt}, {"int", kDLInt}};
    char *end;
    if (strcmp(s, "bool") == 0) {
        *dt = (DLDataType){kDLUInt, 1, 1};
        return 0;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i].p);
        if (strncmp(s, kinds[i].p, n) != 0 || s[n] < '0' || s[n] > '9')
            continue;
        long bits = strtol(s + n, &end, 10), lanes = 1;
        if (*end == 'x')
            lanes = strtol(end + 1, &end, 10);
        if (*end || bits < 1 || bits > 64 || (bits != 1 && bits % 8) || lanes < 1 || lanes > 1024)
            return -1;
        *dt = (DLDataType){kinds[i].code, (uint8_t)bits, (uint16_t)lanes};
        return 0;
    }
    return -1;
}

/* attrs.<key> = ["<kind>", [ one item per entry ]] */
static json_t *attr_list(json_t *root, const char *key, const char *kind, int n)
{
    json_t *a = json_object_get(json_object_get(root, "attrs"), key), *list;
    if (!json_is_array(a) || json_array_size(a) != 2 ||
        !json_is_string(json_array_get(a, 0)) ||
        strcmp(json_string_value(json_array_get(a, 0)), kind) != 0 ||
        !json_is_array(list = json_array_get(a, 1)) || json_array_size(list) != (size_t)n) {
        gerr("attrs.%s must be [\"%s\", [%d items]]", key, kind, n);
        return NULL;
    }
    return list;
}

/* [node_id, index(, version)] naming an output of a node before `before`: its entry id. */
static int entry_ref(const objrt_graph *g, json_t *ref, int before, int64_t *eid)
{
    int64_t nid, idx;
    if (!json_is_array(ref) || json_array_size(ref) < 2 ||
        get_int(json_array_get(ref, 0), 0, before - 1, &nid) != 0 ||
        get_int(json_array_get(ref, 1), 0, g->row[nid + 1] - g->row[nid] - 1, &idx) != 0)
        return -1;
    *eid = g->row[nid] + idx;
    return 0;
}

static int parse_rows(objrt_graph *g, json_t *root, json_t *nodes)
{
    json_t *rows = json_object_get(root, "node_row_ptr");
    if (!json_is_array(rows) || json_array_size(rows) != (size_t)g->nnodes + 1)
        return gerr("node_row_ptr must have %d items (nodes + 1)", g->nnodes + 1);
    if (!(g->row = calloc((size_t)g->nnodes + 1, sizeof *g->row)))
        return gerr("out of memory");
    for (int i = 0; i <= g->nnodes; i++) {
        int64_t want = 1;                          /* outputs of node i-1 */
        if (i > 0) {
            json_t *attrs = json_object_get(json_array_get(nodes, (size_t)i - 1), "attrs");
            json_t *no = json_object_get(attrs, "num_outputs");
            if (no && get_int(no, 1, 1 << 20, &want) != 0)
                return gerr("node %d: bad num_outputs", i - 1);
        }
        if (get_int(json_array_get(rows, (size_t)i), 0, INT32_MAX, &g->row[i]) != 0 ||
            (i == 0 ? g->row[0] != 0 : g->row[i] != g->row[i - 1] + want))
            return gerr("node_row_ptr[%d] does not match the outputs of the nodes before it", i);
    }
    g->nentries = (int)g->row[g->nnodes];
    return 0;
}

static int parse_entries(objrt_graph *g, json_t *root)
{
    json_t *types, *shapes, *sids;
    if (!(types = attr_list(root, "dltype", "list_str", g->nentries)) ||
        !(shapes = attr_list(root, "shape", "list_shape", g->nentries)) ||
        !(sids = attr_list(root, "storage_id", "list_int", g->nentries)))
        return -1;
    if (!(g->entries = calloc((size_t)g->nentries + 1, sizeof *g->entries)))
        return gerr("out of memory");
    for (int e = 0; e < g->nentries; e++) {
        g_entry *en = &g->entries[e];
        json_t *ty = json_array_get(types, (size_t)e), *sh = json_array_get(shapes, (size_t)e);
        if (!json_is_string(ty) || parse_dltype(json_string_value(ty), &en->t.dtype) != 0)
            return gerr("entry %d: unsupported dltype", e);
        if (!json_is_array(sh) || json_array_size(sh) > MAX_NDIM)
            return gerr("entry %d: shape is not a list of at most %d dimensions", e, MAX_NDIM);
        en->t.ndim = (int)json_array_size(sh);
        en->t.shape = en->shape;
        en->t.device = (DLDevice){kDLCPU, 0};
        for (int d = 0; d < en->t.ndim; d++)
            if (get_int(json_array_get(sh, (size_t)d), 0, INT64_MAX, &en->shape[d]) != 0)
                return gerr("entry %d: shape[%d] is not a non-negative integer", e, d);
        if (objrt_tensor_nbytes(&en->t) < 0)
            return gerr("entry %d: size overflows", e);
        if (get_int(json_array_get(sids, (size_t)e), 0, g->nentries - 1, &en->storage) != 0)
            return gerr("entry %d: storage_id outside 0..%d", e, g->nentries - 1);
        if (en->storage >= g->nstorage)
            g->nstorage = (int)en->storage + 1;
    }
    return 0;
}

/* The most graph storage a graph may ask for: OBJRT_GRAPH_MAX_BYTES, default 1 GiB (a
 * graph's JSON states its sizes in a few bytes; nothing else justifies them). A value that
 * is not a byte count refuses the graph: read as strtoull reads it, "-1" was 2^64-1 and
 * switched the cap off. */
#define GRAPH_MAX_BYTES_DEFAULT ((uint64_t)1 << 30)
#define GRAPH_MAX_BYTES_TOP ((uint64_t)1 << 48)         /* a user address space */
static int storage_cap(uint64_t *cap)
{
    const char *s = getenv("OBJRT_GRAPH_MAX_BYTES");
    char why[256];
    *cap = GRAPH_MAX_BYTES_DEFAULT;
    if (!s || !*s || objrt_number(s, 1, GRAPH_MAX_BYTES_TOP, cap, why, sizeof why) == 0)
        return 0;
    return gerr("OBJRT_GRAPH_MAX_BYTES %s (the most bytes a graph's storage may take)", why);
}

typedef struct { char s[160]; } shape_buf;
static shape_buf shape_text(const DLTensor *t)
{
    shape_buf b;
    size_t n = (size_t)snprintf(b.s, sizeof b.s, "[");
    for (int d = 0; d < t->ndim && n < sizeof b.s; d++)
        n += (size_t)snprintf(b.s + n, sizeof b.s - n, d ? ", %lld" : "%lld", (long long)t->shape[d]);
    if (n < sizeof b.s)
        snprintf(b.s + n, sizeof b.s - n, "]");
    return b;
}

/* One block per storage id, as large as its largest entry; entries view their block.
 * Called last, once everything else of the graph is validated. */
static int alloc_storage(objrt_graph *g)
{
    int64_t *size = calloc((size_t)g->nstorage + 1, sizeof *size);
    if (!size || !(g->storage = calloc((size_t)g->nstorage + 1, sizeof *g->storage))) {
        free(size);
        return gerr("out of memory");
    }
    for (int e = 0; e < g->nentries; e++) {
        int64_t n = objrt_tensor_nbytes(&g->entries[e].t);
        if (n > size[g->entries[e].storage])
            size[g->entries[e].storage] = n;
    }
    /* a graph declares its sizes: refuse one that cannot fit, or that is past the cap,
       rather than ask for it (the storage is zeroed, so every byte asked for is committed) */
    uint64_t total = 0, ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t cap;
    int big = 0;
    if (storage_cap(&cap) != 0) {
        free(size);
        return -1;
    }
    for (int s = 0; s < g->nstorage; s++) {
        total = total + (uint64_t)size[s] < total ? UINT64_MAX : total + (uint64_t)size[s];
        big = size[s] > size[big] ? s : big;
    }
    if (total > ram || total > cap) {
        int e = 0;                      /* the largest entry of the largest block, by name */
        for (int i = 0; i < g->nentries; i++)
            if (g->entries[i].storage == big &&
                objrt_tensor_nbytes(&g->entries[i].t) == size[big])
                e = i;
        gerr("the graph's storage needs %llu bytes (storage %d: %lld bytes, entry %d of "
             "shape %s), more than %s (%llu bytes)%s", (unsigned long long)total, big,
             (long long)size[big], e, shape_text(&g->entries[e].t).s,
             total > ram ? "the machine's memory" : "OBJRT_GRAPH_MAX_BYTES",
             (unsigned long long)(total > ram ? ram : cap),
             total > ram ? "" : ": set OBJRT_GRAPH_MAX_BYTES higher if the model needs it");
        free(size);
        return -1;
    }
    for (int s = 0; s < g->nstorage; s++) {
        int64_t n = size[s];
        TVMArrayHandle h;
        if (TVMArrayAlloc(&n, 1, kDLUInt, 8, 1, kDLCPU, 0, &h) != 0) {
            free(size);
            return gerr("storage %d (%lld bytes): %s", s, (long long)n, TVMGetLastError());
        }
        g->storage[s] = h;
    }
    free(size);
    for (int e = 0; e < g->nentries; e++) {
        g_entry *en = &g->entries[e];
        en->t.data = ((TVMArrayHandle)g->storage[en->storage])->data;
        en->flat = en->t;
        en->flat.ndim = 1;
        en->flat.shape = en->flat_shape;
        en->flat_shape[0] = 1;
        for (int d = 0; d < en->t.ndim; d++)      /* no overflow: the byte size fits */
            en->flat_shape[0] *= en->shape[d];
    }
    return 0;
}

/* A tvm_op node: its function from the module, its arguments (inputs then outputs). */
static int parse_op(objrt_graph *g, int i, json_t *node, TVMModuleHandle mod)
{
    g_node *n = &g->nodes[i];
    json_t *attrs = json_object_get(node, "attrs"), *inputs = json_object_get(node, "inputs");
    json_t *fname = json_object_get(attrs, "func_name");
    int64_t nin, nout = g->row[i + 1] - g->row[i], flat = 0;
    if (!json_is_string(fname) || !json_is_array(inputs) ||
        get_int(json_object_get(attrs, "num_inputs"), 0, 1 << 20, &nin) != 0 ||
        (size_t)nin != json_array_size(inputs) ||
        (json_object_get(attrs, "flatten_data") &&
         get_int(json_object_get(attrs, "flatten_data"), 0, 1, &flat) != 0))
        return gerr("node %d ('%s'): attrs need func_name, num_inputs matching inputs, "
                    "flatten_data 0 or 1", i, n->name);
    if (!(n->func_name = strdup(json_string_value(fname))))
        return gerr("out of memory");
    if (strcmp(n->func_name, "__nop") == 0)
        return 0;
    if (TVMModGetFunction(mod, n->func_name, 0, &n->fn) != 0)    /* not a function */
        return gerr("node %d ('%s'): %s", i, n->name, TVMGetLastError());
    if (!n->fn)
        return gerr("node %d ('%s'): function '%s' is not in the module", i, n->name,
                    n->func_name);
    n->nargs = (int)(nin + nout);
    n->args = calloc((size_t)n->nargs + 1, sizeof *n->args);
    n->codes = calloc((size_t)n->nargs + 1, sizeof *n->codes);
    if (!n->args || !n->codes)
        return gerr("out of memory");
    for (int a = 0; a < n->nargs; a++) {
        int64_t eid = g->row[i] + (a - nin);
        if (a < nin && entry_ref(g, json_array_get(inputs, (size_t)a), i, &eid) != 0)
            return gerr("node %d ('%s'): input %d does not name an output of an earlier node",
                        i, n->name, a);
        n->args[a].v_handle = flat ? &g->entries[eid].flat : &g->entries[eid].t;
        n->codes[a] = kTVMDLTensorHandle;
    }
    return 0;
}

static int parse_graph(objrt_graph *g, json_t *root, TVMModuleHandle mod)
{
    json_t *nodes = json_object_get(root, "nodes"), *heads = json_object_get(root, "heads");
    if (!json_is_array(nodes) || json_array_size(nodes) == 0 || json_array_size(nodes) > (1 << 20))
        return gerr("'nodes' must be a non-empty list");
    g->nnodes = (int)json_array_size(nodes);
    if (!(g->nodes = calloc((size_t)g->nnodes, sizeof *g->nodes)))
        return gerr("out of memory");
    if (parse_rows(g, root, nodes) != 0 || parse_entries(g, root) != 0)
        return -1;
    for (int i = 0; i < g->nnodes; i++) {
        json_t *node = json_array_get(nodes, (size_t)i), *op = json_object_get(node, "op");
        json_t *name = json_object_get(node, "name");
        if (!json_is_string(op) || !json_is_string(name) || !(g->nodes[i].name = strdup(json_string_value(name))))
            return gerr("node %d: needs string 'op' and 'name'", i);
        g->nodes[i].is_op = strcmp(json_string_value(op), "tvm_op") == 0;
        if (!g->nodes[i].is_op && strcmp(json_string_value(op), "null") != 0)
            return gerr("node %d: unsupported op '%s'", i, json_string_value(op));
        if (g->nodes[i].is_op && parse_op(g, i, node, mod) != 0)
            return -1;
    }
    if (!json_is_array(heads) || json_array_size(heads) == 0)
        return gerr("'heads' must be a non-empty list");
    g->nheads = (int)json_array_size(heads);
    if (!(g->heads = calloc((size_t)g->nheads, sizeof *g->heads)))
        return gerr("out of memory");
    for (int h = 0; h < g->nheads; h++)
        if (entry_ref(g, json_array_get(heads, (size_t)h), g->nnodes, &g->heads[h]) != 0)
            return gerr("heads[%d] does not name a node output", h);
    return alloc_storage(g);            /* last: what the whole graph justifies */
}

/* Params a module links in (relay.build with link-params): as TVM's graph executor does,
 * ask the module's _lookup_linked_param for each input's storage id; a non-NULL
 * kTVMOpaqueHandle is the param's data, laid out as the input's dtype and shape. */
static int fetch_linked_params(objrt_graph *g, TVMModuleHandle mod)
{
    TVMFunctionHandle f = NULL;
    if (TVMModGetFunction(mod, "_lookup_linked_param", 0, &f) != 0)
        return gerr("_lookup_linked_param: %s", TVMGetLastError());
    for (int i = 0; f && i < g->nnodes; i++) {
        if (g->nodes[i].is_op)
            continue;
        g_entry *en = &g->entries[g->row[i]];
        TVMValue arg = { .v_int64 = en->storage }, ret = { .v_handle = NULL };
        int code = kTVMArgInt, rcode = kTVMNullptr;
        if (TVMFuncCall(f, &arg, &code, 1, &ret, &rcode) != 0) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", TVMGetLastError());
            return gerr("_lookup_linked_param(%lld) for input '%s' failed: %s",
                        (long long)en->storage, g->nodes[i].name, msg);
        }
        if (rcode == kTVMNullptr || !ret.v_handle)
            continue;                          /* not a linked param: set it another way */
        if (rcode != kTVMOpaqueHandle)
            return gerr("_lookup_linked_param(%lld) for input '%s' returned type code %d, "
                        "not a data pointer (3)", (long long)en->storage, g->nodes[i].name, rcode);
        memcpy(en->t.data, ret.v_handle, (size_t)objrt_tensor_nbytes(&en->t));
        en->set = 1;
    }
    return 0;
}

objrt_graph *objrt_graph_create(const char *json, size_t len, TVMModuleHandle mod)
{
    json_error_t jerr;
    objrt_graph *g;
    json_t *root;
    if (!json || !mod) {
        gerr("NULL graph JSON or module");
        return NULL;
    }
    if (!(root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr))) {
        gerr("JSON line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    if (!(g = calloc(1, sizeof *g))) {
        gerr("out of memory");
    } else if (!json_is_object(root) || parse_graph(g, root, mod) != 0 ||
               fetch_linked_params(g, mod) != 0) {
        if (!json_is_object(root))
            gerr("the top level is not a JSON object");
        objrt_graph_free(g);
        g = NULL;
    }
    json_decref(root);
    return g;
}

void objrt_graph_free(objrt_graph *g)
{
    if (!g)
        return;
    for (int i = 0; g->nodes && i < g->nnodes; i++) {
        free(g->nodes[i].name);
        free(g->nodes[i].func_name);
        free(g->nodes[i].args);
        free(g->nodes[i].codes);
    }
    for (int s = 0; g->storage && s < g->nstorage; s++)
        TVMArrayFree(g->storage[s]);
    free(g->storage);
    free(g->nodes);
    free(g->entries);
    free(g->row);
    free(g->heads);
    free(g);
}

/* The entry of graph input `name` (an "op": "null" node), or -1 with the error set. */
static int64_t input_entry(const objrt_graph *g, const char *name)
{
    for (int i = 0; i < g->nnodes; i++)
        if (!g->nodes[i].is_op && strcmp(g->nodes[i].name, name) == 0)
            return g->row[i];
    gerr("'%s' is not an input of the graph", name);
    return -1;
}

static void format_shape(char *buf, size_t size, int ndim, const int64_t *shape)
{
    size_t n = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < ndim && n < size; d++)
        n += (size_t)snprintf(buf + n, size - n, d ? ",%lld" : "%lld", (long long)shape[d]);
    if (n < size)
        snprintf(buf + n, size - n, "]");
}

/* Copy nbytes of data into input `name`, whose dtype and shape must be dt and shape. */
static int set_input_bytes(objrt_graph *g, const char *name, DLDataType dt, int ndim,
                           const int64_t *shape, const void *data, uint64_t nbytes)
{
    int64_t e = input_entry(g, name);
    const DLTensor *t;
    if (e < 0)
        return -1;
    t = &g->entries[e].t;
    if (t->dtype.code != dt.code || t->dtype.bits != dt.bits || t->dtype.lanes != dt.lanes)
        return gerr("input '%s': dtype code %d bits %d lanes %d given, the graph has %d/%d/%d",
                    name, dt.code, dt.bits, dt.lanes, t->dtype.code, t->dtype.bits, t->dtype.lanes);
    if (t->ndim != ndim || (ndim && memcmp(t->shape, shape, (size_t)ndim * sizeof *shape) != 0)) {
        char given[256], want[256];
        format_shape(given, sizeof given, ndim, shape);
        format_shape(want, sizeof want, t->ndim, t->shape);
        return gerr("input '%s': shape %s given, the graph has %s", name, given, want);
    }
    if ((uint64_t)objrt_tensor_nbytes(t) != nbytes)
        return gerr("input '%s': %llu bytes given, %lld expected", name,
                    (unsigned long long)nbytes, (long long)objrt_tensor_nbytes(t));
    if (nbytes)
        memcpy(t->data, data, nbytes);
    g->entries[e].set = 1;
    return 0;
}

int objrt_graph_set_input(objrt_graph *g, const char *name, const DLTensor *t)
{
    int64_t n = t ? objrt_tensor_nbytes(t) : -1;
    if (!g || !name || n < 0 || t->strides || t->device.device_type != kDLCPU)
        return gerr("set_input: NULL argument, or not a compact CPU tensor");
    return set_input_bytes(g, name, t->dtype, t->ndim, t->shape,
                           (const char *)t->data + t->byte_offset, (uint64_t)n);
}

/* ---- params: runtime.save_param_dict's format, read with a bounds-checked cursor ---- */

typedef struct reader {
    const unsigned char *p;
    size_t left;
} reader;

static int take(reader *r, void *out, size_t n)
{
    if (r->left < n)
        return -1;
    memcpy(out, r->p, n);        /* both are little-endian on every target objrt supports */
    r->p += n;
    r->left -= n;
    return 0;
}

static int load_one_param(objrt_graph *g, reader *r, const char *name)
{
    uint64_t magic, reserved;
    int32_t dev[2];
    uint32_t ndim;
    DLDataType dt;
    int64_t shape[MAX_NDIM], nbytes;
    if (take(r, &magic, 8) || take(r, &reserved, 8) || take(r, dev, 8) || take(r, &ndim, 4) ||
        take(r, &dt, 4))
        return gerr("params: '%s' is truncated", name);
    if (magic != NDARRAY_MAGIC)
        return gerr("params: '%s' has no NDArray magic", name);
    if (dev[0] != kDLCPU || ndim > MAX_NDIM)
        return gerr("params: '%s' is not a CPU tensor of at most %d dimensions", name, MAX_NDIM);
    if (take(r, shape, ndim * 8u) || take(r, &nbytes, 8) || nbytes < 0 ||
        (uint64_t)nbytes > r->left)
        return gerr("params: '%s' is truncated", name);
    int rc = set_input_bytes(g, name, dt, (int)ndim, shape, r->p, (uint64_t)nbytes);
    r->p += nbytes;
    r->left -= (size_t)nbytes;
    return rc;
}

int objrt_graph_load_params(objrt_graph *g, const void *bytes, size_t n)
{
    reader r = {bytes, n};
    uint64_t magic, reserved, count, tcount;
    char **names = NULL;
    int rc = -1;
    if (!g || !bytes)
        return gerr("load_params: NULL argument");
    if (take(&r, &magic, 8) || magic != NDARRAY_LIST_MAGIC || take(&r, &reserved, 8) ||
        take(&r, &count, 8) || count > r.left / 8)
        return gerr("params: not a TVM params blob (magic or name count)");
    if (!(names = calloc(count + 1, sizeof *names)))
        return gerr("out of memory");
    for (uint64_t i = 0; i < count; i++) {
        uint64_t len;
        if (take(&r, &len, 8) || len > r.left || !(names[i] = calloc(len + 1, 1)) ||
            take(&r, names[i], len) || memchr(names[i], '\0', len)) {
            gerr("params: name %llu is truncated or invalid", (unsigned long long)i);
            goto out;
        }
    }
    if (take(&r, &tcount, 8) || tcount != count) {
        gerr("params: %llu names but not as many tensors", (unsigned long long)count);
        goto out;
    }
    for (uint64_t i = 0; i < count; i++)
        if (load_one_param(g, &r, names[i]) != 0)
            goto out;
    rc = r.left ? gerr("params: %zu bytes after the last tensor", r.left) : 0;
out:
    for (uint64_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* An input nobody gave would run on zeros and look like success: refuse it by name. */
static int check_inputs_set(const objrt_graph *g)
{
    for (int i = 0; i < g->nnodes; i++)
        if (!g->nodes[i].is_op && !g->entries[g->row[i]].set)
            return gerr("input '%s' (node %d) was never set: give it with set_input (objrt "
                        "call: --in %s=FILE.npy), in the params blob (--params), or link it "
                        "into the module (_lookup_linked_param)", g->nodes[i].name, i,
                        g->nodes[i].name);
    return 0;
}

int objrt_graph_run(objrt_graph *g)
{
    TVMValue ret;
    int rcode;
    if (g && check_inputs_set(g) != 0)
        return -1;
    for (int i = 0; g && i < g->nnodes; i++) {
        g_node *n = &g->nodes[i];
        if (!n->is_op || !n->fn)
            continue;
        if (TVMFuncCall(n->fn, n->args, n->codes, n->nargs, &ret, &rcode) != 0) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", TVMGetLastError());
            return gerr("node %d ('%s', %s) failed: %s", i, n->name, n->func_name, msg);
        }
    }
    return g ? 0 : gerr("run: NULL graph");
}

int objrt_graph_num_outputs(const objrt_graph *g)
{
    return g ? g->nheads : 0;
}

const DLTensor *objrt_graph_output(const objrt_graph *g, int i)
{
    if (!g || i < 0 || i >= g->nheads) {
        gerr("output %d does not exist", i);
        return NULL;
    }
    return &g->entries[g->heads[i]].t;
}

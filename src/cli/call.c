/*
 * objrt call - run one TVM-compiled function on tensors read from .npy files.
 *
 *   objrt call [-l LIB]... FILE... [-f FUNC] [--in FILE.npy]... [--out NAME=DTYPE[SHAPE]]...
 *              [-o DIR] [--repeat N] [--aot | --packed]
 *   objrt call [-l LIB]... FILE... --graph GRAPH.json [--params FILE] [--in NAME=FILE.npy]...
 *              [-o DIR] [--repeat N]
 *
 * Exit status: 0; 1 when the kernel fails (its TVMGetLastError text on stderr); 125 when
 * objrt fails (usage, a bad .npy or --out, load or link error); 127 when FUNC is missing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "objrt.h"
#include "objrt/tvm_backend.h"
#include "runtime/npy.h"

#define EXIT_KERNEL 1
#define EXIT_OBJRT 125
#define EXIT_NOENTRY 127
#define MAX_SAMPLES 1001

static const char call_usage[] =
    "usage: objrt call [-l LIB]... FILE... [-f FUNC] [--in FILE.npy]...\n"
    "                  [--out NAME=DTYPE[SHAPE]]... [-o DIR] [--repeat N] [--aot | --packed]\n"
    "\n"
    "Link FILE... as one unit, call FUNC once with the --in tensors then the --out tensors\n"
    "(in command-line order), and write each output to DIR/NAME.npy (DIR defaults to .).\n"
    "  -f FUNC        a system-lib registration or a function of the unit (TVM packed\n"
    "                 signature); without -f, the function the unit's __tvm_main__ names\n"
    "  --in FILE.npy  an input tensor: .npy format 1.0/2.0, C order, little-endian bool,\n"
    "                 int8-64, uint8-64, float16/32/64; data 64-byte aligned\n"
    "  --out NAME=DTYPE[SHAPE]   an output tensor, zero-filled: e.g. y=float32[4,8], s=int64[]\n"
    "  --repeat N     call N times and print the median time per call\n"
    "  --aot          FUNC is an AOT entry, int32_t FUNC(struct inputs *, struct outputs *),\n"
    "                 each struct one data pointer per tensor (TVM's C interface); the\n"
    "                 default for names tvmgen_<name>_run. Raw pointers carry no shape:\n"
    "                 the tensors must have the sizes the model was compiled for.\n"
    "  --packed       FUNC is a packed function even if named tvmgen_<name>_run\n"
    "  -l LIB         make a shared library's symbols available\n"
    "\n"
    "       objrt call [-l LIB]... FILE... --graph GRAPH.json [--params FILE]\n"
    "                  [--in NAME=FILE.npy]... [-o DIR] [--repeat N]\n"
    "Run TVM's graph executor: GRAPH.json as relay.build writes it, FILE... holding its\n"
    "fused functions, parameters from a runtime.save_param_dict blob, inputs by name;\n"
    "output i is written to DIR/output_i.npy.\n"
    "exit status: 0; 1 if the kernel fails; 125 if objrt fails; 127 if FUNC is missing.\n";

typedef struct out_spec {
    const char *spec;
    char name[128];
    DLDataType dtype;
    int ndim;
    int64_t shape[RT_NPY_MAX_NDIM];
} out_spec;

typedef struct call_args {
    const char **libs, **files, **ins;
    out_spec *outs;
    int nlibs, nfiles, nins, nouts;
    const char *func, *outdir, *graph, *params;
    long repeat;
    int aot;                      /* -1 by name, 0 packed, 1 aot */
} call_args;

static int bad_arg(const char *opt, const char *val, const char *why)
{
    fprintf(stderr, "objrt: %s %s: %s\n", opt, val, why);
    return -1;
}

/* NAME=DTYPE[D0,D1,...]: NAME becomes a file name, so no path separators or dot files. */
static int parse_out(const char *s, out_spec *o)
{
    const char *eq = strchr(s, '='), *br = eq ? strchr(eq, '[') : NULL, *p;
    char dtype[32];
    o->spec = s;
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof o->name)
        return bad_arg("--out", s, "expected NAME=DTYPE[SHAPE], NAME 1-127 characters");
    memcpy(o->name, s, (size_t)(eq - s));
    o->name[eq - s] = '\0';
    if (o->name[0] == '.' || strspn(o->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789_.-") != strlen(o->name))
        return bad_arg("--out", s, "NAME may use letters, digits, '_', '-', '.' (not first)");
    if (!br || (size_t)(br - eq - 1) >= sizeof dtype || s[strlen(s) - 1] != ']')
        return bad_arg("--out", s, "expected NAME=DTYPE[SHAPE], e.g. y=float32[4,8]");
    memcpy(dtype, eq + 1, (size_t)(br - eq - 1));
    dtype[br - eq - 1] = '\0';
    if (rt_npy_dtype_by_name(dtype, &o->dtype) != 0)
        return bad_arg("--out", s, "unknown DTYPE (bool, int8-64, uint8-64, float16/32/64)");
    o->ndim = 0;
    for (p = br + 1; *p != ']';) {
        int64_t v = 0;
        if (o->ndim == RT_NPY_MAX_NDIM || *p < '0' || *p > '9')
            return bad_arg("--out", s, "SHAPE is up to 64 non-negative integers, comma-separated");
        for (; *p >= '0' && *p <= '9'; p++) {
            if (v > (INT64_MAX - (*p - '0')) / 10)
                return bad_arg("--out", s, "a dimension overflows int64");
            v = v * 10 + (*p - '0');
        }
        o->shape[o->ndim++] = v;
        if (*p == ',' && p[1] != ']')
            p++;
        else if (*p != ']')
            return bad_arg("--out", s, "SHAPE is up to 64 non-negative integers, comma-separated");
    }
    if (p[1] != '\0')
        return bad_arg("--out", s, "text after ']'");
    return 0;
}

static int parse_call_args(int argc, char **argv, call_args *a)
{
    a->libs = calloc((size_t)argc + 1, sizeof *a->libs);
    a->files = calloc((size_t)argc + 1, sizeof *a->files);
    a->ins = calloc((size_t)argc + 1, sizeof *a->ins);
    a->outs = calloc((size_t)argc + 1, sizeof *a->outs);
    a->outdir = ".";
    a->aot = -1;
    if (!a->libs || !a->files || !a->ins || !a->outs)
        return -1;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(s, "-f") == 0 || strcmp(s, "--in") == 0 || strcmp(s, "--out") == 0 ||
                    strcmp(s, "-o") == 0 || strcmp(s, "--repeat") == 0 || strcmp(s, "-l") == 0 ||
                    strcmp(s, "--graph") == 0 || strcmp(s, "--params") == 0;
        if (takes && !v) {
            fprintf(stderr, "objrt: %s needs an argument\n%s", s, call_usage);
            return -1;
        }
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            fputs(call_usage, stdout);
            exit(0);
        } else if (strcmp(s, "-f") == 0) {
            a->func = argv[++i];
        } else if (strcmp(s, "--graph") == 0) {
            a->graph = argv[++i];
        } else if (strcmp(s, "--params") == 0) {
            a->params = argv[++i];
        } else if (strcmp(s, "--in") == 0) {
            a->ins[a->nins++] = argv[++i];
        } else if (strcmp(s, "--out") == 0) {
            if (parse_out(argv[++i], &a->outs[a->nouts++]) != 0)
                return -1;
        } else if (strcmp(s, "-o") == 0) {
            a->outdir = argv[++i];
        } else if (strcmp(s, "--repeat") == 0) {
            char *end;
            a->repeat = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || a->repeat < 1 || a->repeat > 1000000000L)
                return bad_arg("--repeat", argv[i], "expected a count from 1 to 1000000000");
        } else if (strcmp(s, "--aot") == 0 || strcmp(s, "--packed") == 0) {
            a->aot = s[2] == 'a';
        } else if (strcmp(s, "-l") == 0) {
            a->libs[a->nlibs++] = argv[++i];
        } else if (strncmp(s, "-l", 2) == 0 && s[2]) {
            a->libs[a->nlibs++] = s + 2;
        } else if (s[0] == '-' && s[1]) {
            fprintf(stderr, "objrt: unknown option '%s'\n%s", s, call_usage);
            return -1;
        } else {
            a->files[a->nfiles++] = s;
        }
    }
    if (a->nfiles == 0) {
        fprintf(stderr, "objrt: no input files\n%s", call_usage);
        return -1;
    }
    if (a->graph && (a->func || a->nouts || a->aot != -1)) {
        fprintf(stderr, "objrt: --graph takes no -f, --out, --aot or --packed (outputs are "
                "output_I.npy)\n");
        return -1;
    }
    if (!a->graph && a->params) {
        fprintf(stderr, "objrt: --params needs --graph\n");
        return -1;
    }
    return 0;
}

/* Inputs from .npy files, then outputs, zero-filled: tensors[nins + nouts]. */
static DLTensor **make_tensors(const call_args *a)
{
    DLTensor **t = calloc((size_t)(a->nins + a->nouts) + 1, sizeof *t);
    char err[512];
    if (!t) {
        fprintf(stderr, "objrt: out of memory\n");
        return NULL;
    }
    for (int i = 0; i < a->nins; i++)
        if (rt_npy_load(a->ins[i], &t[i], err, sizeof err) != 0) {
            fprintf(stderr, "objrt: --in %s: %s\n", a->ins[i], err);
            return t;
        }
    for (int i = 0; i < a->nouts; i++) {
        const out_spec *o = &a->outs[i];
        if (TVMArrayAlloc(o->shape, o->ndim, o->dtype.code, o->dtype.bits, o->dtype.lanes,
                          kDLCPU, 0, &t[a->nins + i]) != 0) {
            fprintf(stderr, "objrt: --out %s: %s\n", o->spec, TVMGetLastError());
            return t;
        }
    }
    return t;
}

static void free_tensors(DLTensor **t, int n)
{
    for (int i = 0; t && i < n; i++)
        TVMArrayFree(t[i]);
    free(t);
}

static objrt_unit *load_unit(objrt_ctx *ctx, const call_args *a)
{
    objrt_unit *u = NULL;
    for (int i = 0; i < a->nlibs; i++)
        if (objrt_add_library(ctx, a->libs[i]) != 0) {
            fprintf(stderr, "objrt: %s\n", objrt_error(ctx));
            return NULL;
        }
    if (!(u = objrt_load(ctx, a->files, (size_t)a->nfiles)))
        fprintf(stderr, "objrt: %s\n", objrt_error(ctx));
    return u;
}

static int is_aot_name(const char *f)
{
    size_t n = strlen(f);
    return strncmp(f, "tvmgen_", 7) == 0 && n > 11 && strcmp(f + n - 4, "_run") == 0;
}

typedef struct call {
    TVMFunctionHandle h;
    int aot;
    TVMValue *vals;               /* packed: one DLTensor * per argument */
    int *codes, nargs;
    void **ptrs;                  /* aot: inputs' data pointers, then outputs' */
    int nins;
} call;

static int call_once(const call *c)
{
    TVMValue ret;
    int rcode;
    if (c->aot)
        return ((int32_t (*)(void *, void *))(void (*)(void))objrt_tvm_func_ptr(c->h))(
            c->ptrs, c->ptrs + c->nins);
    return TVMFuncCall(c->h, c->vals, c->codes, c->nargs, &ret, &rcode);
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* N runs of `once` in up to MAX_SAMPLES timed batches (so fast kernels are not
 * timer-bound); prints the median and minimum time per run of the batches. Stops at the
 * first failure. `what` names the thing run, `unit` one run ("call", "run"). */
static int repeat_timed(int (*once)(const void *), const void *arg, long n, const char *what,
                        const char *unit)
{
    static double per_run[MAX_SAMPLES];
    long samples = n < MAX_SAMPLES ? n : MAX_SAMPLES;
    for (long s = 0; s < samples; s++) {
        long batch = n / samples + (s < n % samples), t0 = now_ns();
        for (long i = 0; i < batch; i++)
            if (once(arg) != 0)
                return -1;
        per_run[s] = (double)(now_ns() - t0) / (double)batch;
    }
    qsort(per_run, (size_t)samples, sizeof per_run[0], cmp_double);
    printf("%s: median %.3f us per %s (min %.3f us; %ld %ss in %ld timed batches)\n", what,
           per_run[samples / 2] / 1e3, unit, per_run[0] / 1e3, n, unit, samples);
    return 0;
}

static int call_once_cb(const void *c) { return call_once(c); }

static int find_function(objrt_unit *u, const call_args *a, call *c)
{
    const char *f = a->func;
    c->aot = f && (a->aot == 1 || (a->aot == -1 && is_aot_name(f)));
    c->h = f ? objrt_tvm_func(u, f) : objrt_tvm_main(u);
    if (c->h)
        return 0;
    if (f)
        fprintf(stderr, "objrt: -f %s: the unit neither registers nor defines '%s'\n", f, f);
    else
        fprintf(stderr, "objrt: no -f FUNC given and no usable __tvm_main__ (%s)\n",
                TVMGetLastError());
    return -1;
}

static int save_outputs(const call_args *a, DLTensor **t)
{
    char err[512];
    for (int i = 0; i < a->nouts; i++) {
        char *path = NULL;
        if (asprintf(&path, "%s/%s.npy", a->outdir, a->outs[i].name) < 0) {
            fprintf(stderr, "objrt: out of memory\n");
            return -1;
        }
        if (rt_npy_save(path, t[a->nins + i], err, sizeof err) != 0) {
            fprintf(stderr, "objrt: --out %s: %s: %s\n", a->outs[i].spec, path, err);
            free(path);
            return -1;
        }
        free(path);
    }
    return 0;
}

static int run_call(const call_args *a, objrt_unit *u, DLTensor **t)
{
    call c = { .nargs = a->nins + a->nouts, .nins = a->nins };
    int rc = EXIT_OBJRT;
    if (find_function(u, a, &c) != 0)
        return EXIT_NOENTRY;
    c.vals = calloc((size_t)c.nargs + 1, sizeof *c.vals);
    c.codes = calloc((size_t)c.nargs + 1, sizeof *c.codes);
    c.ptrs = calloc((size_t)c.nargs + 1, sizeof *c.ptrs);
    if (!c.vals || !c.codes || !c.ptrs) {
        fprintf(stderr, "objrt: out of memory\n");
        goto out;
    }
    for (int i = 0; i < c.nargs; i++) {
        c.vals[i].v_handle = t[i];
        c.codes[i] = kTVMDLTensorHandle;
        c.ptrs[i] = t[i]->data;
    }
    const char *name = objrt_tvm_func_name(c.h);
    objrt_set_last_error("%s", "");
    if (a->repeat ? repeat_timed(call_once_cb, &c, a->repeat, name, "call") : call_once(&c)) {
        fprintf(stderr, "objrt: %s failed: %s\n", name,
                TVMGetLastError()[0] ? TVMGetLastError() : "(it set no error message)");
        rc = EXIT_KERNEL;
        goto out;
    }
    rc = save_outputs(a, t) == 0 ? 0 : EXIT_OBJRT;
out:
    free(c.vals);
    free(c.codes);
    free(c.ptrs);
    return rc;
}

/* A whole file into memory (graph JSON, params), at most 1 GiB. */
static char *read_all(const char *opt, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n <= (1L << 30) &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
        fread(buf, 1, (size_t)n, f) == (size_t)n) {
        fclose(f);
        *len = (size_t)n;
        return buf;
    }
    fprintf(stderr, "objrt: %s %s: %s\n", opt, path,
            !f ? strerror(errno) : n > (1L << 30) ? "larger than 1 GiB" : "cannot read it");
    if (f)
        fclose(f);
    free(buf);
    return NULL;
}

/* --in NAME=FILE.npy into graph input NAME. */
static int graph_input(objrt_graph *g, const char *spec)
{
    const char *eq = strchr(spec, '=');
    char name[256], err[512];
    DLTensor *t = NULL;
    int rc;
    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof name)
        return bad_arg("--in", spec, "with --graph, inputs are NAME=FILE.npy");
    memcpy(name, spec, (size_t)(eq - spec));
    name[eq - spec] = '\0';
    if (rt_npy_load(eq + 1, &t, err, sizeof err) != 0)
        return bad_arg("--in", spec, err);
    rc = objrt_graph_set_input(g, name, t);
    TVMArrayFree(t);
    return rc ? bad_arg("--in", spec, TVMGetLastError()) : 0;
}

static int graph_run_cb(const void *g) { return objrt_graph_run((objrt_graph *)g); }

static int run_graph(const call_args *a, objrt_unit *u)
{
    size_t jlen = 0, plen = 0;
    char *json = read_all("--graph", a->graph, &jlen), *params = NULL, err[512];
    objrt_graph *g = NULL;
    int rc = EXIT_OBJRT;
    if (!json || (a->params && !(params = read_all("--params", a->params, &plen))))
        goto out;
    if (!(g = objrt_graph_create(json, jlen, objrt_tvm_module(u)))) {
        fprintf(stderr, "objrt: --graph %s: %s\n", a->graph, TVMGetLastError());
        rc = strstr(TVMGetLastError(), "is not in the module") ? EXIT_NOENTRY : EXIT_OBJRT;
        goto out;
    }
    if (params && objrt_graph_load_params(g, params, plen) != 0) {
        fprintf(stderr, "objrt: --params %s: %s\n", a->params, TVMGetLastError());
        goto out;
    }
    for (int i = 0; i < a->nins; i++)
        if (graph_input(g, a->ins[i]) != 0)
            goto out;
    if (a->repeat ? repeat_timed(graph_run_cb, g, a->repeat, "graph", "run") : objrt_graph_run(g)) {
        fprintf(stderr, "objrt: %s\n", TVMGetLastError());
        rc = EXIT_KERNEL;
        goto out;
    }
    for (int i = 0; i < objrt_graph_num_outputs(g); i++) {
        char *path = NULL;
        if (asprintf(&path, "%s/output_%d.npy", a->outdir, i) < 0 ||
            rt_npy_save(path, objrt_graph_output(g, i), err, sizeof err) != 0) {
            fprintf(stderr, "objrt: output %d: %s: %s\n", i, path ? path : "", path ? err : "out of memory");
            free(path);
            goto out;
        }
        free(path);
    }
    rc = 0;
out:
    objrt_graph_free(g);
    free(json);
    free(params);
    return rc;
}

int cmd_call(int argc, char **argv)
{
    call_args a = { 0 };
    DLTensor **t = NULL;
    objrt_ctx *ctx = NULL;
    objrt_unit *u;
    int rc = EXIT_OBJRT, ntensors = 0;
    if (parse_call_args(argc, argv, &a) != 0)
        goto out;
    if (a.graph) {
        if ((ctx = objrt_new()) && (u = load_unit(ctx, &a)))
            rc = run_graph(&a, u);
        goto out;
    }
    ntensors = a.nins + a.nouts;
    t = make_tensors(&a);
    for (int i = 0; t && i < ntensors; i++)
        if (!t[i])
            goto out;
    if (!t || !(ctx = objrt_new()) || !(u = load_unit(ctx, &a)))
        goto out;
    rc = run_call(&a, u, t);
out:
    objrt_free(ctx);
    free_tensors(t, ntensors);
    free(a.libs);
    free(a.files);
    free(a.ins);
    free(a.outs);
    return rc;
}

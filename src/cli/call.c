/*
 * objrt call - run one TVM-compiled function on tensors read from .npy files.
 *
 *   objrt call [-l LIB]... FILE... [-f FUNC] [--in FILE.npy]... [--out NAME=DTYPE[SHAPE]]...
 *              [-o DIR] [--repeat N] [--aot | --packed]
 *   objrt call [-l LIB]... FILE... --graph GRAPH.json [--params FILE] [--in NAME=FILE.npy]...
 *              [-o DIR] [--repeat N]
 *
 * Exit status: 0; 1 when the kernel fails (its TVMGetLastError text, or a TVM-FFI unit's
 * "<kind>: <message>", on stderr); 125 when
 * objrt fails (usage, a bad .npy or --out, load or link error); 127 when FUNC is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "cli.h"
#include "unpack.h"

/* Inputs from .npy files, then outputs, zero-filled: tensors[nins + nouts]. */
static DLTensor **make_tensors(call_args *a)
{
    DLTensor **t = calloc((size_t)(a->nins + a->nouts) + 1, sizeof *t);
    char err[512];
    if (!t) {
        fprintf(stderr, "objrt: out of memory\n");
        return NULL;
    }
    for (int i = 0; i < a->nins; i++)
        if (a->pre && a->pre[i]) {
            t[i] = a->pre[i];              /* an .npz member, loaded by call_expand_npz */
            a->pre[i] = NULL;
        } else if (npy_load(a->ins[i], &t[i], err, sizeof err) != 0) {
            fprintf(stderr, "objrt: %s %s: %s\n", a->inout[i] ? "--inout" : "--in", a->ins[i], err);
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

/* libm comes first, as TVM's export_library links it: every generated C file includes
 * <math.h>, and objrt itself may have been linked without it (--as-needed drops it). */
/* Archives are read into `ci`, which must outlive the context (the unit's
 * reports may still read its inputs' bytes). */
static objrt_unit *load_unit(objrt_ctx *ctx, const call_args *a, call_inputs *ci)
{
    objrt_unit *u = NULL;
    if (objrt_add_library(ctx, "m") != 0) {
        fprintf(stderr, "objrt: libm for the kernels: %s\n", objrt_error(ctx));
        return NULL;
    }
    for (int i = 0; i < a->nlibs; i++)
        if (objrt_add_library(ctx, a->libs[i]) != 0) {
            fprintf(stderr, "objrt: %s\n", objrt_error(ctx));
            return NULL;
        }
    if (call_inputs_needed(a->files, a->nfiles)) {
        if (call_inputs_read(a->files, a->nfiles, ci) == 0 &&
            !(u = objrt_load_memory(ctx, ci->in, ci->n)))
            fprintf(stderr, "objrt: %s\n", objrt_error(ctx));
        return u;
    }
    if (!(u = objrt_load(ctx, a->files, (size_t)a->nfiles)))
        fprintf(stderr, "objrt: %s\n", objrt_error(ctx));
    return u;
}

typedef struct call {
    TVMFunctionHandle h;
    objrt_unit *unit;
    int abi;
    TVMValue *vals;               /* packed: one DLTensor * per argument */
    int *codes, nargs;
    void **ptrs;                  /* aot: inputs' data pointers, then outputs' */
    DLTensor **tensors;           /* unpacked: the tensors, for objrt_aot_run_unpacked */
    int nins;
} call;

static int call_once(const call *c)
{
    TVMValue ret;
    int rcode;
    switch (c->abi) {
    case ABI_AOT:
        return ((int32_t (*)(void *, void *))(void (*)(void))objrt_tvm_func_ptr(c->h))(
            c->ptrs, c->ptrs + c->nins);
    case ABI_UNPACKED:
        return objrt_aot_run_unpacked(c->unit, objrt_tvm_func_name(c->h), c->tensors, c->nins,
                                      c->tensors + c->nins, c->nargs - c->nins);
    }
    return TVMFuncCall(c->h, c->vals, c->codes, c->nargs, &ret, &rcode);
}

static int call_once_cb(const void *c) { return call_once(c); }

/* EXIT_NOENTRY when FUNC is not there, EXIT_OBJRT when its ABI cannot be told, else 0. */
static int find_function(objrt_unit *u, const call_args *a, call *c)
{
    const char *f = a->func;
    c->unit = u;
    c->h = f ? objrt_tvm_func(u, f) : objrt_tvm_main(u);
    if (!c->h) {
        if (f && (objrt_unit_sym(u, f) || call_registers(u, f)))   /* not as a function */
            fprintf(stderr, "objrt: -f %s: %s\n", f, TVMGetLastError());
        else if (f) {
            fprintf(stderr, "objrt: -f %s: the unit neither registers nor defines '%s'\n", f, f);
            call_suggest(u, f);
        }
        else
            fprintf(stderr, "objrt: no -f FUNC given and no usable __tvm_main__ (%s)\n",
                    TVMGetLastError());
        return EXIT_NOENTRY;
    }
    c->abi = call_pick_abi(u, a, f);
    return c->abi < 0 ? EXIT_OBJRT : 0;
}

/* A tensor as the command line gave it: "--in a.npy (float32[1000])". */
static void print_arg(const call_args *a, const DLTensor *t, int i)
{
    const char *dt = npy_dtype_name(t->dtype);
    if (i < a->nins)
        fprintf(stderr, "%s %s (", a->inout[i] ? "--inout" : "--in", a->ins[i]);
    else
        fprintf(stderr, "--out %s (", a->outs[i - a->nins].spec);
    fprintf(stderr, "%s[", dt ? dt : "?");
    for (int d = 0; d < t->ndim; d++)
        fprintf(stderr, d ? ",%lld" : "%lld", (long long)t->shape[d]);
    fprintf(stderr, "])");
}

/* After a kernel failure, which command-line tensor is which argument: a kernel's message
 * names its own parameters (add.A, num_args), not what the user typed. */
static void explain_args(const call_args *a, DLTensor **t, const char *fn, const char *msg)
{
    const char *p = strstr(msg, "num_args should be ");
    int n = a->nins + a->nouts;
    if (p) {
        int want = atoi(p + strlen("num_args should be "));
        fprintf(stderr, "objrt: %s takes %d tensor argument%s, the command line gives %d "
                "(%d --in, %d --out): inputs are --in FILE.npy, outputs --out "
                "NAME=DTYPE[SHAPE]\n", fn, want, want == 1 ? "" : "s", n, a->nins, a->nouts);
    }
    fprintf(stderr, "objrt: %s's arguments, in order:", fn);
    for (int i = 0; i < n; i++) {
        fprintf(stderr, "%s arg %d = ", i ? ";" : "", i);
        print_arg(a, t[i], i);
    }
    fprintf(stderr, n ? "\n" : " none\n");
}

static int save_one(const char *opt, const char *spec, const char *path, const DLTensor *t)
{
    char err[512];
    if (npy_save(path, t, err, sizeof err) == 0) {
        cli_wrote(path);
        return 0;
    }
    fprintf(stderr, "objrt: %s %s: %s: %s\n", opt, spec, path, err);
    return -1;
}

/* Every --out to DIR/NAME.npy, every --inout back to DIR/FILE.npy. */
/* -o OUT.npz: the --out tensors (and --inout ones) as members of one archive. */
static int save_outputs_npz(const call_args *a, DLTensor **t)
{
    const char **names = calloc((size_t)(a->nins + a->nouts) + 1, sizeof *names);
    const DLTensor **ts = calloc((size_t)(a->nins + a->nouts) + 1, sizeof *ts);
    char (*stems)[256] = calloc((size_t)a->nins + 1, sizeof *stems);
    int n = 0, rc = -1;
    if (names && ts && stems) {
        for (int i = 0; i < a->nins + a->nouts; i++) {
            if (i < a->nins && (!a->inout[i] || !npy_stem(a->ins[i], stems[i], sizeof stems[i])))
                continue;
            names[n] = i < a->nins ? stems[i] : a->outs[i - a->nins].name;
            ts[n++] = t[i];
        }
        rc = call_save_npz(a->outnpz, names, ts, n);
    }
    free(names);
    free(ts);
    free(stems);
    return rc;
}

static int save_outputs(const call_args *a, DLTensor **t)
{
    char path[4096], stem[1024];
    if (a->outnpz)
        return save_outputs_npz(a, t);
    for (int i = 0; i < a->nins + a->nouts; i++) {
        int is_out = i >= a->nins;
        if (!is_out && !a->inout[i])
            continue;
        if (!is_out && !npy_stem(a->ins[i], stem, sizeof stem))
            return cli_bad_arg("call", "--inout", a->ins[i], "file name too long");
        if (snprintf(path, sizeof path, "%s/%s.npy", a->outdir,
                     is_out ? a->outs[i - a->nins].name : stem) >= (int)sizeof path)
            return cli_bad_arg("call", "-o", a->outdir, "path too long");
        if (save_one(is_out ? "--out" : "--inout", is_out ? a->outs[i - a->nins].spec : a->ins[i],
                     path, t[i]) != 0)
            return -1;
    }
    return 0;
}

static int run_call(const call_args *a, objrt_unit *u, DLTensor **t)
{
    call c = { .nargs = a->nins + a->nouts, .nins = a->nins };
    int rc;
    if ((a->abi == ABI_BY_NAME || a->abi == ABI_PACKED) && call_ffi_wanted(u, a->func)) {
        rc = call_ffi_run(u, a->func, t, c.nargs, a->repeat);      /* TVM 0.21+ */
        return rc == 0 && save_outputs(a, t) != 0 ? EXIT_OBJRT : rc;
    }
    rc = find_function(u, a, &c);
    if (rc != 0)
        return rc;
    rc = EXIT_OBJRT;
    c.tensors = t;
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
    if (a->repeat ? cli_repeat_timed(call_once_cb, &c, a->repeat, name, "call") : call_once(&c)) {
        const char *msg = TVMGetLastError();
        fprintf(stderr, "objrt: %s failed: %s\n", name, msg[0] ? msg : "(it set no error message)");
        explain_args(a, t, name, msg);
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

static int call_main(int argc, char **argv)
{
    call_args a = { 0 };
    call_inputs ci = { 0 };
    DLTensor **t = NULL;
    objrt_ctx *ctx = NULL;
    objrt_unit *u;
    int rc = EXIT_OBJRT, ntensors = 0;
    int parsed = parse_call_args(&cli_call, argc, argv, &a);
    if (parsed != 0) {
        rc = parsed > 0 ? 0 : EXIT_OBJRT;
        goto out;
    }
    objrt_crash_handler_install();   /* a fatal signal in a kernel is reported as by run */
    if (cli_prepare_outdir("-o", a.outdir) != 0)
        goto out;
    if (a.list) {
        if ((ctx = objrt_new()) && (u = load_unit(ctx, &a, &ci)))
            if ((rc = call_ffi_list(u)) == -2)
                rc = call_list(u);
        goto out;
    }
    if (a.graph) {
        if ((ctx = objrt_new()) && (u = load_unit(ctx, &a, &ci)))
            rc = run_graph(&a, u);
        goto out;
    }
    if (call_expand_npz(&a) != 0)
        goto out;
    ntensors = a.nins + a.nouts;
    t = make_tensors(&a);
    for (int i = 0; t && i < ntensors; i++)
        if (!t[i])
            goto out;
    if (!t || !(ctx = objrt_new()) || !(u = load_unit(ctx, &a, &ci)))
        goto out;
    rc = run_call(&a, u, t);
out:
    objrt_free(ctx);
    call_inputs_free(&ci);
    free_tensors(t, ntensors);
    free_call_args(&a);
    return rc;
}

const cli_command cli_call = {
    .name = "call",
    .synopsis = call_synopsis,
    .summary = call_summary,
    .help = call_help,
    .main = call_main,
};

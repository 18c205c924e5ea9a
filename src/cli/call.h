/* call.h - `objrt call`'s parts: its arguments (call_opts.c), the kernel call (call.c) and
 * the graph executor run (call_graph.c). */
#ifndef OBJRT_CLI_CALL_H
#define OBJRT_CLI_CALL_H

#include "cli.h"
#include "objrt.h"
#include "objrt/tvm_backend.h"
#include "npy.h"

/* --out NAME=DTYPE[SHAPE] */
typedef struct out_spec {
    const char *spec;
    char name[128];
    DLDataType dtype;
    int ndim;
    int64_t shape[NPY_MAX_NDIM];
} out_spec;

typedef struct call_args {
    const char **libs, **files, **ins;
    char *inout;                  /* inout[i]: --in i came from --inout (written back) */
    DLTensor **pre;               /* pre[i]: input i already loaded (an .npz member) */
    char **labels;                /* "X.npz[NAME]" names of those, owned */
    int nlabels;
    char *outdirbuf;              /* owned: outdir when it is OUT.npz's folder */
    const char *outnpz;           /* -o OUT.npz: every output into it (outdir: its folder) */
    out_spec *outs;
    int nlibs, nfiles, nins, nouts;
    const char *func, *outdir, *graph, *params;
    long repeat;
    int list;                     /* --list */
    int abi;                      /* call_abi; ABI_BY_NAME unless --aot/--packed/--unpacked */
    /* options given at most once (cli_once): -f, -o, --graph, --params, --repeat, the ABI */
    cli_seen func_seen, outdir_seen, graph_seen, params_seen, repeat_seen, abi_seen;
} call_args;

/* How FUNC is called. TVM 0.8's AOT output has a packed tvmgen_<n>_run and a
 * tvmgen_<n>_run_model taking raw data pointers; from 0.9 the C interface's
 * tvmgen_<n>_run takes one struct of data pointers for the inputs, one for the outputs. */
enum call_abi {
    ABI_BY_NAME = -1,
    ABI_PACKED,                   /* TVMValue args of DLTensor *, type codes, count */
    ABI_AOT,                      /* >= 0.9: (struct inputs *, struct outputs *) */
    ABI_UNPACKED,                 /* 0.8 run_model: (void *in0, ..., void *out0) */
};

/* The ABI to call `func` of `u` with (call_abi.c): the one asked for, else told from the
 * name and what else the unit defines; -1 after a message naming the choices when it
 * cannot be told. */
int call_pick_abi(objrt_unit *u, const call_args *a, const char *func);
/* The same from the name and the unit alone, silently: -1 when it cannot be told. */
int call_abi_by_name(objrt_unit *u, const char *func);

/* call_list.c: --list prints every function -f can call, with its ABI (status 0); after
 * a missing -f FUNC, the nearest names the unit has ("did you mean"). */
int call_list(objrt_unit *u);
void call_suggest(objrt_unit *u, const char *func);
/* Whether the unit registers `func` (a system library), as code or not. */
int call_registers(objrt_unit *u, const char *func);
const char *call_abi_name(int abi);

/* TVM-FFI units (call_ffi.c): whether func (NULL: the entry) of u is called with the
 * TVM-FFI convention, and the call on the tensors (an exit status; errors printed). */
int call_ffi_wanted(objrt_unit *u, const char *func);
int call_ffi_run(objrt_unit *u, const char *func, DLTensor **t, int n, long repeat);
/* --list for a TVM-FFI unit: each __tvm_ffi_NAME function as NAME (0.21: its functions).
 * An exit status, or -2 when the unit has no TVM-FFI function (list it the old way). */
int call_ffi_list(objrt_unit *u);

/* cli_call's texts (call_opts.c, beside the options they describe). */
extern const char call_synopsis[], call_summary[], call_help[];

/* argv[0] is "call", cmd cli_call (its --help). 0 to go on, 1 when --help/--version was answered, -1 on a usage
 * error (message printed). Free with free_call_args. */
int parse_call_args(const cli_command *cmd, int argc, char **argv, call_args *a);
void free_call_args(call_args *a);

/* call_npz.c: .npz inputs and outputs. */
#define CALL_MAX_NPZ_MEMBERS 1024
int call_is_npz(const char *path);
int call_expand_npz(call_args *a);
int call_save_npz(const char *path, const char *const *names, const DLTensor *const *t, int n);
int call_graph_npz_input(objrt_graph *g, const char *path);

/* `-e`-less graph mode: GRAPH.json + params + inputs, outputs to DIR. An exit status. */
int run_graph(const call_args *a, objrt_unit *u);

#endif

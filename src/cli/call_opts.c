/* call_opts.c - `objrt call`'s command line: options, --out specs, their checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "call.h"
#include "cli.h"

/* The texts of cli_call (call.c): usage, summary and help. */
const char call_synopsis[] =
        "objrt call [-l LIB]... FILE... [-f FUNC] [--in FILE.npy]... [--inout FILE.npy]...\n"
        "           [--out NAME=DTYPE[SHAPE]]... [-o DIR] [--repeat N]\n"
        "           [--aot | --packed | --unpacked]\n"
        "objrt call [-l LIB]... FILE... --list\n"
        "objrt call [-l LIB]... FILE... --graph GRAPH.json [--params FILE]\n"
        "           [--in NAME=FILE.npy]... [-o DIR] [--repeat N]\n";
const char call_summary[] =
        "link FILE... and call one TVM-compiled function on tensors from .npy/.npz\n"
        "        files, writing its outputs as .npy files; or run a TVM graph\n";
const char call_help[] =
    "Link FILE... as one unit, call FUNC once with the --in tensors then the --out tensors\n"
    "(in command-line order), and write each output to DIR/NAME.npy (DIR defaults to .,\n"
    "and is created as mkdir -p would, before anything runs); each file written is named\n"
    "on stdout, one line each. libm is always linked. An option that takes one value\n"
    "(-f, -o, --repeat, --graph, --params, the ABI) given twice differently, or two\n"
    "outputs of one NAME, is refused.\n"
    "FILE... are objects, static archives (every object member is linked, as ld's\n"
    "--whole-archive would: the archive is the unit to call) or export_library tars\n"
    "(their .o members).\n"
    "  -f FUNC        a system-lib registration or a function of the unit (TVM packed\n"
    "                 signature); without -f, the function the unit's __tvm_main__ names\n"
    "  --in FILE.npy  an input tensor: .npy format 1.0/2.0, C order, little-endian bool,\n"
    "                 int8-64, uint8-64, float16/32/64; data 128-byte aligned\n"
    "  --in FILE.npz  each member an input, in the archive's order (np.savez, tvmc)\n"
    "  -o OUT.npz     every output into one .npz (NAME.npy members) instead of a DIR\n"
    "  --inout FILE.npy  an input the kernel updates in place, in the inputs' order, and\n"
    "                 written back after the call as DIR/FILE.npy\n"
    "  --out NAME=DTYPE[SHAPE]   an output tensor, zero-filled: e.g. y=float32[4,8], s=int64[]\n"
    "  --repeat N     call N times and print the median time per call\n"
    "  --aot          FUNC is TVM >= 0.9's AOT entry, int32_t FUNC(struct inputs *,\n"
    "                 struct outputs *), each struct one data pointer per tensor\n"
    "  --packed       FUNC is a packed function (TVM 0.8's tvmgen_<name>_run is one)\n"
    "  --unpacked     FUNC takes one raw data pointer per tensor as positional arguments\n"
    "                 (TVM 0.8's tvmgen_<name>_run_model, at most 16 tensors)\n"
    "                 Without these, tvmgen_<name>_run_model is --unpacked, and\n"
    "                 tvmgen_<name>_run is --packed when the unit also defines _run_model\n"
    "                 (0.8), --aot when it defines tvmgen_<name>___tvm_main__ (>= 0.9).\n"
    "                 Raw pointers carry no shape: the tensors must have the sizes the\n"
    "                 model was compiled for.\n"
    "  --list         print every function -f can call, with its ABI, and exit\n"
    "  -l LIB         make a shared library's symbols available\n"
    "ABIs: TVM <= 0.20's packed functions (TVMValue and type codes; FUNC as named), and\n"
    "TVM-FFI of TVM 0.21-0.26 (TVMFFIAny; FUNC is __tvm_ffi_FUNC, without -f __tvm_ffi_main or\n"
    "0.21's __tvm_main__; tensors passed as DLTensor pointers; errors printed as KIND: MESSAGE).\n"
    "\n"
    "With --graph, run TVM's graph executor: GRAPH.json as relay.build writes it, FILE... holding its\n"
    "fused functions, parameters from a runtime.save_param_dict blob, inputs by name;\n"
    "output i is written to DIR/output_i.npy.\n"
    "\n"
    "exit status: 0; 1 if the kernel fails; 125 if objrt fails; 127 if FUNC is missing.\n";

static int bad_arg(const char *opt, const char *val, const char *why)
{
    return cli_bad_arg("call", opt, val, why);
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
    if (npy_dtype_by_name(dtype, &o->dtype) != 0)
        return bad_arg("--out", s, "unknown DTYPE (bool, int8-64, uint8-64, float16/32/64, "
                       "or numpy's spellings of them: f4, <f4, single, double, ?)");
    o->ndim = 0;
    for (p = br + 1; *p != ']';) {
        int64_t v = 0;
        if (o->ndim == NPY_MAX_NDIM || *p < '0' || *p > '9')
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

enum { OPT_IN = 0x200, OPT_OUT, OPT_REPEAT, OPT_AOT, OPT_PACKED, OPT_UNPACKED, OPT_GRAPH,
       OPT_PARAMS, OPT_LIST, OPT_INOUT };

static const struct option call_longopts[] = {
    { "in", required_argument, NULL, OPT_IN },
    { "out", required_argument, NULL, OPT_OUT },
    { "repeat", required_argument, NULL, OPT_REPEAT },
    { "aot", no_argument, NULL, OPT_AOT },
    { "packed", no_argument, NULL, OPT_PACKED },
    { "unpacked", no_argument, NULL, OPT_UNPACKED },
    { "list", no_argument, NULL, OPT_LIST },
    { "inout", required_argument, NULL, OPT_INOUT },
    { "graph", required_argument, NULL, OPT_GRAPH },
    { "params", required_argument, NULL, OPT_PARAMS },
    { "function", required_argument, NULL, 'f' },
    { "output-dir", required_argument, NULL, 'o' },
    { "library", required_argument, NULL, 'l' },
    { 0 }
};

static int on_option(void *state, int opt, char *arg)
{
    call_args *a = state;
    uint64_t v;
    switch (opt) {
    case 1: a->files[a->nfiles++] = arg; return 0;
    case 'f':
        a->func = arg;
        return cli_once(&a->func_seen, "-f", arg);
    case 'o':
        a->outdir = arg;
        a->outnpz = call_is_npz(arg) ? arg : NULL;
        return cli_once(&a->outdir_seen, "-o", arg);
    case 'l': a->libs[a->nlibs++] = arg; return 0;
    case OPT_IN: a->ins[a->nins++] = arg; return 0;
    case OPT_INOUT:
        if (!npy_stem(arg, NULL, 0))
            return bad_arg("--inout", arg, "expected FILE.npy (written back as DIR/FILE.npy)");
        a->inout[a->nins] = 1;
        a->ins[a->nins++] = arg;
        return 0;
    case OPT_OUT: return parse_out(arg, &a->outs[a->nouts++]);
    case OPT_GRAPH:
        a->graph = arg;
        return cli_once(&a->graph_seen, "--graph", arg);
    case OPT_PARAMS:
        a->params = arg;
        return cli_once(&a->params_seen, "--params", arg);
    case OPT_AOT: a->abi = ABI_AOT; return cli_once(&a->abi_seen, "--aot", NULL);
    case OPT_PACKED: a->abi = ABI_PACKED; return cli_once(&a->abi_seen, "--packed", NULL);
    case OPT_UNPACKED: a->abi = ABI_UNPACKED; return cli_once(&a->abi_seen, "--unpacked", NULL);
    case OPT_LIST: a->list = 1; return 0;
    case OPT_REPEAT:
        if (cli_once(&a->repeat_seen, "--repeat", arg) ||
            cli_number("--repeat", arg, 1, 1000000000, &v))
            return -1;
        a->repeat = (long)v;
        return 0;
    }
    return -1;
}

/* Two outputs written to one file: the second would silently replace the first. Every
 * --out NAME is DIR/NAME.npy (or member NAME.npy of OUT.npz), every --inout FILE.npy
 * DIR/FILE.npy; none may repeat another. */
static int check_output_names(const call_args *a)
{
    char stem[256];
    const char *name[2], *opt[2], *given[2];
    for (int i = 0; i < a->nins + a->nouts; i++) {
        if (i < a->nins && (!a->inout[i] || !npy_stem(a->ins[i], stem, sizeof stem)))
            continue;
        for (int j = 0; j < i; j++) {
            char other[256];
            if (j < a->nins && (!a->inout[j] || !npy_stem(a->ins[j], other, sizeof other)))
                continue;
            name[0] = j < a->nins ? other : a->outs[j - a->nins].name;
            name[1] = i < a->nins ? stem : a->outs[i - a->nins].name;
            if (strcmp(name[0], name[1]) != 0)
                continue;
            opt[0] = j < a->nins ? "--inout" : "--out";
            opt[1] = i < a->nins ? "--inout" : "--out";
            given[0] = j < a->nins ? a->ins[j] : a->outs[j - a->nins].spec;
            given[1] = i < a->nins ? a->ins[i] : a->outs[i - a->nins].spec;
            char esc[2][256];
            fprintf(stderr, "objrt: %s '%s' and %s '%s' both write %s.npy: give each output "
                    "its own name\n", opt[0], objrt_escape(given[0], esc[0], sizeof esc[0]),
                    opt[1], objrt_escape(given[1], esc[1], sizeof esc[1]), name[1]);
            return -1;
        }
    }
    return 0;
}

/* Options that contradict each other, found before anything is loaded. */
static int check_combination(const call_args *a)
{
    if (a->nfiles == 0) {
        fprintf(stderr, "objrt: no input files\n"
                "Try 'objrt call --help' for more information.\n");
        return -1;
    }
    for (int i = 0; a->graph && i < a->nins; i++)
        if (a->inout[i]) {
            fprintf(stderr, "objrt: --graph takes no --inout (graph inputs are NAME=FILE.npy)\n");
            return -1;
        }
    if (a->graph && (a->func || a->nouts || a->abi != ABI_BY_NAME)) {
        fprintf(stderr, "objrt: --graph takes no -f, --out, --aot, --packed or --unpacked "
                "(outputs are output_I.npy)\n");
        return -1;
    }
    if (!a->graph && a->params) {
        fprintf(stderr, "objrt: --params needs --graph\n");
        return -1;
    }
    return check_output_names(a);
}

int parse_call_args(const cli_command *cmd, int argc, char **argv, call_args *a)
{
    int rest = argc, rc;
    a->libs = calloc((size_t)argc + 1, sizeof *a->libs);
    a->files = calloc((size_t)argc + 1, sizeof *a->files);
    a->ins = calloc((size_t)argc + 1, sizeof *a->ins);
    a->inout = calloc((size_t)argc + 1, sizeof *a->inout);
    a->labels = calloc(CALL_MAX_NPZ_MEMBERS, sizeof *a->labels);
    a->outs = calloc((size_t)argc + 1, sizeof *a->outs);
    a->outdir = ".";
    a->abi = ABI_BY_NAME;
    if (!a->libs || !a->files || !a->ins || !a->inout || !a->labels || !a->outs) {
        fprintf(stderr, "objrt: out of memory\n");
        return -1;
    }
    rc = cli_parse(cmd, argc, argv, "f:o:l:", call_longopts, on_option, a, &rest);
    if (rc != 0)
        return rc;
    if (rest < argc)
        return bad_arg("--", argv[rest], "objrt call takes no ARGs after '--'");
    if (a->outnpz) {              /* -o OUT.npz: its folder is what must exist */
        const char *slash = strrchr(a->outnpz, '/');
        if (!(a->outdirbuf = strndup(a->outnpz, slash ? (size_t)(slash - a->outnpz) : 0)))
            return -1;
        a->outdir = slash && slash != a->outnpz ? a->outdirbuf : slash ? "/" : ".";
    }
    return check_combination(a);
}

void free_call_args(call_args *a)
{
    free(a->libs);
    free(a->files);
    free(a->ins);
    free(a->inout);
    free(a->pre);
    for (int i = 0; a->labels && i < a->nlabels; i++)
        free(a->labels[i]);
    free(a->labels);
    free(a->outdirbuf);
    free(a->outs);
}

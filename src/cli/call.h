/* call.h - `objrt call`'s parts: its arguments (call_opts.c), the kernel call (call.c) and
 * the graph executor run (call_graph.c). */
#ifndef OBJRT_CLI_CALL_H
#define OBJRT_CLI_CALL_H

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
    out_spec *outs;
    int nlibs, nfiles, nins, nouts;
    const char *func, *outdir, *graph, *params;
    long repeat;
    int aot;                      /* -1 by name, 0 packed, 1 aot */
} call_args;

extern const char call_usage[];

/* argv[0] is "call". 0 to go on, 1 when --help/--version was answered, -1 on a usage
 * error (message printed). Free with free_call_args. */
int parse_call_args(int argc, char **argv, call_args *a);
void free_call_args(call_args *a);

/* `-e`-less graph mode: GRAPH.json + params + inputs, outputs to DIR. An exit status. */
int run_graph(const call_args *a, objrt_unit *u);

#endif

/* call_graph.c - `objrt call --graph`: TVM's graph executor on .npy inputs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/regular.h"
#include "call.h"
#include "cli.h"

static int bad_arg(const char *opt, const char *val, const char *why)
{
    return cli_bad_arg("call", opt, val, why);
}

/* A whole file into memory (graph JSON, params), at most 1 GiB. */
static char *read_all(const char *opt, const char *path, size_t *len)
{
    const char *why = "cannot read it";
    FILE *f = objrt_fopen_regular(path, &why);     /* a FIFO would block forever */
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
            !f ? why : n > (1L << 30) ? "larger than 1 GiB" : "cannot read it");
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
    if (!eq && call_is_npz(spec))
        return call_graph_npz_input(g, spec);        /* members by name, as tvmc's inputs */
    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof name)
        return bad_arg("--in", spec, "with --graph, inputs are NAME=FILE.npy or FILE.npz");
    memcpy(name, spec, (size_t)(eq - spec));
    name[eq - spec] = '\0';
    if (npy_load(eq + 1, &t, err, sizeof err) != 0)
        return bad_arg("--in", spec, err);
    rc = objrt_graph_set_input(g, name, t);
    TVMArrayFree(t);
    return rc ? bad_arg("--in", spec, TVMGetLastError()) : 0;
}

/* -o OUT.npz: output_0 ... output_N-1 as members, as tvmc run writes them. */
static int save_graph_npz(const call_args *a, objrt_graph *g)
{
    int n = objrt_graph_num_outputs(g), rc = -1;
    char (*names)[32] = calloc((size_t)n + 1, sizeof *names);
    const char **np = calloc((size_t)n + 1, sizeof *np);
    const DLTensor **ts = calloc((size_t)n + 1, sizeof *ts);
    if (names && np && ts) {
        for (int i = 0; i < n; i++) {
            snprintf(names[i], sizeof names[i], "output_%d", i);
            np[i] = names[i];
            ts[i] = objrt_graph_output(g, i);
        }
        rc = call_save_npz(a->outnpz, np, ts, n);
    }
    free(names);
    free(np);
    free(ts);
    return rc;
}

static int graph_run_cb(const void *g) { return objrt_graph_run((objrt_graph *)g); }

int run_graph(const call_args *a, objrt_unit *u)
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
    if (a->repeat ? cli_repeat_timed(graph_run_cb, g, a->repeat, "graph", "run") : objrt_graph_run(g)) {
        fprintf(stderr, "objrt: %s\n", TVMGetLastError());
        rc = EXIT_KERNEL;
        goto out;
    }
    if (a->outnpz) {
        rc = save_graph_npz(a, g) == 0 ? 0 : EXIT_OBJRT;
        goto out;
    }
    for (int i = 0; i < objrt_graph_num_outputs(g); i++) {
        char *path = NULL;
        if (asprintf(&path, "%s/output_%d.npy", a->outdir, i) < 0 ||
            npy_save(path, objrt_graph_output(g, i), err, sizeof err) != 0) {
            fprintf(stderr, "objrt: output %d: %s: %s\n", i, path ? path : "", path ? err : "out of memory");
            free(path);
            goto out;
        }
        cli_wrote(path);
        free(path);
    }
    rc = 0;
out:
    objrt_graph_free(g);
    free(json);
    free(params);
    return rc;
}


/* call_npz.c - `objrt call` with .npz files, as `tvmc run` uses them: --in X.npz gives
 * each member as an input (kernel calls: in the archive's order; --graph: by member name),
 * and -o OUT.npz writes every output into one archive instead of OUT/NAME.npy files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "call.h"
#include "cli.h"
#include "npz.h"

int call_is_npz(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcmp(path + n - 4, ".npz") == 0;
}

/* The kernel call's inputs with every .npz replaced by its members, labelled
 * "X.npz[NAME]"; their tensors are loaded already (a->pre[i]). */
int call_expand_npz(call_args *a)
{
    int n = 0, cap = a->nins + 1;
    const char **ins = calloc((size_t)cap, sizeof *ins);
    char *inout = calloc((size_t)cap, 1);
    DLTensor **pre = calloc((size_t)cap, sizeof *pre);
    char err[512];
    if (!ins || !inout || !pre)
        goto oom;
    for (int i = 0; i < a->nins; i++) {
        npz_file z;
        if (!call_is_npz(a->ins[i])) {
            ins[n] = a->ins[i], inout[n] = a->inout[i], n++;
            continue;
        }
        if (a->inout[i]) {
            free(ins), free(inout), free(pre);
            return cli_bad_arg("call", "--inout", a->ins[i], "an .npz cannot be updated in place");
        }
        if (npz_read(a->ins[i], &z, err, sizeof err) != 0) {
            free(ins), free(inout), free(pre);
            return cli_bad_arg("call", "--in", a->ins[i], err);
        }
        cap += z.n;
        const char **ins2 = realloc(ins, (size_t)cap * sizeof *ins);
        if (ins2)
            ins = ins2;
        char *inout2 = realloc(inout, (size_t)cap);
        if (inout2)
            inout = inout2;
        DLTensor **pre2 = realloc(pre, (size_t)cap * sizeof *pre);
        if (pre2)
            pre = pre2;
        if (!ins2 || !inout2 || !pre2)
            goto oom;
        for (int k = 0; k < z.n; k++) {
            char *label = NULL;
            if (a->nlabels == CALL_MAX_NPZ_MEMBERS) {
                npz_free(&z);
                free(ins), free(inout), free(pre);
                return cli_bad_arg("call", "--in", a->ins[i], "more than 1024 .npz members in all");
            }
            char esc[256];          /* the label is printed: the name is the file's bytes */
            if (asprintf(&label, "%s[%s]", a->ins[i], objrt_escape(z.m[k].name, esc, sizeof esc)) < 0)
                goto oom;
            a->labels[a->nlabels++] = label;      /* freed with the arguments */
            ins[n] = label, inout[n] = 0, pre[n] = z.m[k].t, n++;
            z.m[k].t = NULL;
        }
        npz_free(&z);
    }
    free(a->ins), free(a->inout), free(a->pre);
    a->ins = ins, a->inout = inout, a->pre = pre, a->nins = n;
    return 0;
oom:
    free(ins), free(inout), free(pre);
    fprintf(stderr, "objrt: out of memory\n");
    return -1;
}

int call_save_npz(const char *path, const char *const *names, const DLTensor *const *t, int n)
{
    char err[512];
    if (npz_write(path, names, t, n, err, sizeof err) == 0) {
        cli_wrote(path);
        return 0;
    }
    return cli_bad_arg("call", "-o", path, err);
}

int call_graph_npz_input(objrt_graph *g, const char *path)
{
    npz_file z;
    char err[512];
    int rc = 0;
    if (npz_read(path, &z, err, sizeof err) != 0)
        return cli_bad_arg("call", "--in", path, err);
    for (int k = 0; k < z.n && rc == 0; k++)
        if (objrt_graph_set_input(g, z.m[k].name, z.m[k].t) != 0) {
            char esc[256];
            snprintf(err, sizeof err, "member %s: %s", objrt_escape(z.m[k].name, esc, sizeof esc),
                     TVMGetLastError());
            rc = cli_bad_arg("call", "--in", path, err);
        }
    npz_free(&z);
    return rc;
}

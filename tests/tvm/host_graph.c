/* host_graph.c - the graph executor from a C host: a graph JSON, a params blob and a unit
 * loaded by objrt holding the fused functions (system-lib registrations).
 *
 *   host_graph ok DIR GRAPH PARAMS - UNIT...      run with DIR/gx.bin as input "x", write
 *                                                 DIR/gout.bin; API checks as PASS/FAIL lines
 *   host_graph create|params|run DIR GRAPH PARAMS REGEX UNIT...
 *                                                 that stage must fail with a last error
 *                                                 matching REGEX (POSIX ERE); exit 0 if so */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <objrt.h>
#include <objrt/tvm_backend.h>

static const char *dir;

static void *slurp(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "host_graph: cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int matches(const char *text, const char *pattern)
{
    regex_t re;
    int ok = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) == 0 && regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

static void report(const char *name, int ok, const char *why)
{
    if (ok)
        printf("PASS graph-%s\n", name);
    else
        printf("FAIL graph-%s: %s (last error: %s)\n", name, why, TVMGetLastError());
}

int main(int argc, char **argv)
{
    size_t jlen, plen, xlen;
    int64_t xshape[2] = {1, 8};
    TVMArrayHandle x, xi;
    if (argc < 7) {
        fprintf(stderr, "usage: host_graph MODE DIR GRAPH PARAMS REGEX UNIT...\n");
        return 2;
    }
    const char *mode = argv[1], *pattern = argv[5];
    dir = argv[2];
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load(ctx, (const char *const *)argv + 6, (size_t)argc - 6);
    if (!u) {
        fprintf(stderr, "host_graph: %s\n", objrt_error(ctx));
        return 2;
    }
    char *json = slurp(argv[3], &jlen), *params = slurp(argv[4], &plen), *xb = slurp("gx.bin", &xlen);
    if (TVMArrayAlloc(xshape, 2, kDLFloat, 32, 1, kDLCPU, 0, &x) != 0 ||
        TVMArrayCopyFromBytes(x, xb, xlen) != 0 ||
        TVMArrayAlloc(xshape, 2, kDLInt, 32, 1, kDLCPU, 0, &xi) != 0) {
        fprintf(stderr, "host_graph: input: %s\n", TVMGetLastError());
        return 2;
    }
    objrt_graph *g = objrt_graph_create(json, jlen, objrt_tvm_module(u));
    int stage_failed = !g ? 1 : objrt_graph_load_params(g, params, plen) ? 2
                     : objrt_graph_set_input(g, "x", x) ? 3 : objrt_graph_run(g) ? 4 : 0;
    int rc = 0;
    if (strcmp(mode, "ok") == 0) {
        report("create-load-run", stage_failed == 0, "a stage failed");
        if (stage_failed == 0) {
            const DLTensor *out = objrt_graph_output(g, 0);
            FILE *f;
            char path[4096];
            snprintf(path, sizeof path, "%s/gout.bin", dir);
            report("one-output", objrt_graph_num_outputs(g) == 1 && out && out->ndim == 2 &&
                   out->shape[1] == 4 && !objrt_graph_output(g, 1), "not one [1,4] output");
            if (out && (f = fopen(path, "wb"))) {
                fwrite(out->data, 4, 4, f);
                fclose(f);
            }
            report("set-input-wrong-dtype", objrt_graph_set_input(g, "x", xi) == -1 &&
                   matches(TVMGetLastError(), "input 'x': dtype"), "an int32 x was accepted");
            report("set-input-unknown", objrt_graph_set_input(g, "y", x) == -1 &&
                   matches(TVMGetLastError(), "'y' is not an input"), "an unknown input was accepted");
            report("run-again", objrt_graph_run(g) == 0, "a second run failed");
        }
        rc = stage_failed ? 1 : 0;
    } else {
        int want = strcmp(mode, "create") == 0 ? 1 : strcmp(mode, "params") == 0 ? 2 : 4;
        rc = stage_failed == want && matches(TVMGetLastError(), pattern) ? 0 : 1;
        if (rc)
            printf("stage %d failed (expected %d), last error: %s\n", stage_failed, want,
                   TVMGetLastError());
    }
    objrt_graph_free(g);
    TVMArrayFree(x);
    TVMArrayFree(xi);
    free(json), free(params), free(xb);
    objrt_free(ctx);
    return rc;
}

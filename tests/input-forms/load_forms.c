/* load_forms.c - 43-input-forms' host: loads its FILE arguments as one unit through the C
 * API and prints entry(20), or the error. `file` uses objrt_load on the paths; `memory`
 * reads each file into a buffer one byte past an aligned start (a caller's bytes need not
 * be aligned) and uses objrt_load_memory, naming each input by its path.
 *   load_forms file|memory FILE...                                                       */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <objrt.h>

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf + 1, 1, (size_t)n, f) == (size_t)n)
        *size = (size_t)n;
    else {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int n = argc - 2, rc = 1;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = NULL;
    char **bufs = calloc((size_t)n, sizeof *bufs);
    if (strcmp(argv[1], "file") == 0) {
        u = objrt_load(ctx, (const char *const *)argv + 2, (size_t)n);
    } else {
        objrt_input *in = calloc((size_t)n, sizeof *in);
        for (int i = 0; i < n; i++) {
            size_t size = 0;
            if (!(bufs[i] = slurp(argv[2 + i], &size))) {
                fprintf(stderr, "load_forms: cannot read %s\n", argv[2 + i]);
                return 2;
            }
            in[i] = (objrt_input){ argv[2 + i], bufs[i] + 1, size };
        }
        u = objrt_load_memory(ctx, in, (size_t)n);
        free(in);
    }
    int (*entry)(int) = u ? (int (*)(int))objrt_unit_sym(u, "entry") : NULL;
    if (entry) {
        printf("entry(20) = %d\n", entry(20));
        rc = 0;
    } else {
        printf("error: %s\n", objrt_error(ctx));
    }
    if (u)
        objrt_unload(u);
    objrt_free(ctx);
    for (int i = 0; i < n; i++)
        free(bufs[i]);
    free(bufs);
    return rc;
}

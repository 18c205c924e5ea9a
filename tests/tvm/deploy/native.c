/* native.c - the native-link side of tests/suites/57-tvm-deploy.sh: the kernel object is
 * linked into this program by the system linker (with libobjrt.a for the TVM backend
 * functions, -lm as TVM's export_library links), called the way its release calls it,
 * and its outputs are written as .npy for comparison with `objrt call`'s.
 *
 *   native KIND OUTDIR IN.npy... -- OUTNAME=TEMPLATE.npy...
 * KIND: packed (TVM packed signature), aot (>= 0.9 struct interface), unpacked (0.8
 * run_model: positional raw data pointers). ENTRY (-DENTRY=) is the function called.
 * Outputs are zero-filled tensors shaped like their template. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

#define MAXT 16
typedef int (*packed_fn)(TVMValue *, int *, int, TVMValue *, int *, void *);
extern char ENTRY[];           /* any type: cast at the call */

static int call(const char *kind, DLTensor **t, int nin, int n)
{
    void *p[MAXT];
    for (int i = 0; i < n; i++)
        p[i] = t[i]->data;
    if (strcmp(kind, "packed") == 0) {
        TVMValue v[MAXT], ret;
        int codes[MAXT], rc;
        for (int i = 0; i < n; i++) {
            v[i].v_handle = t[i];
            codes[i] = kTVMDLTensorHandle;
        }
        return ((packed_fn)(void *)ENTRY)(v, codes, n, &ret, &rc, NULL);
    }
    if (strcmp(kind, "aot") == 0)
        return ((int32_t (*)(void **, void **))(void *)ENTRY)(p, p + nin);
    switch (n) {      /* unpacked: as many pointer arguments as tensors */
    case 2: return ((int32_t (*)(void *, void *))(void *)ENTRY)(p[0], p[1]);
    case 3: return ((int32_t (*)(void *, void *, void *))(void *)ENTRY)(p[0], p[1], p[2]);
    case 4: return ((int32_t (*)(void *, void *, void *, void *))(void *)ENTRY)(p[0], p[1], p[2], p[3]);
    }
    return -2;
}

int main(int argc, char **argv)
{
    DLTensor *t[MAXT];
    const char *names[MAXT];
    char err[512], path[4096];
    int n = 0, nin = -1;
    for (int i = 3; i < argc && n < MAXT; i++) {
        if (strcmp(argv[i], "--") == 0) {
            nin = n;
            continue;
        }
        char *eq = nin >= 0 ? strchr(argv[i], '=') : NULL;
        names[n] = argv[i];
        if (eq)
            *eq = '\0';
        if (npy_load(eq ? eq + 1 : argv[i], &t[n], err, sizeof err) != 0) {
            fprintf(stderr, "native: %s: %s\n", argv[i], err);
            return 2;
        }
        if (eq)
            memset(t[n]->data, 0, (size_t)objrt_tensor_nbytes(t[n]));
        n++;
    }
    int rc = call(argv[1], t, nin, n);
    if (rc != 0) {
        fprintf(stderr, "native: %s returned %d: %s\n", argv[1], rc, TVMGetLastError());
        rc = 1;
    }
    for (int i = nin; rc == 0 && i < n; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", argv[2], names[i]);
        if (npy_save(path, t[i], err, sizeof err) != 0) {
            fprintf(stderr, "native: %s: %s\n", path, err);
            rc = 2;
        }
    }
    for (int i = 0; i < n; i++)
        TVMArrayFree(t[i]);
    return rc;
}

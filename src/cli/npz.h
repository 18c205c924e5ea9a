/* npz.h - NumPy .npz files (npz.c): a zip of .npy members, as np.savez / np.savez_compressed
 * write them and tvmc run reads and writes its inputs and outputs. */
#ifndef OBJRT_CLI_NPZ_H
#define OBJRT_CLI_NPZ_H

#include <stddef.h>
#include "npy.h"

typedef struct npz_member {
    char name[256];               /* without the ".npy" */
    DLTensor *t;                  /* from TVMArrayAlloc */
} npz_member;

typedef struct npz_file {
    npz_member *m;
    int n;
} npz_file;

/* Every member of path, in the archive's order; stored or deflated members, each CRC- and
 * size-checked and parsed as .npy. 0, or -1 with a message naming the member in err. */
int npz_read(const char *path, npz_file *out, char *err, size_t errlen);
void npz_free(npz_file *f);
/* Write n tensors as NAME.npy members of a stored (uncompressed) zip at path, as np.savez. */
int npz_write(const char *path, const char *const *names, const DLTensor *const *t, int n,
              char *err, size_t errlen);

#endif

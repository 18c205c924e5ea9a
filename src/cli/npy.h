/* npy.h - NumPy .npy files <-> CPU DLTensors (npy.c), for `objrt call` (CLI only: not in libobjrt).
 *
 * Formats 1.0 and 2.0; C order only; dtypes bool ("|b1", stored as TVM's bool, uint1 in one
 * byte), int8-64, uint8-64, float16/32/64, little-endian. Everything else is refused with a
 * message saying what was found. Every header field is validated: the header is parsed as
 * the dict literal numpy writes (exactly the keys descr, fortran_order, shape), the shape
 * product is overflow-checked, and the file must hold exactly the data the header promises. */
#ifndef OBJNPY_H
#define OBJNPY_H

#include <stddef.h>
#include "objrt/tvm_backend.h"

#pragma GCC visibility push(hidden)

#define NPY_MAX_NDIM 64
#define NPY_MAX_HEADER (1u << 20)

typedef struct npy_header {
    DLDataType dtype;
    int ndim;
    int64_t shape[NPY_MAX_NDIM];
} npy_header;

/* Parse the header text (the dict literal, len bytes). 0, or -1 with a message in err. */
int npy_parse_header(const char *text, size_t len, npy_header *out, char *err, size_t errlen);
/* Read path into a new tensor from TVMArrayAlloc (free it with TVMArrayFree). */
int npy_load(const char *path, DLTensor **out, char *err, size_t errlen);
/* Write t (compact, CPU) to path in format 1.0. */
int npy_save(const char *path, const DLTensor *t, char *err, size_t errlen);
/* The same from and to memory (an .npz member): *out is malloc'd, *size its length. */
int npy_load_memory(const void *data, size_t size, DLTensor **out, char *err, size_t errlen);
int npy_save_memory(const DLTensor *t, char **out, size_t *size, char *err, size_t errlen);

/* The file name of `path` without its directory, if it ends in ".npy" and has a stem:
 * its length (copied into buf, NUL-terminated, when buf is given and big enough), or 0. */
size_t npy_stem(const char *path, char *buf, size_t size);

/* dtype by any numpy spelling np.dtype() takes for it: its name ("float32", "int8",
 * "bool"), its character code ("f4", "<f4", "i8", "?") or its C name ("float" is float64,
 * "single" float32, "int" int64); 0, or -1 when unknown (big-endian ">f4" included). */
int npy_dtype_by_name(const char *name, DLDataType *out);
/* numpy name of a dtype, or NULL when .npy cannot hold it. */
const char *npy_dtype_name(DLDataType dt);

#pragma GCC visibility pop
#endif

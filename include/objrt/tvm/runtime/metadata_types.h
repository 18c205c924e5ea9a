/* tvm/runtime/metadata_types.h - objrt's stand-in for TVM's header of that name: the
 * structs in which TVM >= 0.9's AOT output describes its model (written from their
 * layout; objrt itself does not read them). */
#ifndef OBJRT_TVM_RUNTIME_METADATA_TYPES_H
#define OBJRT_TVM_RUNTIME_METADATA_TYPES_H

#include <inttypes.h>

#include "c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One tensor argument of the AOT model function. */
struct TVMTensorInfo {
    const char *name;           /* as in the Relay program */
    const int64_t *shape;
    int64_t num_shape;
    DLDataType dtype;
};

/* One constant pool argument. */
struct TVMConstantInfo {
    const char *name_hint;
    int64_t byte_offset;
    int64_t data_len;           /* bytes at data_bytes */
    const void *data_bytes;     /* a serialized NDArray */
};

/* The model: its arguments in the order the model function takes them. */
struct TVMMetadata {
    int64_t version;
    const struct TVMTensorInfo *inputs;
    int64_t num_inputs;
    const struct TVMTensorInfo *outputs;
    int64_t num_outputs;
    const struct TVMTensorInfo *workspace_pools;
    int64_t num_workspace_pools;
    const struct TVMConstantInfo *constant_pools;
    int64_t num_constant_pools;
    const char *mod_name;       /* as passed to relay.build */
};

#ifdef __cplusplus
}
#endif
#endif

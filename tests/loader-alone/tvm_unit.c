/* tvm_unit.c - a unit that needs the kernel runtime (TVMBackendAllocWorkspace): the
 * negative control, loadable with libobjrt.a only. */
#include <stddef.h>
#include <stdint.h>

void *TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint);

void *unit_workspace(void) { return TVMBackendAllocWorkspace(1, 0, 64, 2, 32); }

/* diag.c - OBJRT_CHECK_ALIGN: catch the alignment bugs that otherwise fault far from
 * their cause (an aligned vector store through a misaligned pointer raises #GP). */
#include <stdint.h>
#include <stdio.h>
#include "rt_internal.h"

static int report(const char *msg)
{
    fprintf(stderr, "objrt: %s\n", msg);
    TVMAPISetLastError(msg);
    return -1;
}

int rt_check_workspace(const void *p, size_t nbytes)
{
    char msg[256];
    if ((uintptr_t)p % OBJRT_WS_ALIGN == 0)
        return 0;
    snprintf(msg, sizeof msg, "workspace %p (%zu bytes) is not %d-byte aligned as the TVM ABI "
             "promises (kTempAllocaAlignment)", p, nbytes, OBJRT_WS_ALIGN);
    return report(msg);
}

/* Kernels read arguments of these type codes as DLTensor* and assume aligned data. */
static int is_tensor_code(int code)
{
    return code == kTVMOpaqueHandle || code == kTVMDLTensorHandle || code == kTVMNDArrayHandle;
}

int rt_check_args(const char *kernel, TVMValue *args, const int *codes, int n)
{
    char msg[512];
    for (int i = 0; i < n && args && codes; i++) {
        const DLTensor *t = args[i].v_handle;
        if (!is_tensor_code(codes[i]) || !t || (uintptr_t)t->data % OBJRT_TENSOR_ALIGN == 0)
            continue;
        snprintf(msg, sizeof msg, "kernel '%s' argument %d (DLTensor, type code %d): data "
                 "pointer %p is not %d-byte aligned as the TVM ABI requires (kAllocAlignment); "
                 "call refused", kernel, i, codes[i], t->data, OBJRT_TENSOR_ALIGN);
        return report(msg);
    }
    return 0;
}

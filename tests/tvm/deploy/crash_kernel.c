/* crash_kernel.c - a packed kernel that faults (a NULL store), for the crash report of
 * `objrt call`: the same report as `objrt run`, and the signal's exit status. */
#include <stdint.h>
#include <objrt/tvm_backend.h>

int32_t faulting_kernel(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode,
                        void *res)
{
    (void)args, (void)codes, (void)ret, (void)rcode, (void)res;
    volatile int *p = (volatile int *)(intptr_t)(nargs - nargs);
    *p = 1;
    return 0;
}

/* main_kernel.c - a DSO-mode unit with no main(): `objrt run main_kernel.o` must call the
 * packed function named by __tvm_main__ (with no arguments) and exit with 0 when it
 * returns 0. It checks a parallel launch through its slots; built with -DMAIN_FAILS it
 * returns -1, which must give a non-zero exit status. */
#include <objrt/tvm_backend.h>

void *__tvm_module_ctx;
void *__TVMBackendParallelLaunch;
void *__TVMAPISetLastError;
const char __tvm_main__[] = "entry_by_tvm_main";

static int mark(int task_id, TVMParallelGroupEnv *penv, void *cdata)
{
    int *ran = cdata;
    if (task_id < 64)
        __atomic_fetch_add(&ran[task_id], 1, __ATOMIC_RELAXED);
    return penv->num_task >= 1 ? 0 : -1;
}

int entry_by_tvm_main(TVMValue *args, int *codes, int nargs, TVMValue *ret, int *rcode, void *res)
{
    int ran[64] = {0};
    (void)args, (void)codes, (void)ret, (void)rcode, (void)res;
    if (nargs != 0 || !__tvm_module_ctx ||
        ((int (*)(FTVMParallelLambda, void *, int))__TVMBackendParallelLaunch)(mark, ran, 0) != 0 ||
        ran[0] != 1)
        return -1;
#ifdef MAIN_FAILS
    ((void (*)(const char *))__TVMAPISetLastError)("entry_by_tvm_main: failing on purpose");
    return -1;
#else
    return 0;
#endif
}

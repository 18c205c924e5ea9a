/* second.c - a second object for the multi-object modules (.a, .tar): second(a, b) calls
 * capi.c's add_int across objects and doubles it; with capi.o twice a duplicate. */
#include <tvm/ffi/c_api.h>

int __tvm_ffi_add_int(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r);

__attribute__((visibility("default"))) int __tvm_ffi_second(void *self, const TVMFFIAny *a,
                                                            int32_t n, TVMFFIAny *r)
{
    int rc = __tvm_ffi_add_int(self, a, n, r);
    if (rc == 0)
        r->v_int64 *= 2;
    return rc;
}

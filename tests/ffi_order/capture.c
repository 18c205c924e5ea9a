/* capture.c - a library defining a name libobjrt exports and calls itself: built with
 * -DCAPTURE_OLD it defines the old ABI's objrt_set_last_error, with -DCAPTURE_FFI TVM-FFI's
 * TVMFFIObjectIncRef. Placed before libobjrt in a host's lookup order, it must not receive
 * libobjrt's own calls (libobjrt is linked -Bsymbolic-functions); if it does, it says so
 * and aborts. */
#include <stdio.h>
#include <stdlib.h>

static void captured(const char *name)
{
    fprintf(stderr, "captured: libobjrt's own call to %s bound to libcapture\n", name);
    abort();
}

#ifdef CAPTURE_OLD
void objrt_set_last_error(const char *fmt, ...)
{
    (void)fmt;
    captured("objrt_set_last_error");
}
#endif

#ifdef CAPTURE_FFI
int TVMFFIObjectIncRef(void *obj)
{
    (void)obj;
    captured("TVMFFIObjectIncRef");
    return 0;
}
#endif

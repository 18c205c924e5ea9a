/*
 * builtins.c - functions a static link takes from crt/libc_nonshared.a rather than from
 * libc.so, so dlsym cannot find them: objrt supplies them to loaded code.
 *
 * atexit(f) must register f against the *caller's* DSO handle, so that unloading the unit
 * runs it (__cxa_finalize) before its code disappears. The caller's return address says
 * which unit called; objrt_unit_containing() maps it to that unit's handle.
 */
#include <stdint.h>
#include <string.h>

#include "loader/internal.h"

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
void *objrt_dso_handle_of(const void *pc);

__attribute__((noinline)) static int objrt_atexit(void (*fn)(void))
{
    void *dso = objrt_dso_handle_of(__builtin_return_address(0));
    return __cxa_atexit((void (*)(void *))(uintptr_t)fn, NULL, dso);
}

void *objrt_builtin_lookup(const char *name)
{
    if (strcmp(name, "atexit") == 0)
        return (void *)(uintptr_t)objrt_atexit;
    return NULL;
}

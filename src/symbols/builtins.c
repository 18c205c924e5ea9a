/*
 * builtins.c - functions a static link takes from crt/libc_nonshared.a rather than from
 * libc.so, so dlsym cannot find them: objrt supplies them to loaded code.
 *
 * glibc 2.36's libc_nonshared.a holds atexit, at_quick_exit, pthread_atfork (and its alias
 * __pthread_atfork) and __stack_chk_fail_local. The first three register a handler against
 * the *caller's* DSO handle (the static link passes its own __dso_handle), so that
 * unloading runs or drops it (__cxa_finalize runs the unit's atexit handlers, unregisters
 * its fork handlers and frees its quick_exit handlers) before the code disappears. The
 * caller's return address says which unit called; objrt_dso_handle_of() (registry.c)
 * maps it to that unit's handle.
 */
#include <stdint.h>
#include <string.h>

#include "symbols/symbols.h"
#include "symbols/lookup.h"

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
int __cxa_at_quick_exit(void (*fn)(void), void *dso);
int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void),
                      void *dso);
void __stack_chk_fail(void) __attribute__((noreturn));

#define CALLER_DSO() objrt_dso_handle_of(__builtin_return_address(0))

__attribute__((noinline)) static int objrt_atexit(void (*fn)(void))
{
    return __cxa_atexit((void (*)(void *))(uintptr_t)fn, NULL, CALLER_DSO());
}

__attribute__((noinline)) static int objrt_at_quick_exit(void (*fn)(void))
{
    return __cxa_at_quick_exit(fn, CALLER_DSO());
}

__attribute__((noinline)) static int objrt_pthread_atfork(void (*prepare)(void),
                                                          void (*parent)(void),
                                                          void (*child)(void))
{
    return __register_atfork(prepare, parent, child, CALLER_DSO());
}

static void objrt_stack_chk_fail_local(void) { __stack_chk_fail(); }

void *objrt_builtin_lookup(const char *name)
{
    static const struct { const char *name; void (*fn)(void); } table[] = {
        { "atexit", (void (*)(void))objrt_atexit },
        { "at_quick_exit", (void (*)(void))objrt_at_quick_exit },
        { "pthread_atfork", (void (*)(void))objrt_pthread_atfork },
        { "__pthread_atfork", (void (*)(void))objrt_pthread_atfork },
        { "__stack_chk_fail_local", objrt_stack_chk_fail_local },
        { "__cxa_thread_atexit", (void (*)(void))objrt_thread_atexit },      /* tls_dtors.c */
        { "__cxa_thread_atexit_impl", (void (*)(void))objrt_thread_atexit },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(name, table[i].name) == 0)
            return (void *)(uintptr_t)table[i].fn;
    return NULL;
}

/* modules.h - per-unit state of the kernel runtime (modules.c), used by loader_hooks.c. */
#ifndef OBJRT_RT_MODULES_H
#define OBJRT_RT_MODULES_H

#include "rt_internal.h"

#pragma GCC visibility push(hidden)

typedef struct rt_sym {              /* one TVMBackendRegisterSystemLibSymbol() */
    struct rt_sym *next;
    void *ptr;
    char name[];
} rt_sym;

typedef struct rt_func {             /* a TVMFunctionHandle */
    struct rt_func *next;
    TVMBackendPackedCFunc fn;
    char name[];
} rt_func;

typedef struct rt_module {           /* what __tvm_module_ctx points to */
    struct rt_module *next;
    struct rt_module *outer;         /* unit being initialised when this one started */
    objrt_unit *unit;                /* NULL for the host */
    rt_sym *syms;
    rt_func *funcs;
    char prefix[128];                /* system-lib prefix, from "<prefix>__tvm_module_ctx" */
} rt_module;

/* Start attributing registrations on this thread to a new module of `unit`. */
rt_module *rt_module_open(objrt_unit *unit);
/* Stop attributing; returns the unit's module (NULL if none). */
rt_module *rt_module_close_init(objrt_unit *unit);
void rt_module_publish(rt_module *m);
void rt_module_forget(objrt_unit *unit);

#pragma GCC visibility pop
#endif

/*
 * provider.h - what a client of the loader may add to every load (the kernel runtime is
 * one): symbols it defines, pointer slots of a unit it fills, and hooks run before a
 * unit's constructors, after them, and when the unit is unloaded. The loader calls
 * providers only through what they registered here, never by name, so it builds, links
 * and runs without any of them (docs/layers.md).
 *
 * A provider registers once, before its first load (a constructor of its own does), and
 * stays registered for the life of the process.
 */
#ifndef OBJRT_BASE_PROVIDER_H
#define OBJRT_BASE_PROVIDER_H

#include <stddef.h>

#include "objrt.h"

typedef struct objrt_provided {     /* a name and the address it stands for */
    const char *name;
    void *addr;
} objrt_provided;

typedef struct objrt_provider {
    const char *name;               /* in messages: "kernel runtime" */
    /* The address of a symbol the provider defines, or NULL: consulted after loaded units
     * and objrt_define()d names, before the host's libraries. NULL: defines none. */
    void *(*lookup)(const char *name);
    /* Pointer slots a unit may define (writable, pointer-sized, its own): before the
     * constructors each one present is set to its address. A slot that is there but not
     * a writable pointer of the unit fails the load. */
    const objrt_provided *slots;
    size_t nslots;
    /* After relocation, protection and the slots, before constructors; after them (or
     * after they were skipped). Each returns 0, or -1 with the problem in err (errlen
     * bytes), which fails the load. Either may be NULL. */
    int (*before_init)(objrt_unit *u, char *err, size_t errlen);
    int (*after_init)(objrt_unit *u, char *err, size_t errlen);
    /* Before the unit's memory is released (NULL: nothing to forget). */
    void (*unload)(objrt_unit *u);
} objrt_provider;

#define OBJRT_PROVIDERS_MAX 4
#define OBJRT_PROVIDER_SLOTS_MAX 16  /* nslots of one provider */

/* Registers p (which must outlive the process): 0, or -1 when OBJRT_PROVIDERS_MAX are
 * registered already or p has more than OBJRT_PROVIDER_SLOTS_MAX slots. Registering the same provider twice registers it once. */
int objrt_provider_register(const objrt_provider *p);
/* The i-th provider in registration order, or NULL past the last. */
const objrt_provider *objrt_provider_at(size_t i);

#endif

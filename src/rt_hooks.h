/*
 * rt_hooks.h - the loader's whole contract with the kernel runtime (src/runtime/).
 *
 * The loader knows nothing of TVM; it calls these at fixed points of a load. The runtime
 * implements them. Keeping the contract this small lets either side change freely.
 */
#ifndef OBJRT_RT_HOOKS_H
#define OBJRT_RT_HOOKS_H

#include <stdbool.h>
#include "objrt.h"

/* The loader never lets an input choose where it writes or reads: the runtime reaches into a
 * unit only through these two checks.
 *
 * objrt_unit_slot: when the unit defines `name`, returns 1 with *out set if the symbol lies in
 * one of the unit's own sections, its st_size and the bytes left in that section are both at
 * least `size`, and (when `writable`) it is in a writable group and aligned to `size`; returns -1 with a message in
 * `err` otherwise; *room (if not NULL) gets the bytes it may touch there (absolute, unsized, too small, read-only); 0 when the unit lacks `name`.
 * objrt_unit_room: bytes from `addr` to the end of the unit's permission group holding it
 * (only writable groups when `writable`), 0 when no group of the unit holds it. */
int objrt_unit_slot(objrt_unit *unit, const char *name, size_t size, bool writable, void **out,
                    size_t *room, char *err, size_t errlen);
size_t objrt_unit_room(const objrt_unit *unit, const void *addr, bool writable);
/* objrt_unit_func: the function `name` of the unit, for names that come from inputs and are
 * called as code (a graph's func_name, `objrt call -f`, TVMModGetFunction). Returns 1 with
 * *out set when it is an STT_FUNC or STT_GNU_IFUNC in the unit's executable group; -1 with
 * `err` naming what it is instead (data, untyped, absolute, ...); 0 when the unit lacks it. */
int objrt_unit_func(objrt_unit *unit, const char *name, void **out, char *err, size_t errlen);

/* Resolve step: the address of a runtime ABI symbol (TVMBackendAllocWorkspace, ...), or
 * NULL when `name` is not one. Consulted after objrt_define()d symbols, before dlsym. */
void *objrt_rt_lookup(const char *name);

/* After relocation and protection, before constructors run. The runtime may fill DSO-mode
 * function-pointer slots found with objrt_unit_sym() and start attributing
 * TVMBackendRegisterSystemLibSymbol() calls made on this thread to `unit`.
 * Returns 0, or -1 after describing the problem in `err` (size `errlen`). */
int objrt_rt_before_init(objrt_unit *unit, char *err, size_t errlen);

/* After constructors ran (or were skipped): stop attributing registrations; write the unit
 * handle into each registered module-context address. Same return convention. */
int objrt_rt_after_init(objrt_unit *unit, char *err, size_t errlen);

/* Before a unit's memory is released: forget everything registered for it. */
void objrt_rt_unload(objrt_unit *unit);

#endif

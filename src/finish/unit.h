/*
 * unit.h - the checked ways into a loaded unit (unit.c), for the loader and for its
 * providers (base/provider.h; the kernel runtime is one). The loader never lets an input
 * choose where it writes or reads: a provider reaches into a unit only through these.
 */
#ifndef OBJRT_FINISH_UNIT_H
#define OBJRT_FINISH_UNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "objrt.h"

/* objrt_unit_slot: when the unit defines `name`, returns 1 with *out set if the symbol lies
 * in one of the unit's own sections, its st_size and the bytes left in that section are
 * both at least `size`, and (when `writable`) it is in a writable group and aligned to
 * `size`; returns -1 with a message in `err` otherwise (absolute, unsized, too small,
 * read-only); 0 when the unit lacks `name`. *extent (if not NULL) gets the bytes the
 * loader may touch at the symbol.
 * objrt_unit_extent: bytes from `addr` to the end of the unit's permission group holding
 * it (only writable groups when `writable`), 0 when no group of the unit holds it. */
int objrt_unit_slot(objrt_unit *unit, const char *name, size_t size, bool writable, void **out,
                    size_t *extent, char *err, size_t errlen);
size_t objrt_unit_extent(const objrt_unit *unit, const void *addr, bool writable);
/* objrt_unit_func: the function `name` of the unit, for names that come from inputs and are
 * called as code (a graph's func_name, `objrt call -f`, TVMModGetFunction). Returns 1 with
 * *out set when it is an STT_FUNC or STT_GNU_IFUNC in the unit's executable group; -1 with
 * `err` naming what it is instead (data, untyped, absolute, ...); 0 when the unit lacks it. */
int objrt_unit_func(objrt_unit *unit, const char *name, void **out, char *err, size_t errlen);
/* objrt_unit_code: the same rule for a pointer the unit handed out under `name` with no
 * symbol to check (a system-lib registration, TVMBackendRegisterSystemLibSymbol): 1 when
 * `addr` lies in the unit's executable group; -1 with `err` naming what it points to
 * instead (the symbol `name` when it is there, else the section and object). No lock:
 * what it reads is fixed for the unit's life. */
int objrt_unit_code(const objrt_unit *unit, const char *name, const void *addr, char *err,
                    size_t errlen);

#endif

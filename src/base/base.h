/*
 * base.h - what every layer of the loader uses: the bounds on inputs, errors (error.c; of a
 * mapping call: maps.c) and array growth (grow.c). Includes nothing of the loader but
 * base/ (docs/layers.md).
 */
#ifndef OBJRT_BASE_H
#define OBJRT_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "objrt.h"
#include "base/hashmap.h"

#define OBJRT_NONE UINT32_MAX
/* Bounds on what an input may ask for. Each section or COMMON symbol: at most
 * OBJRT_MAX_SECTION bytes aligned to at most OBJRT_MAX_ALIGN (parse.c). The whole unit: every
 * size and offset sum of the plan is formed with overflow builtins and refused past the
 * top of the user address space the architecture's backend gives (objrt_arch.user_top:
 * 2^47 for x86_64 and AArch64 as objrt places them, 2^38 for Sv39 RISC-V); no sum can
 * wrap however many sections and inputs there are (the section count itself is not
 * bounded: e_shnum = 0 escapes 2^16). */
#define OBJRT_MAX_ALIGN   ((uint64_t)1 << 30)
#define OBJRT_MAX_SECTION ((uint64_t)1 << 40)

/* ---- errors (error.c) ---- */
/* Record the calling thread's error on ctx; always returns -1 for `return objrt_fail(...)`. */
int objrt_fail(objrt_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a message of several lines, each made printable by its author (escape.h). */
int objrt_fail_lines(objrt_ctx *ctx, const char *lines);
/* The same for a mapping call (mmap, mprotect: `what`) of the unit named `unit` that failed
 * with errno err; at the kernel's limit on mappings the message names it (maps.c). */
int objrt_fail_mapping(objrt_ctx *ctx, const char *unit, const char *what, int err);
typedef struct objrt_errbuf objrt_errbuf;
void objrt_errors_release(objrt_ctx *ctx);      /* objrt_free: every thread's buffer */

/* ---- arrays (grow.c) ---- */
/* `arr` (capacity *cap elements of `elem` bytes) with space for `need` elements: doubled
 * from `first` as needed. NULL with "out of memory" recorded on ctx; arr and *cap are then
 * unchanged. Use: v = objrt_grow(...); if (!v) return -1; x->arr = v; */
void *objrt_grow(objrt_ctx *ctx, void *arr, size_t *cap, size_t need, size_t elem, size_t first);

#endif

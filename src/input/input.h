/*
 * input.h - bytes to objects: files, archives and TVM export_library tars (input.c,
 * tar.c), read and handed to the parser (parse.h: ELF validated into objrt_obj, the
 * accessors every later stage uses on it). One direction: the reader calls the parser,
 * the parser never the reader.
 */
#ifndef OBJRT_INPUT_H
#define OBJRT_INPUT_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "base/link.h"
#include "input/parse.h"

/* ---- memory made present ahead of the writes (input.c, place.c, gdbjit.c) ----
 * A fresh page costs a fault each when first written; MADV_POPULATE_WRITE makes a range
 * present in one call (Linux >= 5.14; older kernels refuse the advice and the writes fault
 * as before). From OBJRT_HUGE_BLOCK on, mappings start on such a boundary and their whole
 * blocks are offered to transparent huge pages: one huge page is allocated and cleared in
 * a fraction of the time 512 small ones take. Where huge pages are off the kernel uses
 * small ones: the same bytes, slower. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define OBJRT_HUGE_BLOCK ((uint64_t)2 << 20)
/* Advise the whole OBJRT_HUGE_BLOCK blocks of [base + from, base + to) (none unless base
 * starts a block). */
static inline void objrt_offer_huge(uint8_t *base, uint64_t from, uint64_t to)
{
    uint64_t lo = objrt_align_up(from, OBJRT_HUGE_BLOCK), hi = objrt_page_down(to, OBJRT_HUGE_BLOCK);
    if ((uintptr_t)base % OBJRT_HUGE_BLOCK == 0 && hi > lo)
        madvise(base + lo, hi - lo, MADV_HUGEPAGE);     /* advice: may be refused */
}

/* Stage input: each returns 0 or -1 with the error recorded on l->ctx. */
int objrt_input_add_file(objrt_link *l, const char *path);
/* The same for n paths, in order: files are read in batches into shared mappings. */
int objrt_input_add_files(objrt_link *l, const char *const *paths, size_t n);
int objrt_input_add_memory(objrt_link *l, const objrt_input *in);
/* tar.c: TVM's export_library tar. Whether the bytes are one, and each *.o member handed
 * to `add` (named "FILE(member)"): 0, or -1 with the error naming the file and member. */
typedef int (*objrt_member_fn)(objrt_link *l, const char *name, const uint8_t *data,
                               size_t size, void *arg);
bool objrt_input_is_tar(const uint8_t *data, size_t size);
int objrt_input_add_tar(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                        objrt_member_fn add, void *arg);
void objrt_input_release(objrt_link *l);        /* objects and mapped files of the link */

#endif

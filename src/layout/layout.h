/*
 * layout.h - where everything goes: the plan (plan.c; its GOT and stub slots), the
 * reservation (place.c; reservations kept for the next load), the pages small units
 * share (arena.c), thread-local storage (tls.c) and the in-memory shared objects the
 * dynamic linker is given (memdso.c).
 */
#ifndef OBJRT_LAYOUT_H
#define OBJRT_LAYOUT_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/link.h"

/* Where t records the slot of key k by index: a global's own slot (addend 0), which most
 * GOT references and calls of a large unit ask for; NULL for any other key (or before the
 * plan made t->own). */
static inline uint32_t *objrt_slot_own(const objrt_slots *t, objrt_slotkey k)
{
    return t->own && k.addend == 0 && k.id >> 63 ? &t->own[(uint32_t)k.id] : NULL;
}
/* The index of key k's slot in t, or OBJRT_NONE. An own slot is read from t->own instead
 * of hashing the key (keyed SipHash, as every input-chosen key is). */
static inline uint32_t objrt_slot_find(const objrt_slots *t, objrt_slotkey k)
{
    const uint32_t *own = objrt_slot_own(t, k);
    return own ? *own - 1 : objrt_keymap_get(&t->map, k.id, k.addend);  /* 0 - 1: NONE */
}

int objrt_plan_layout(objrt_link *l);
int objrt_place(objrt_link *l);
/* The end of every link, loaded or not: what layout built for it goes (the plan's tables,
 * thread-local storage the unit did not take) and so does its memory, unless the unit
 * took it (l->unit_owns_base). */
void objrt_layout_release(objrt_link *l);

/* Unload: keep the reservation [base, base + size) for the next load of the context, or
 * return it to the system (switched off, too big, or objrt_free). */
void objrt_spare_keep(objrt_ctx *ctx, uint8_t *base, size_t size);
/* The end of every load, and objrt_free: what no load took goes back to the system. */
void objrt_spares_release(objrt_ctx *ctx);
void objrt_spares_usage(const objrt_ctx *ctx, objrt_memory *m);

/* Thread-local storage (tls.c). Is section shndx of o thread-local data of the image
 * (.tdata, .tbss)? */
bool objrt_sec_is_tls(const objrt_obj *o, size_t shndx);
/* plan: place the unit's TLS sections in its block (offsets into o->sec_off). */
int objrt_tls_layout(objrt_link *l);
/* plan: a TLS relocation; reserves its GOT entry. */
int objrt_tls_note(objrt_link *l, const objrt_obj *o, size_t target, const Elf64_Rela *r,
                   const objrt_howto *h);
/* after place, before relocate: relocate the TLS image, build and open the TLS module,
 * fill the TLS part of the GOT. */
int objrt_tls_load(objrt_link *l);
/* relocate: the value of a TLS relocation (0, or -1 with *why set). */
int objrt_tls_value(const objrt_link *l, const objrt_obj *o, const Elf64_Rela *r,
                    const objrt_howto *h, uint64_t P, uint64_t *v, const char **why);
void objrt_tls_release(objrt_tls *t);

/* In-memory shared objects for the dynamic linker (memdso.c): the ELF header, program
 * headers, the common layout (PT_LOAD, PT_DYNAMIC, ..., PT_GNU_STACK), open and close. */
void objrt_memdso_ehdr(uint8_t *buf, uint16_t machine, size_t nphdr);
void objrt_memdso_phdr(uint8_t *buf, size_t i, uint32_t type, uint32_t flags, uint64_t off,
                       uint64_t filesz, uint64_t memsz, uint64_t align);
void objrt_memdso_base(uint8_t *buf, size_t size, uint16_t machine, size_t nphdr,
                       uint64_t dyn, uint64_t dynsize);
int objrt_memdso_open(const uint8_t *buf, size_t size, int flags, void **handle, int *fd,
                      const char **why);
void objrt_memdso_close(void *handle, int fd);

/* ---- shared pages of small units (arena.c): a memory module of plan, place, protect ---- */
/* Would groups of these sizes and alignments be packed (each at most 16 KiB or one page,
 * aligned to at most a page, not all empty)? */
bool objrt_arena_fits(size_t page, const uint64_t size[GRP_COUNT], const uint64_t align[GRP_COUNT]);
/* A chunk for every non-empty group, all in one block of `page`-sized pages: 0, or -1 when
 * the arena cannot (out of memory, a memfd that may not be executable): load unpacked. */
int objrt_arena_alloc(objrt_ctx *ctx, size_t page, const uint64_t size[GRP_COUNT],
                      const uint64_t align[GRP_COUNT], objrt_chunk out[GRP_COUNT]);
int objrt_arena_open(const objrt_chunk c[GRP_COUNT]);     /* alias writable: place */
void objrt_arena_close(const objrt_chunk c[GRP_COUNT]);   /* and not any more */
/* The alias closed and the new code made visible to every execution view (qemu-user's
 * translations too): protect. 0, or -1 with errno. */
int objrt_arena_publish(objrt_ctx *ctx, const objrt_chunk c[GRP_COUNT]);
void objrt_arena_free(objrt_ctx *ctx, const objrt_chunk c[GRP_COUNT]);
void objrt_arena_release(objrt_ctx *ctx);                  /* objrt_free */
void objrt_arena_usage(const objrt_ctx *ctx, objrt_memory *m);

#endif

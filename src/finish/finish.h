/*
 * finish.h - making the placed unit run: relocation (relocate.c), the unit's symbol
 * table (unit.c), protection and unwind registration (protect.c, checked by eh_frame.c),
 * constructors and destructors (init.c).
 */
#ifndef OBJRT_FINISH_H
#define OBJRT_FINISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/link.h"

int objrt_relocate(objrt_link *l);
int objrt_unit_build(objrt_link *l, objrt_unit *u);
int objrt_protect(objrt_link *l, objrt_unit *u);
/* A placed, relocated .eh_frame item parses the way the unwinder parses it (eh_frame.c). */
int objrt_eh_frame_check(objrt_link *l, const objrt_item *it);
/* init.c. The check after the plan (pipeline.c): every constructor or destructor array is an array of
 * pointers; it also lists them (l->init_arrays), so that collecting them after relocation
 * reads no section name again. */
int objrt_init_arrays_check(objrt_link *l);
int objrt_collect_init(objrt_link *l, objrt_unit *u, objrt_fnlist *ctors);
void objrt_run_fns(const objrt_fnlist *fns);
void objrt_unprotect_release(objrt_unit *u);
void objrt_unit_free(objrt_unit *u);            /* memory and tables of a unit */

#endif

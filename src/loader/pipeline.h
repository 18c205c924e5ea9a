/*
 * pipeline.h - one load, stage by stage (pipeline.c), and the unload.
 */
#ifndef OBJRT_PIPELINE_H
#define OBJRT_PIPELINE_H

#include <stddef.h>

#include "base/link.h"

/* ---- the pipeline (pipeline.c) ---- */
enum objrt_stage {              /* after input and parse, in order */
    OBJRT_RESOLVE, OBJRT_INTERPOSE, OBJRT_PLAN, OBJRT_PLACE, OBJRT_TLS, OBJRT_RELOCATE,
    OBJRT_UNIT, OBJRT_PROTECT, OBJRT_INFO,
};
/* Adds the inputs (paths, or else inputs) to l, then runs every stage up to `last`; the
 * OBJRT_UNIT stage allocates *u (freed by the caller, also on a later failure). Returns 0
 * or -1 with the error recorded. */
int objrt_link_run(objrt_link *l, const char *const *paths, const objrt_input *inputs, size_t n,
                   enum objrt_stage last, objrt_unit **u);
void objrt_link_release(objrt_link *l);
/* A whole load, constructors included (ctx->lock held): the unit, or NULL with the error. */
objrt_unit *objrt_pipeline_load(objrt_ctx *ctx, const char *const *paths,
                                const objrt_input *inputs, size_t n);
/* Destructors, the providers' unload hooks, the registry, memory: everything a load made (ctx->lock held). */
void objrt_pipeline_unload(objrt_unit *u);

/* fork.c: the contexts whose locks the fork handler takes (objrt_new, objrt_free).
 * Track returns -1 when out of memory. */
int objrt_fork_track(objrt_ctx *ctx);
void objrt_fork_untrack(objrt_ctx *ctx);

#endif

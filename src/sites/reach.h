/* reach.h - the farthest value each relocation type used, against its limit (layout report). */
#ifndef OBJRT_REACH_H
#define OBJRT_REACH_H

#include <stdint.h>
#include <stdio.h>

#include "arch/arch.h"

#define OBJRT_REACH_TYPES 1024

struct objrt_reach {
    const objrt_howto *h[OBJRT_REACH_TYPES];
    uint64_t count[OBJRT_REACH_TYPES];
    uint64_t far[OBJRT_REACH_TYPES];    /* largest |value| seen */
};

void objrt_reach_note(struct objrt_reach *r, uint32_t type, const objrt_howto *h, uint64_t v);
void objrt_reach_print(const struct objrt_reach *r, FILE *out);

#endif

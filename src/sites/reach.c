/* reach.c - record and print how close each relocation form came to its limit. */
#include "sites/reach.h"

void objrt_reach_note(struct objrt_reach *r, uint32_t type, const objrt_howto *h, uint64_t v)
{
    if (type >= OBJRT_REACH_TYPES)
        return;
    int64_t s = (int64_t)v;
    /* C_EITHER (AArch64 ABS32, PREL32): a value that fits unsigned counts as unsigned */
    bool as_unsigned = h->check == C_UNSIGNED ||
                       (h->check == C_EITHER && h->bits < 64 && (v >> h->bits) == 0);
    uint64_t mag = as_unsigned ? v : (uint64_t)(s < 0 ? -s : s);
    r->h[type] = h;
    r->count[type]++;
    if (mag > r->far[type])
        r->far[type] = mag;
}

void objrt_reach_print(const struct objrt_reach *r, FILE *out)
{
    fprintf(out, "relocations: farthest value used per type, against its limit\n");
    fprintf(out, "  %-32s %8s %18s %18s %7s\n", "type", "count", "farthest", "limit", "used");
    for (uint32_t t = 0; t < OBJRT_REACH_TYPES; t++) {
        const objrt_howto *h = r->h[t];
        if (!h)
            continue;
        if (h->check == C_NONE || h->bits >= 64) {
            fprintf(out, "  %-32s %8llu %#18llx %18s %7s\n", h->name,
                    (unsigned long long)r->count[t], (unsigned long long)r->far[t], "64-bit", "-");
            continue;
        }
        /* the range is of the value in bytes (ADRP: 33 bits of page difference) */
        __int128 min, max;
        objrt_howto_range(h, &min, &max);
        uint64_t limit = (uint64_t)(max + 1);
        fprintf(out, "  %-32s %8llu %#18llx %#18llx %6.2f%%\n", h->name,
                (unsigned long long)r->count[t], (unsigned long long)r->far[t],
                (unsigned long long)limit, 100.0 * (double)r->far[t] / (double)limit);
    }
}

/*
 * t_fits.c - the one overflow rule (objrt_value_fits, src/arch/arch.h) gives the answer
 * of its definition for every relocation type of both backends.
 *
 * usage: t_fits
 * objrt_value_fits tests two precomputed 64-bit quantities per type (OBJRT_FITS). The
 * definition it must agree with: v is a multiple of the type's alignment and, read as a
 * signed or as an unsigned 64-bit integer, lies in [min, max] of objrt_howto_range
 * (128-bit arithmetic). Values tried per type: 0, +-1, every bound and its neighbours,
 * the bounds of each narrower and wider power of two, the 64-bit extremes, multiples and
 * non-multiples of the alignment, and 4096 pseudo-random values. Cases:
 *   fits-x86_64, fits-aarch64           every known type of the table agrees
 *   HARNESS fits-control-off-by-one     a copy of a 32-bit signed type whose span is one
 *                                       too large is caught (at its upper bound)
 */
#include <stdint.h>
#include <stdio.h>

#include "arch/arch.h"
#include "report.h"

/* The definition, independent of OBJRT_FITS. */
static int fits_by_range(const objrt_howto *h, uint64_t v)
{
    __int128 min, max;
    objrt_howto_range(h, &min, &max);
    __int128 as_signed = (int64_t)v, as_unsigned = v;
    bool in = (as_signed >= min && as_signed <= max) || (as_unsigned >= min && as_unsigned <= max);
    bool aligned = h->align <= 1 || v % h->align == 0;
    return in && aligned;
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Runs fn over the probe values of h; returns how many disagree, with the first in *bad. */
static int disagreements(const objrt_howto *h, uint64_t *bad)
{
    uint64_t probes[512];
    size_t n = 0;
    __int128 min, max;
    objrt_howto_range(h, &min, &max);
    uint64_t lo = (uint64_t)min, hi = (uint64_t)max;
    for (int d = -2; d <= 2; d++) {
        probes[n++] = (uint64_t)d;
        probes[n++] = lo + (uint64_t)d;
        probes[n++] = hi + (uint64_t)d;
        probes[n++] = (uint64_t)INT64_MIN + (uint64_t)d;
        probes[n++] = (uint64_t)INT64_MAX + (uint64_t)d;
    }
    for (int b = 1; b < 64; b++)
        for (int d = -1; d <= 1; d++) {
            probes[n++] = ((uint64_t)1 << b) + (uint64_t)d;
            probes[n++] = -((uint64_t)1 << b) + (uint64_t)d;
        }
    int wrong = 0;
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ h->bits ^ ((uint64_t)h->check << 8);
    for (size_t i = 0; i < n + 4096; i++) {
        uint64_t v = i < n ? probes[i] : next_random(&seed) >> (next_random(&seed) & 63);
        if (i >= n && (i & 1))
            v = -v;
        if (objrt_value_fits(h, v) != fits_by_range(h, v)) {
            if (!wrong++)
                *bad = v;
        }
    }
    return wrong;
}

static void check_table(const char *name, const struct objrt_arch *a)
{
    int types = 0, wrong = 0;
    char why[256] = "";
    for (uint32_t t = 0; t < a->nhowtos; t++) {
        const objrt_howto *h = &a->howtos[t];
        if (!h->name)
            continue;
        types++;
        uint64_t v = 0;
        int w = disagreements(h, &v);
        if (w && !wrong)
            snprintf(why, sizeof why, "%s: value 0x%llx: objrt_value_fits says %d, the range %d "
                     "(%d values disagree)", h->name, (unsigned long long)v,
                     objrt_value_fits(h, v), fits_by_range(h, v), w);
        wrong += w != 0;
    }
    t_report(name, types > 0 && !wrong, "%s", types ? why : "no types in the table");
}

int main(void)
{
    check_table("fits-x86_64", &objrt_arch_x86_64);
    check_table("fits-aarch64", &objrt_arch_aarch64);
    /* the control: the comparison must see a span one too large */
    const objrt_howto *pc32 = objrt_howto_of(&objrt_arch_x86_64, 2 /* R_X86_64_PC32 */);
    objrt_howto bent = pc32 ? *pc32 : (objrt_howto){ 0 };
    bent.fit_span++;
    uint64_t v = 0;
    int w = pc32 ? disagreements(&bent, &v) : 0;
    t_harness("fits-control-off-by-one", w > 0 && v == (uint64_t)INT32_MAX + 1,
              "a span one too large went unnoticed (%d disagreements, first 0x%llx)", w,
              (unsigned long long)v);
    return t_failures ? 1 : 0;
}

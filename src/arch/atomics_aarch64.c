/*
 * atomics_aarch64.c - gcc's AArch64 outline atomics, for when libgcc.a is not there.
 *
 * Code built with gcc's default -moutline-atomics calls __aarch64_<op><size>_<model>
 * (cas, swp, ldadd, ldclr, ldeor, ldset; 1/2/4/8 bytes, cas also 16; models relax, acq,
 * rel, acq_rel, sync: 125 functions), which exist only in the static libgcc.a. They are
 * ordinary calls (the caller saves what AAPCS64 says), so C implementations serve: this
 * file is compiled with -mno-outline-atomics (mk/libgcc.mk), so each builtin below becomes
 * the exclusive-load/store loop every ARMv8.0 core runs. Contract (libgcc's lse.S): cas
 * takes (expected, desired, ptr), the others (value, ptr); all return the old value.
 */
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"

/* The exclusive-access loops below are this machine's instructions: only its own build
 * has them (elsewhere the backend's helper finds none). */
#if defined(__aarch64__)

#define M_relax   __ATOMIC_RELAXED
#define M_acq     __ATOMIC_ACQUIRE
#define M_rel     __ATOMIC_RELEASE
#define M_acq_rel __ATOMIC_ACQ_REL
#define M_sync    __ATOMIC_SEQ_CST
/* the failure order of a CAS may not release, nor be stronger than its success order */
#define F_relax   __ATOMIC_RELAXED
#define F_acq     __ATOMIC_ACQUIRE
#define F_rel     __ATOMIC_RELAXED
#define F_acq_rel __ATOMIC_ACQUIRE
#define F_sync    __ATOMIC_SEQ_CST

#define T1  uint8_t
#define T2  uint16_t
#define T4  uint32_t
#define T8  uint64_t
#define T16 unsigned __int128

#define CAS(n, m)                                                                          \
    static T##n oa_cas##n##_##m(T##n expected, T##n desired, T##n *ptr)                    \
    {                                                                                      \
        __atomic_compare_exchange_n(ptr, &expected, desired, 0, M_##m, F_##m);             \
        return expected;                                                                   \
    }
/* 16 bytes: the builtin would call libatomic, so the exclusive pair loop is written out.
 * On a mismatch the old value is stored back: only a successful store-exclusive makes
 * the 16-byte read single-copy atomic (as libgcc's own fallback does). */
#define CAS16(m, LD, ST, FENCE)                                                            \
    static T16 oa_cas16_##m(T16 expected, T16 desired, T16 *ptr)                           \
    {                                                                                      \
        uint64_t elo = (uint64_t)expected, ehi = (uint64_t)(expected >> 64);               \
        uint64_t dlo = (uint64_t)desired, dhi = (uint64_t)(desired >> 64), olo, ohi;       \
        uint32_t busy;                                                                     \
        __asm__ volatile("1: " LD " %[olo], %[ohi], [%[p]]\n"                               \
                         "   cmp %[olo], %[elo]\n"                                         \
                         "   ccmp %[ohi], %[ehi], #0, eq\n"                                \
                         "   b.ne 2f\n"                                                    \
                         "   " ST " %w[busy], %[dlo], %[dhi], [%[p]]\n"                     \
                         "   cbnz %w[busy], 1b\n"                                          \
                         "   b 3f\n"                                                       \
                         "2: " ST " %w[busy], %[olo], %[ohi], [%[p]]\n"                     \
                         "   cbnz %w[busy], 1b\n"                                          \
                         "3: " FENCE                                                       \
                         : [olo] "=&r"(olo), [ohi] "=&r"(ohi), [busy] "=&r"(busy)          \
                         : [elo] "r"(elo), [ehi] "r"(ehi), [dlo] "r"(dlo), [dhi] "r"(dhi), \
                           [p] "r"(ptr)                                                    \
                         : "cc", "memory");                                                \
        return (T16)ohi << 64 | olo;                                                       \
    }
#define RMW(op, n, m, expr)                                                                \
    static T##n oa_##op##n##_##m(T##n v, T##n *ptr) { return expr; }
#define OPS(n, m)                                                                          \
    CAS(n, m)                                                                              \
    RMW(swp, n, m, __atomic_exchange_n(ptr, v, M_##m))                                     \
    RMW(ldadd, n, m, __atomic_fetch_add(ptr, v, M_##m))                                    \
    RMW(ldclr, n, m, __atomic_fetch_and(ptr, (T##n)~v, M_##m))                             \
    RMW(ldeor, n, m, __atomic_fetch_xor(ptr, v, M_##m))                                    \
    RMW(ldset, n, m, __atomic_fetch_or(ptr, v, M_##m))
#define MODELS(X, n) X(n, relax) X(n, acq) X(n, rel) X(n, acq_rel) X(n, sync)

MODELS(OPS, 1)
MODELS(OPS, 2)
MODELS(OPS, 4)
MODELS(OPS, 8)
CAS16(relax, "ldxp", "stxp", "")
CAS16(acq, "ldaxp", "stxp", "")
CAS16(rel, "ldxp", "stlxp", "")
CAS16(acq_rel, "ldaxp", "stlxp", "")
CAS16(sync, "ldaxp", "stlxp", "dmb ish")

/* file-local: the names exist only in this table, so objrt's own callers keep libgcc's */
#define ENTRY(op) { "__aarch64_" #op, (void (*)(void))oa_##op },
#define E_CAS(n, m) ENTRY(cas##n##_##m)
#define E_OPS(n, m)                                                                        \
    E_CAS(n, m) ENTRY(swp##n##_##m) ENTRY(ldadd##n##_##m) ENTRY(ldclr##n##_##m)            \
    ENTRY(ldeor##n##_##m) ENTRY(ldset##n##_##m)

static const struct { const char *name; void (*fn)(void); } outline[] = {
    MODELS(E_OPS, 1) MODELS(E_OPS, 2) MODELS(E_OPS, 4) MODELS(E_OPS, 8) MODELS(E_CAS, 16)
};

void *objrt_aarch64_outline_atomic(const char *name)
{
    if (strncmp(name, "__aarch64_", 10) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof outline / sizeof outline[0]; i++)
        if (strcmp(outline[i].name, name) == 0)
            return (void *)(uintptr_t)outline[i].fn;
    return NULL;
}

#else

void *objrt_aarch64_outline_atomic(const char *name)
{
    (void)name;
    return NULL;
}

#endif

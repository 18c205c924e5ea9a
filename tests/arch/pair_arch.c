/*
 * pair_arch.c - the synthetic backend of pair_arch.h: what an architecture with paired
 * relocations supplies (a table with F_PAIRED types, find_partner, pair_value, its encoders).
 */
#include <stdio.h>
#include <string.h>

#include "arch/pair_arch.h"

enum { FLD_X86 = 0, FLD_HI32, FLD_WORD32 };     /* which encoder writes a field */

static objrt_howto howtos[R_TEST_END];
struct objrt_arch pair_arch, pair_arch_wrong;

static objrt_howto howto(const char *name, uint8_t f, uint8_t c, uint8_t bits, uint8_t field)
{
    objrt_howto h = { .name = name, .formula = f, .check = c, .bits = bits, .field = field,
                      .size = 4, .tls = TLS_NO, .direct = OBJRT_DIRECT(f, TLS_NO),
                      .abs_ranged = OBJRT_ABS_RANGED(f, c, bits), .plain = 0,
                      OBJRT_FITS(c, bits, 0) };
    return h;
}

static uint64_t upper(uint64_t v) { return (v + 0x800) & ~(uint64_t)0xfff; }

static void pair_write(const objrt_howto *h, uint8_t *loc, uint64_t v)
{
    uint32_t w = (uint32_t)(h->field == FLD_HI32 ? upper(v) : v);
    if (h->field == FLD_X86)
        objrt_arch_x86_64.write(h, loc, v);
    else
        memcpy(loc, &w, 4);
}

static const char *type_name(uint32_t type)
{
    return type < R_TEST_END && howtos[type].name ? howtos[type].name : "an unknown type";
}

/* The nearest entry before q->k that patches offset `at`, or q->k when there is none. The
 * partners this backend knows come before their paired site, as assemblers emit them; a
 * backend for hostile input at scale would index the section once instead. */
static size_t entry_before(const objrt_pair_query *q, uint64_t at)
{
    for (size_t i = q->k; i-- > 0;)
        if (q->rela[i].r_offset == at)
            return i;
    return q->k;
}

static int pair_find(const objrt_howto *h, const objrt_pair_query *q, size_t *partner,
                     char *why, size_t len)
{
    bool lo = h == &howtos[R_TEST_PCREL_LO];
    uint32_t want = lo ? R_TEST_PCREL_HI : R_TEST_ADD32;
    uint64_t at = lo ? q->sym_value : q->rela[q->k].r_offset;
    const char *where = lo ? "where its label points" : "its own offset";
    if (lo && !q->sym_in_target) {
        snprintf(why, len, "its label is not in the section it patches");
        return -1;
    }
    size_t i = entry_before(q, at);
    if (i == q->k) {
        snprintf(why, len, "no %s relocation before it at offset 0x%llx, %s",
                 howtos[want].name, (unsigned long long)at, where);
        return -1;
    }
    if (ELF64_R_TYPE(q->rela[i].r_info) != want) {
        snprintf(why, len, "the relocation at offset 0x%llx, %s, is %s, not %s",
                 (unsigned long long)at, where, type_name(ELF64_R_TYPE(q->rela[i].r_info)),
                 howtos[want].name);
        return -1;
    }
    *partner = i;
    return 0;
}

static uint64_t pair_value(const objrt_pair_end *s, const objrt_pair_end *p)
{
    if (s->h == &howtos[R_TEST_PCREL_LO])
        return p->value - upper(p->value);
    return p->value - (s->S + (uint64_t)s->A);
}

/* The planted bugs of the control: plausible ones, whose values still fit their fields. */
static uint64_t pair_value_wrong(const objrt_pair_end *s, const objrt_pair_end *p)
{
    if (s->h == &howtos[R_TEST_PCREL_LO]) {
        uint64_t v = p->S + (uint64_t)p->A - s->P;      /* the LO's place, not the HI's */
        return v - upper(v);
    }
    return s->S + (uint64_t)s->A - p->value;
}

void pair_arch_init(void)
{
    const struct objrt_arch *x = &objrt_arch_x86_64;
    memcpy(howtos, x->howtos, x->nhowtos * sizeof *howtos);
    /* 31 bits checked, so that the rounded upper part always fits its 32-bit field */
    howtos[R_TEST_PCREL_HI] = howto("R_TEST_PCREL_HI", F_PCREL, C_SIGNED, 31, FLD_HI32);
    howtos[R_TEST_PCREL_LO] = howto("R_TEST_PCREL_LO", F_PAIRED, C_SIGNED, 12, FLD_WORD32);
    howtos[R_TEST_ADD32] = howto("R_TEST_ADD32", F_ABS, C_NONE, 32, FLD_WORD32);
    howtos[R_TEST_SUB32] = howto("R_TEST_SUB32", F_PAIRED, C_SIGNED, 32, FLD_WORD32);
    pair_arch = *x;
    pair_arch.name = "x86_64 with test pairs";
    pair_arch.howtos = howtos;
    pair_arch.nhowtos = R_TEST_END;
    pair_arch.write = pair_write;
    pair_arch.find_partner = pair_find;
    pair_arch.pair_value = pair_value;
    pair_arch_wrong = pair_arch;
    pair_arch_wrong.pair_value = pair_value_wrong;
}

/* number.c - a typed number, read whole or refused (number.h says what is accepted). */
#include <stdbool.h>
#include <stdio.h>

#include "base/escape.h"
#include "base/number.h"

static int digit(char c, unsigned base)
{
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
            c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    return v >= 0 && (unsigned)v < base ? v : -1;
}

/* The digits of s in base: false when one is not a digit or the value passes 2^64-1. */
static bool digits(const char *s, unsigned base, uint64_t *out, bool *overflow)
{
    uint64_t v = 0;
    *overflow = false;
    if (!*s)
        return false;
    for (; *s; s++) {
        int d = digit(*s, base);
        if (d < 0)
            return false;
        if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, (uint64_t)d, &v))
            *overflow = true;
    }
    *out = v;
    return !*overflow;
}

int objrt_number(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *why,
                 size_t whylen)
{
    char quoted[128];
    bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X'), overflow;
    uint64_t v = 0;
    bool ok = digits(hex ? text + 2 : text, hex ? 16 : 10, &v, &overflow);
    if (ok && v >= min && v <= max) {
        *out = v;
        return 0;
    }
    objrt_escape(text, quoted, sizeof quoted);
    if (ok || overflow)
        snprintf(why, whylen, "'%s': %s; expected a whole number from %llu to %llu", quoted,
                 ok && v < min ? "too small" : "too large", (unsigned long long)min,
                 (unsigned long long)max);
    else
        snprintf(why, whylen, "'%s': expected a whole number from %llu to %llu (decimal, or "
                 "hexadecimal after 0x)", quoted, (unsigned long long)min, (unsigned long long)max);
    return -1;
}

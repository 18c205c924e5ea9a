/* f16.c - float16 the way TVM's LLVM codegen leaves it in an object: weak definitions of
 * libgcc's conversion helpers __truncsfhf2 / __extendhfsf2 inside the object itself, which
 * its own code calls (a unit must bind to these, not fail on or prefer another copy).
 *   round_half(x: float) -> float   x rounded to float16 and back
 *   helper_calls() -> int           how often the object's own helpers ran */
#include <stdint.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#define EXPORT __attribute__((visibility("default")))
#define WEAK __attribute__((weak, visibility("hidden"), noinline))

static int64_t calls;

/* float -> binary16 bits, rounding to nearest even. */
WEAK uint16_t __truncsfhf2(float f)
{
    uint32_t x, mant, half, rem, mid;
    int32_t exp;
    memcpy(&x, &f, sizeof x);
    calls++;
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    mant = x & 0x7fffff;
    if (((x >> 23) & 0xff) == 0xff)
        return sign | 0x7c00 | (mant ? 0x200 : 0);          /* inf, NaN */
    exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    if (exp >= 31)
        return sign | 0x7c00;
    if (exp <= 0) {                                          /* subnormal half, or 0 */
        if (exp < -10)
            return sign;
        mant |= 0x800000;
        uint32_t shift = (uint32_t)(14 - exp);
        half = mant >> shift;
        rem = mant & ((1u << shift) - 1);
        mid = 1u << (shift - 1);
    } else {
        half = ((uint32_t)exp << 10) | (mant >> 13);
        rem = mant & 0x1fff;
        mid = 0x1000;
    }
    if (rem > mid || (rem == mid && (half & 1)))
        half++;                                              /* may carry into inf: right */
    return sign | (uint16_t)half;
}

/* binary16 bits -> float (exact). */
WEAK float __extendhfsf2(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, x;
    float f;
    calls++;
    if (exp == 0x1f)
        x = sign | 0x7f800000 | (mant << 13);
    else if (exp)
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    else if (!mant)
        x = sign;
    else {                                                   /* subnormal: normalise */
        int e = -1;
        do {
            e++;
            mant <<= 1;
        } while (!(mant & 0x400));
        x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
    }
    memcpy(&f, &x, sizeof f);
    return f;
}

EXPORT int __tvm_ffi_round_half(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    if (n != 1 || a[0].type_index != kTVMFFIFloat) {
        TVMFFIErrorSetRaisedFromCStr("TypeError", "round_half(x: float)");
        return -1;
    }
    r->type_index = kTVMFFIFloat;
    r->v_float64 = __extendhfsf2(__truncsfhf2((float)a[0].v_float64));
    return 0;
}

EXPORT int __tvm_ffi_helper_calls(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n;
    r->type_index = kTVMFFIInt;
    r->v_int64 = calls;
    return 0;
}

/*
 * unit.c - the fixture of t_reuse.c, compiled by tests/suites/35-reuse.sh in several
 * shapes (-D sizes, defaults below). With the defaults every group fits one 4 KiB page;
 * "big" and "small" have the same three pages but "big" fills them (code, read-only data,
 * data) where "small" has padding, .bss and a COMMON block: a unit placed in the other's
 * pages must still read zeros there.
 */
#include <stddef.h>
#include <string.h>

#ifndef CODE_FILL
#define CODE_FILL 16            /* bytes of 0xcc in .text (never executed) */
#endif
#ifndef RO_BYTES
#define RO_BYTES 16             /* .rodata, every byte 0x5a */
#endif
#ifndef DATA_BYTES
#define DATA_BYTES 16           /* .data, every byte 0x11 */
#endif
#ifndef DATA_ALIGN
#define DATA_ALIGN 16
#endif
#ifndef BSS_BYTES
#define BSS_BYTES 2048
#endif
#ifndef COMMON_BYTES
#define COMMON_BYTES 1024       /* a tentative definition: COMMON with -fcommon */
#endif

#define STR_(x) #x
#define STR(x) STR_(x)
__asm__(".pushsection .text\n.globl reuse_code_fill\nreuse_code_fill:\n.fill " STR(CODE_FILL)
        ",1,0xcc\n.popsection\n");

extern void *__dso_handle;      /* the loader's: the unit's base */
const unsigned char reuse_ro[RO_BYTES] = { [0 ... RO_BYTES - 1] = 0x5a };
unsigned char reuse_data[DATA_BYTES] __attribute__((aligned(DATA_ALIGN))) =
    { [0 ... DATA_BYTES - 1] = 0x11 };
unsigned char reuse_bss[BSS_BYTES] = { 0 };     /* .bss */
unsigned char reuse_common[COMMON_BYTES];

void *reuse_base(void) { return &__dso_handle; }

/* Bytes of .bss and COMMON that are not zero. */
size_t reuse_nonzero_bss(void)
{
    size_t n = 0;
    for (size_t i = 0; i < BSS_BYTES; i++)
        n += reuse_bss[i] != 0;
    for (size_t i = 0; i < COMMON_BYTES; i++)
        n += reuse_common[i] != 0;
    return n;
}

/* 1 when .data and .rodata hold their initial bytes. */
int reuse_content_ok(void)
{
    for (size_t i = 0; i < DATA_BYTES; i++)
        if (reuse_data[i] != 0x11)
            return 0;
    for (size_t i = 0; i < RO_BYTES; i++)
        if (((volatile const unsigned char *)reuse_ro)[i] != 0x5a)
            return 0;
    return 1;
}

void reuse_fill_bss(unsigned char v)
{
    memset(reuse_bss, v, BSS_BYTES);
    memset(reuse_common, v, COMMON_BYTES);
}

/*
 * t_eh_frame - a malformed .eh_frame is refused before the unwinder sees it (issue 10,
 * defect 3). argv: basic.o (gcc: one "zR" CIE at 0, FDEs from 0x18 whose pc_begin is
 * relocated). Each case patches the file (or its .rela.eh_frame), loads it with
 * constructors off, and then calls backtrace() from the host - the unwinder walks every
 * registered section at its first search. A hostile case must be refused with an error
 * naming the object and .eh_frame; before the fix each one loaded (and some crashed the
 * backtrace). The control (unpatched) must load and backtrace.
 */
#include "t_common.h"
#include <execinfo.h>

static unsigned char *orig;
static size_t orig_size;

typedef struct edit {
    const char *name;
    long off;                   /* offset in .eh_frame, or -1: the edit is in .rela.eh_frame */
    unsigned bytes;             /* 1 or 4 */
    uint32_t value;
    const char *needle;         /* in the error */
} edit;

/* Layout this test relies on: gcc's CIE "zR" (version 1, aug data 0x1b at 16), FDE at 0x18. */
static int layout_ok(unsigned char *img, char *why, size_t whylen)
{
    int eh = t_find_section(img, ".eh_frame"), rela = t_find_section(img, ".rela.eh_frame");
    if (eh < 0 || rela < 0) { snprintf(why, whylen, "fixture has no .eh_frame/.rela.eh_frame"); return 0; }
    const unsigned char *s = img + t_shdr(img, (unsigned)eh)->sh_offset;
    const Elf64_Rela *r = (const Elf64_Rela *)(img + t_shdr(img, (unsigned)rela)->sh_offset);
    if (s[8] != 1 || memcmp(s + 9, "zR", 3) != 0 || s[16] != 0x1b || r[0].r_offset != 0x20) {
        snprintf(why, whylen, "fixture .eh_frame layout is not gcc's usual one");
        return 0;
    }
    return 1;
}

static int run_edit(void *arg, char *why, size_t whylen)
{
    const edit *e = arg;
    unsigned char *img = malloc(orig_size);
    memcpy(img, orig, orig_size);
    if (!layout_ok(img, why, whylen)) return 0;
    unsigned char *eh = img + t_shdr(img, (unsigned)t_find_section(img, ".eh_frame"))->sh_offset;
    Elf64_Rela *r = (Elf64_Rela *)(img + t_shdr(img, (unsigned)t_find_section(img, ".rela.eh_frame"))->sh_offset);
    if (e->off >= 0)
        memcpy(eh + e->off, &e->value, e->bytes);
    else
        r[0].r_offset = e->value;                   /* the relocation lands elsewhere */
    objrt_ctx *ctx = objrt_new();
    objrt_options opt = { .no_constructors = 1 };
    objrt_set_options(ctx, &opt);
    objrt_unit *u = t_load_mem(ctx, "ehf.o", img, orig_size);
    void *frames[64];
    int n = backtrace(frames, 64);                  /* walks every registered .eh_frame */
    int ok;
    if (!e->needle) {
        ok = u && n >= 2;
        if (!ok)
            snprintf(why, whylen, "control: %s (backtrace %d frames)",
                     u ? "loaded" : objrt_error(ctx), n);
    } else {
        const char *needles[] = { ".eh_frame", e->needle, NULL };
        ok = !u && t_check_error(ctx, "ehf.o", needles, why, whylen);
        if (u)
            snprintf(why, whylen, "loaded and registered with the unwinder (backtrace: %d frames)", n);
    }
    if (u) objrt_unload(u);
    objrt_free(ctx);
    free(img);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: t_eh_frame basic.o\n"); return 2; }
    orig = t_read_file(argv[1], &orig_size);
    static const edit cases[] = {
        { "control", 0, 1, 0x14, NULL },           /* rewrites the CIE length as it is */
        { "cie-pointer-outside-section", 0x1c, 4, 0x7ffffff0, "CIE pointer" },
        { "cie-pointer-into-cie", 0x1c, 4, 0x14, "CIE pointer" },
        { "cie-version-2", 8, 1, 2, "version" },
        { "augmentation-unknown-letter", 10, 1, 'X', "augmentation" },
        { "augmentation-no-z", 9, 1, 'R', "augmentation" },
        { "fde-encoding-indirect", 16, 1, 0x9b, "encoding" },
        { "fde-encoding-uleb", 16, 1, 0x01, "encoding" },
        { "fde-range-past-unit-code", 0x24, 4, 0x10000000, "outside the unit's code" },
        { "relocation-rewrites-fde-length", -1, 4, 0x18, "length" },
        { "cfa-unknown-opcode", 0x2b, 1, 0x3f, "instruction" },
        { "cfa-operand-past-record", 0x2b, 1, 0x0e, "instruction" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[128];
        snprintf(name, sizeof name, "eh-frame-%s", cases[i].name);
        t_case(name, run_edit, (void *)&cases[i]);
    }
    free(orig);
    return t_exit_status();
}

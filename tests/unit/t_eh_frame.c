/*
 * t_eh_frame - a malformed .eh_frame is refused before the unwinder sees it (issue 10,
 * defect 3). argv: basic.o (gcc: one "zR" CIE at 0, then FDEs whose pc_begin is
 * relocated; the CIE is 0x14 bytes on x86_64, 0x10 on AArch64). Each case patches the file (or its .rela.eh_frame), loads it with
 * constructors off, and then calls backtrace() from the host - the unwinder walks every
 * registered section at its first search. A hostile case must be refused with an error
 * naming the object and .eh_frame; before the fix each one loaded (and some crashed the
 * backtrace). The control (unpatched) must load and backtrace.
 */
#include "t_common.h"
#include <execinfo.h>

static unsigned char *orig;
static size_t orig_size;

enum { CIE, FDE, FDE_END, RELA };    /* what an edit's offset is relative to */

typedef struct edit {
    const char *name;
    int base;                   /* CIE start, first FDE start or end; RELA: r_offset := FDE + off */
    long off;
    unsigned bytes;             /* 1 or 4 */
    uint32_t value;
    const char *needle;         /* in the error */
} edit;

/* Layout this test relies on: gcc's CIE "zR" (version 1, aug data 0x1b at 16), then an FDE
 * whose pc_begin (FDE+8) is the first relocation. Returns the FDE's offset, 0 if not so. */
static size_t layout_ok(unsigned char *img, char *why, size_t whylen)
{
    int eh = t_find_section(img, ".eh_frame"), rela = t_find_section(img, ".rela.eh_frame");
    if (eh < 0 || rela < 0) { snprintf(why, whylen, "fixture has no .eh_frame/.rela.eh_frame"); return 0; }
    const unsigned char *s = img + t_shdr(img, (unsigned)eh)->sh_offset;
    const Elf64_Rela *r = (const Elf64_Rela *)(img + t_shdr(img, (unsigned)rela)->sh_offset);
    uint32_t cie_len;
    memcpy(&cie_len, s, 4);
    size_t fde = 4 + (size_t)cie_len;
    if (s[8] != 1 || memcmp(s + 9, "zR", 3) != 0 || s[16] != 0x1b || r[0].r_offset != fde + 8) {
        snprintf(why, whylen, "fixture .eh_frame layout is not gcc's usual one");
        return 0;
    }
    return fde;
}

static int run_edit(void *arg, char *why, size_t whylen)
{
    const edit *e = arg;
    unsigned char *img = malloc(orig_size);
    memcpy(img, orig, orig_size);
    size_t fde = layout_ok(img, why, whylen);
    if (!fde) return 0;
    unsigned char *eh = img + t_shdr(img, (unsigned)t_find_section(img, ".eh_frame"))->sh_offset;
    Elf64_Rela *r = (Elf64_Rela *)(img + t_shdr(img, (unsigned)t_find_section(img, ".rela.eh_frame"))->sh_offset);
    uint32_t fde_len;
    memcpy(&fde_len, eh + fde, 4);
    size_t at = e->base == CIE ? 0 : e->base == FDE_END ? fde + 4 + fde_len : fde;
    if (e->base == RELA)
        r[0].r_offset = fde + (size_t)e->off;       /* the relocation lands elsewhere */
    else
        memcpy(eh + at + e->off, &e->value, e->bytes);
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
    static edit cases[] = {
        { "control", CIE, 8, 1, 1, NULL },                 /* rewrites the version as it is */
        { "cie-pointer-outside-section", FDE, 4, 4, 0x7ffffff0, "CIE pointer" },
        { "cie-pointer-into-cie", FDE, 4, 4, 0, "CIE pointer" },   /* value set below */
        { "cie-version-2", CIE, 8, 1, 2, "version" },
        { "augmentation-unknown-letter", CIE, 10, 1, 'X', "augmentation" },
        { "augmentation-no-z", CIE, 9, 1, 'R', "augmentation" },
        { "fde-encoding-indirect", CIE, 16, 1, 0x9b, "encoding" },
        { "fde-encoding-uleb", CIE, 16, 1, 0x01, "encoding" },
        { "fde-range-past-unit-code", FDE, 12, 4, 0x10000000, "outside the unit's code" },
        { "relocation-rewrites-fde-length", RELA, 0, 4, 0, "length" },
        { "cfa-unknown-opcode", FDE_END, -1, 1, 0x3f, "instruction" },
        { "cfa-operand-past-record", FDE_END, -1, 1, 0x0e, "instruction" },
    };
    /* the FDE's CIE pointer (at FDE+4) aimed 8 bytes into the CIE: FDE + 4 - 8 */
    {
        unsigned char *img = malloc(orig_size);
        memcpy(img, orig, orig_size);
        char why[256];
        size_t fde = layout_ok(img, why, sizeof why);
        cases[2].value = (uint32_t)(fde + 4 - 8);
        free(img);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[128];
        snprintf(name, sizeof name, "eh-frame-%s", cases[i].name);
        t_case(name, run_edit, (void *)&cases[i]);
    }
    free(orig);
    return t_exit_status();
}

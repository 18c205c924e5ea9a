/*
 * t_eh_frame - a malformed .eh_frame is refused before the unwinder sees it (issue 10,
 * defect 3). argv: basic.o (gcc: one "zR" CIE at 0, then FDEs whose pc_begin is
 * relocated; the CIE is 0x14 bytes on x86_64, 0x10 on AArch64). Each case patches the file (or its .rela.eh_frame), loads it with
 * constructors off, and then calls backtrace() from the host - the unwinder walks every
 * registered section at its first search. A hostile case must be refused with an error
 * naming the object and .eh_frame; before the fix each one loaded (and some crashed the
 * backtrace). The control (unpatched) must load and backtrace.
 *
 * argv[2]: twocie.o (gcc -fexceptions: a "zR" CIE, a "zPLR" CIE, and an FDE after the
 * second CIE's FDEs that points back at the first). eh_frame.c keeps the CIE the previous
 * FDE used and reads one byte past a record without a bounds check (issue 13); these
 * cases pin what that must not change:
 *   two-cies-control                    the interleaved FDEs load, backtrace, and run
 *   two-cies-pointer-past-cached-cie    that FDE's CIE pointer aimed 4 bytes into the CIE
 *                                       the previous FDE used: refused
 *   cfa-operand-into-terminator         (basic.o) the last FDE ends in def_cfa_offset,
 *                                       whose operand would be the terminator: refused
 */
#include "t_common.h"
#include <execinfo.h>

static unsigned char *orig;
static size_t orig_size;

enum { CIE, FDE, FDE_END, RELA, LAST_END };  /* what an edit's offset is relative to */

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
    if (e->base == LAST_END)        /* the end of the section's last record */
        at = t_shdr(img, (unsigned)t_find_section(img, ".eh_frame"))->sh_size;
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

/* ---- two CIEs (twocie.o) ---- */

static unsigned char *two;
static size_t two_size;

/* The first FDE whose CIE is not the one the FDE before it used (*cie_prev: that one's
 * offset), or 0 when the fixture has none. */
static size_t fde_switching_cie(unsigned char *img, size_t *cie_prev)
{
    int eh = t_find_section(img, ".eh_frame");
    if (eh < 0) return 0;
    const unsigned char *s = img + t_shdr(img, (unsigned)eh)->sh_offset;
    size_t size = t_shdr(img, (unsigned)eh)->sh_size, prev = SIZE_MAX;
    for (size_t at = 0; at + 8 <= size;) {
        uint32_t len, id;
        memcpy(&len, s + at, 4);
        memcpy(&id, s + at + 4, 4);
        if (len == 0 || len > size - at - 4) return 0;
        if (id != 0 && id <= at + 4) {
            size_t cie = at + 4 - id;
            if (prev != SIZE_MAX && cie != prev) { *cie_prev = prev; return at; }
            prev = cie;
        }
        at += 4 + (size_t)len;
    }
    return 0;
}

/* arg NULL: the control; else the FDE's CIE pointer is aimed 4 bytes into the CIE the
 * FDE before it used. */
static int run_two(void *arg, char *why, size_t whylen)
{
    unsigned char *img = t_copy(two, two_size);
    size_t prev = 0, fde = fde_switching_cie(img, &prev);
    if (!fde) {
        snprintf(why, whylen, "fixture has no FDE that switches back to an earlier CIE");
        free(img);
        return 0;
    }
    if (arg) {
        unsigned char *eh = img + t_shdr(img, (unsigned)t_find_section(img, ".eh_frame"))->sh_offset;
        uint32_t delta = (uint32_t)(fde + 4 - (prev + 4));
        memcpy(eh + fde + 4, &delta, 4);
    }
    objrt_ctx *ctx = objrt_new();
    objrt_options opt = { .no_constructors = 1 };
    objrt_set_options(ctx, &opt);
    objrt_unit *u = t_load_mem(ctx, "twocie.o", img, two_size);
    void *frames[64];
    int n = backtrace(frames, 64), ok;
    if (!arg) {
        int (*after)(int) = u ? (int (*)(int))objrt_sym(ctx, "twocie_after") : NULL;
        int (*guarded)(int) = u ? (int (*)(int))objrt_sym(ctx, "twocie_guarded") : NULL;
        ok = after && guarded && after(5) == 15 && guarded(4) == 13 && n >= 2;
        if (!ok)
            snprintf(why, whylen, "control: %s (backtrace %d frames)",
                     u ? "loaded, but the functions are missing or wrong" : objrt_error(ctx), n);
    } else {
        const char *needles[] = { ".eh_frame", "CIE pointer", NULL };
        ok = !u && t_check_error(ctx, "twocie.o", needles, why, whylen);
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
    if (argc < 3) { fprintf(stderr, "usage: t_eh_frame basic.o twocie.o\n"); return 2; }
    orig = t_read_file(argv[1], &orig_size);
    two = t_read_file(argv[2], &two_size);
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
        { "cfa-operand-into-terminator", LAST_END, -1, 1, 0x0e, "instruction" },
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
    t_case("eh-frame-two-cies-control", run_two, NULL);
    t_case("eh-frame-two-cies-pointer-past-cached-cie", run_two, (void *)1);
    free(orig);
    free(two);
    return t_exit_status();
}

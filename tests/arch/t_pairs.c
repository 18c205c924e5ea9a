/*
 * t_pairs.c - paired relocations (F_PAIRED, src/arch/arch.h) through a synthetic backend
 * registered as a third architecture would be (tests/arch/pair_arch.c).
 *
 * usage: t_pairs
 * The object is built here with <elf.h>: three x86-64 functions that each return the
 * address of `data` (8 bytes holding MARKER, at an offset in .data whose low 12 bits are
 * 0x9a8, so that the low part is negative and the upper part rounds up):
 *   f_hilo    lea hi(%rip), %rax; add $lo, %rax    R_TEST_PCREL_HI + R_TEST_PCREL_LO
 *   f_addsub  lea f_addsub(%rip), %rax; add $d, %rax   R_TEST_ADD32 data + R_TEST_SUB32 f_addsub
 *   f_ref     lea data(%rip), %rax                 R_X86_64_PC32: the reference
 * Cases:
 *   builtin-refuses          the built-in x86_64 backend refuses the private types
 *   hilo-address, addsub-address   each function returns the address f_ref returns, which
 *                            objrt_unit_sym("data") gives too and where MARKER is read
 *   full-walk                the same with OBJRT_FULL_WALK=1 (no fast path anywhere)
 *   lo-missing, lo-wrong-kind, sub-wrong-kind   the load fails, naming the file, section,
 *                            offset, relocation entry and type and what was expected
 *   error-escaped            a control byte in the file's name is escaped in that error
 *   sub-overflow             a difference beyond 32 signed bits is refused by the overflow
 *                            rule, never truncated
 *   HARNESS fixture-halves   the loaded f_hilo holds a 4096-multiple upper part and a
 *                            negative low part (the case the rounding decides)
 *   HARNESS control-hilo, HARNESS control-addsub   with pair_value's planted bugs
 *                            (pair_arch_wrong) the comparison fails
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objrt.h"
#include "arch/pair_arch.h"
#include "report.h"

#define MARKER 0x5eed0fa1a5e5ab1eull
#define DATA_OFF 0x19a8u                /* `data` in .data: low 12 bits 0x9a8 */

static const uint8_t text[] = {
    0x48, 0x8d, 0x05, 0, 0, 0, 0,       /*  0 f_hilo: lea hi(%rip), %rax (HI at 3) */
    0x48, 0x05, 0, 0, 0, 0,             /*  7 add $lo, %rax (LO at 9, label at 3) */
    0xc3, 0xcc, 0xcc,                   /* 13 ret */
    0x48, 0x8d, 0x05, 0xf9, 0xff, 0xff, 0xff,   /* 16 f_addsub: lea -7(%rip), %rax */
    0x48, 0x05, 0, 0, 0, 0,             /* 23 add $d, %rax (ADD and SUB at 25) */
    0xc3, 0xcc, 0xcc,                   /* 29 ret */
    0x48, 0x8d, 0x05, 0, 0, 0, 0,       /* 32 f_ref: lea data(%rip), %rax (PC32 at 35) */
    0xc3,                               /* 39 ret */
};
enum { OFF_HI = 3, OFF_LO = 9, OFF_ADDSUB = 25, OFF_REF = 35 };
enum { SYM_LABEL = 1, SYM_HILO, SYM_ADDSUB, SYM_REF, SYM_DATA, NSYMS };

/* What a variant changes in the object. */
typedef struct variant {
    uint64_t label;                     /* the LO's label: OFF_HI, or elsewhere */
    uint32_t hi_type, add_type;         /* the types of the LO's and the SUB's partners */
    int64_t sub_addend;
} variant;
static const variant good = { OFF_HI, R_TEST_PCREL_HI, R_TEST_ADD32, 0 };

typedef struct obj {
    uint8_t bytes[16384];
    size_t size;
} obj;

static size_t put(obj *o, const void *p, size_t n, size_t align)
{
    o->size = (o->size + align - 1) & ~(align - 1);
    size_t at = o->size;
    memcpy(o->bytes + at, p, n);
    o->size += n;
    return at;
}

static void build(obj *o, const variant *v)
{
    static const char strtab[] = "\0.Lhi\0f_hilo\0f_addsub\0f_ref\0data";
    static const char shstr[] = "\0.text\0.data\0.rela.text\0.symtab\0.strtab\0.shstrtab";
    uint8_t data[DATA_OFF + 8] = { 0 };
    uint64_t marker = MARKER;
    memcpy(data + DATA_OFF, &marker, 8);
    Elf64_Sym syms[NSYMS] = {
        [SYM_LABEL] = { 1, ELF64_ST_INFO(STB_LOCAL, STT_NOTYPE), 0, 1, v->label, 0 },
        [SYM_HILO] = { 6, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, 0, 16 },
        [SYM_ADDSUB] = { 13, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, 16, 16 },
        [SYM_REF] = { 22, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, 32, 8 },
        [SYM_DATA] = { 28, ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT), 0, 2, DATA_OFF, 8 },
    };
    Elf64_Rela rela[] = {
        { OFF_HI, ELF64_R_INFO(SYM_DATA, v->hi_type), -4 },
        { OFF_LO, ELF64_R_INFO(SYM_LABEL, R_TEST_PCREL_LO), 0 },
        { OFF_ADDSUB, ELF64_R_INFO(SYM_DATA, v->add_type), 0 },
        { OFF_ADDSUB, ELF64_R_INFO(SYM_ADDSUB, R_TEST_SUB32), v->sub_addend },
        { OFF_REF, ELF64_R_INFO(SYM_DATA, R_X86_64_PC32), -4 },
    };
    Elf64_Ehdr eh = { .e_type = ET_REL, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                      .e_ehsize = sizeof eh, .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 7,
                      .e_shstrndx = 6 };
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    o->size = 0;
    put(o, &eh, sizeof eh, 1);
    Elf64_Shdr sh[7] = {
        [1] = { 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, put(o, text, sizeof text, 16),
                sizeof text, 0, 0, 16, 0 },
        [2] = { 7, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0, put(o, data, sizeof data, 8),
                sizeof data, 0, 0, 8, 0 },
        [3] = { 13, SHT_RELA, SHF_INFO_LINK, 0, put(o, rela, sizeof rela, 8), sizeof rela,
                4, 1, 8, sizeof(Elf64_Rela) },
        [4] = { 24, SHT_SYMTAB, 0, 0, put(o, syms, sizeof syms, 8), sizeof syms, 5,
                SYM_HILO, 8, sizeof(Elf64_Sym) },
        [5] = { 32, SHT_STRTAB, 0, 0, put(o, strtab, sizeof strtab, 1), sizeof strtab, 0, 0,
                1, 0 },
        [6] = { 40, SHT_STRTAB, 0, 0, put(o, shstr, sizeof shstr, 1), sizeof shstr, 0, 0,
                1, 0 },
    };
    Elf64_Ehdr *h = (Elf64_Ehdr *)o->bytes;
    h->e_shoff = put(o, sh, sizeof sh, 8);
}

/* ---- loading ---- */

typedef void *(*fn_t)(void);
typedef struct loaded {
    objrt_ctx *ctx;
    objrt_unit *u;
    void *hilo, *addsub, *ref, *data;   /* what the functions return; data: objrt_unit_sym */
    uint32_t hi_field;                  /* the loaded f_hilo's two halves */
    int32_t lo_field;
} loaded;

/* Load the variant with backend `a` registered; 0 with the results, or -1 and the error. */
static int load(const struct objrt_arch *a, const variant *v, const char *name, loaded *r,
                char *why)
{
    static obj o;
    build(&o, v);
    objrt_arch_register(a);
    memset(r, 0, sizeof *r);
    r->ctx = objrt_new();
    objrt_input in = { name, o.bytes, o.size };
    if (!(r->u = objrt_load_memory(r->ctx, &in, 1))) {
        snprintf(why, 1024, "%s", objrt_error(r->ctx));
        return -1;
    }
    uint8_t *f = objrt_unit_sym(r->u, "f_hilo");
    r->hilo = ((fn_t)(void *)f)();
    r->addsub = ((fn_t)objrt_unit_sym(r->u, "f_addsub"))();
    r->ref = ((fn_t)objrt_unit_sym(r->u, "f_ref"))();
    r->data = objrt_unit_sym(r->u, "data");
    memcpy(&r->hi_field, f + OFF_HI, 4);
    memcpy(&r->lo_field, f + OFF_LO, 4);
    return 0;
}

static void unload(loaded *r)
{
    if (r->u)
        objrt_unload(r->u);
    objrt_free(r->ctx);
}

/* The reference address: f_ref's (a plain R_X86_64_PC32), objrt_unit_sym's, and MARKER. */
static int reference_ok(const loaded *r, char *why)
{
    uint64_t m = 0;
    if (r->ref != r->data) {
        snprintf(why, 1024, "f_ref returned %p, objrt_unit_sym(data) %p", r->ref, r->data);
        return 0;
    }
    memcpy(&m, r->data, 8);
    if (m != MARKER) {
        snprintf(why, 1024, "data at %p holds 0x%llx, not the marker", r->data,
                 (unsigned long long)m);
        return 0;
    }
    return 1;
}

static char why[1024];

static int builtin_refuses(void)
{
    loaded r;
    int ok = load(&objrt_arch_x86_64, &good, "t_pairs.o", &r, why) < 0 &&
             strstr(why, "t_pairs.o: section .text+0x3: relocation unknown (type 240)") &&
             strstr(why, "unsupported relocation type");
    if (!ok && !why[0])
        snprintf(why, sizeof why, "loaded with the built-in backend");
    unload(&r);
    return !!ok;
}

/* Both functions of a load with backend a against the reference. */
static int addresses(const struct objrt_arch *a, int which)
{
    loaded r;
    int ok = 0;
    if (load(a, &good, "t_pairs.o", &r, why) == 0 && reference_ok(&r, why)) {
        void *got = which ? r.addsub : r.hilo;
        ok = got == r.ref;
        if (!ok)
            snprintf(why, sizeof why, "%s returned %p, data is at %p",
                     which ? "f_addsub" : "f_hilo", got, r.ref);
    }
    unload(&r);
    return ok;
}

static int hilo_address(void) { return addresses(&pair_arch, 0); }
static int addsub_address(void) { return addresses(&pair_arch, 1); }

static int full_walk(void)
{
    setenv("OBJRT_FULL_WALK", "1", 1);
    int ok = addresses(&pair_arch, 0) && addresses(&pair_arch, 1);
    unsetenv("OBJRT_FULL_WALK");
    return ok;
}

static int fixture_halves(void)
{
    loaded r;
    int ok = 0;
    if (load(&pair_arch, &good, "t_pairs.o", &r, why) == 0) {
        ok = r.hi_field % 4096 == 0 && r.lo_field < 0 && r.lo_field >= -2048;
        if (!ok)
            snprintf(why, sizeof why, "upper part 0x%x, low part %d", r.hi_field, r.lo_field);
    }
    unload(&r);
    return ok;
}

/* A load that must fail with every one of the NULL-terminated texts in its error. */
static int refused(const variant *v, const char *name, const char *const *texts)
{
    loaded r;
    int ok = load(&pair_arch, v, name, &r, why) < 0;
    if (!ok)
        snprintf(why, sizeof why, "loaded");
    for (; ok && *texts; texts++)
        if (!strstr(why, *texts)) {
            char err[sizeof why];
            memcpy(err, why, sizeof err);
            snprintf(why, sizeof why, "error lacks \"%.300s\": %.600s", *texts, err);
            ok = 0;
        }
    unload(&r);
    return ok;
}

static int lo_missing(void)
{
    variant v = good;
    v.label = 0;
    static const char *const t[] = {
        "t_pairs.o: section .text+0x9: relocation R_TEST_PCREL_LO against '.Lhi': entry 1 "
        "of .rela.text: no R_TEST_PCREL_HI relocation before it at offset 0x0, where its "
        "label points", NULL };
    return refused(&v, "t_pairs.o", t);
}

static int lo_wrong_kind(void)
{
    variant v = good;
    v.hi_type = R_X86_64_PC32;
    static const char *const t[] = {
        "t_pairs.o: section .text+0x9: relocation R_TEST_PCREL_LO against '.Lhi': entry 1 "
        "of .rela.text: the relocation at offset 0x3, where its label points, is "
        "R_X86_64_PC32, not R_TEST_PCREL_HI", NULL };
    return refused(&v, "t_pairs.o", t);
}

static int sub_wrong_kind(void)
{
    variant v = good;
    v.add_type = R_X86_64_PC32;
    static const char *const t[] = {
        "t_pairs.o: section .text+0x19: relocation R_TEST_SUB32 against 'f_addsub': entry 3 "
        "of .rela.text: the relocation at offset 0x19, its own offset, is R_X86_64_PC32, "
        "not R_TEST_ADD32", NULL };
    return refused(&v, "t_pairs.o", t);
}

static int error_escaped(void)
{
    variant v = good;
    v.label = 0;
    static const char *const t[] = { "bad\\x1bname.o: section .text+0x9: relocation "
                                     "R_TEST_PCREL_LO", NULL };
    return refused(&v, "bad\x1bname.o", t);
}

static int sub_overflow(void)
{
    variant v = good;
    v.sub_addend = -((int64_t)1 << 40);
    static const char *const t[] = {
        "t_pairs.o: section .text+0x19: relocation R_TEST_SUB32 against 'f_addsub': value "
        "does not fit signed 32 bits (value 0x", NULL };
    return refused(&v, "t_pairs.o", t);
}

/* A control: the planted bug must make the comparison fail (and not the load). */
static int control(int which)
{
    loaded r;
    int caught = 0;
    if (load(&pair_arch_wrong, &good, "t_pairs.o", &r, why) == 0 && reference_ok(&r, why)) {
        void *got = which ? r.addsub : r.hilo;
        caught = got != r.ref;
        if (!caught)
            snprintf(why, sizeof why, "the planted bug gave the right address %p", got);
    }
    unload(&r);
    return caught;
}

static int control_hilo(void) { return control(0); }
static int control_addsub(void) { return control(1); }

/* t_run for a self-check of the test machinery. */
static void harness_run(const char *name, int (*fn)(void))
{
    why[0] = '\0';
    if (t_listing() || !t_selected(name))
        t_harness(name, 1, " ");        /* lists it, or prints nothing */
    else
        t_harness(name, fn(), "%s", why);
}

int main(void)
{
    pair_arch_init();
    t_run("builtin-refuses", builtin_refuses, why);
    t_run("hilo-address", hilo_address, why);
    t_run("addsub-address", addsub_address, why);
    t_run("full-walk", full_walk, why);
    t_run("lo-missing", lo_missing, why);
    t_run("lo-wrong-kind", lo_wrong_kind, why);
    t_run("sub-wrong-kind", sub_wrong_kind, why);
    t_run("error-escaped", error_escaped, why);
    t_run("sub-overflow", sub_overflow, why);
    harness_run("fixture-halves", fixture_halves);
    harness_run("control-hilo", control_hilo);
    harness_run("control-addsub", control_addsub);
    return t_exit_status();
}

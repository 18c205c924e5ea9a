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
 *   cfa-random-programs-match-reference 600 random call-frame programs (common opcodes,
 *                                       multi-byte and unterminated LEB128s, blocks,
 *                                       unknown opcodes, truncation) written over the
 *                                       longest FDE program of twocie.o: each loads
 *                                       exactly when the small DWARF decoder here accepts
 *                                       it, and a refusal names the instruction
 *
 * eh_frame.c checks the FDE almost every record is (its CIE the previous FDE's, "zR" with
 * pcrel sdata4 pointers, no augmentation data) on a shorter path than the general one,
 * which OBJRT_FULL_WALK=1 makes every FDE take (issue 13). Both must give one answer:
 *   common-and-general-paths-agree      twocie.o with 600 random programs (as above) and
 *                                       600 random bytes written into FDE headers (CIE
 *                                       pointer, range, augmentation length), and every
 *                                       FDE's CIE pointer moved by -8..8: each loads on
 *                                       both paths or is refused with the same error
 *                                       and twocie.o's LSDA fields (lsda_paths: every
 *                                       'L' FDE's augmentation length 0..8, its LSDA
 *                                       relocation's addend moved, the relocation dropped
 *                                       with the field 0 or random; the CIE's 'L' encoding)
 *   common-and-general-paths-control    the comparison itself, given two different inputs
 *                                       (one with an unknown opcode): it must see them differ
 * argv[4]: twocie8.o (twocie.c by clang -mcmodel=large: a "zR" CIE with pcrel sdata8
 * pointers, as LLVM's JIT emits, which has a short path of its own):
 *   common-and-general-paths-agree-large    the same comparison without the LSDA part
 *   common-and-general-paths-control-large  its control
 *
 * argv[3]: lsda.o (g++ -O2: lsda_catch catches what lsda_throw throws; both FDEs use a
 * "zPLR" CIE whose FDEs hold an LSDA pointer into .gcc_except_table). libgcc reads that
 * pointer right after the FDE's augmentation length, whatever the length says, and the
 * personality routine reads the LSDA where it leads; before the check bounded it, each
 * refused case below loaded:
 *   lsda-cxx-control                    loads, lsda_catch(5) catches (51), lsda_catch(1) 1
 *   lsda-pointer-outside-unit           the LSDA relocation's addend + 2^30: refused
 *   lsda-pointer-before-unit            the same, - 2^30: refused
 *   lsda-null-pointer-loads             the relocation dropped, the field 0 (libgcc: no
 *                                       LSDA): loads, and lsda_catch(1) runs
 *   lsda-augmentation-too-short         augmentation length 3 (< the 4-byte pointer): refused
 *   lsda-augmentation-empty             length 0 (libgcc would read the pointer from the
 *                                       call-frame instructions): refused
 * Each edit is checked to change the input; the control is the unedited file.
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

/* A broken .eh_frame case: the load of `name` must fail naming .eh_frame and `needle`
 * (u is what it returned; `frames`, the backtrace taken after it, goes into the reason). */
static int refused(objrt_ctx *ctx, const objrt_unit *u, const char *name, const char *needle,
                   int frames, char *why, size_t whylen)
{
    const char *needles[] = { ".eh_frame", needle, NULL };
    int ok = !u && t_check_error(ctx, name, needles, why, whylen);
    if (u)
        snprintf(why, whylen, "loaded and registered with the unwinder (backtrace: %d frames)",
                 frames);
    return ok;
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
        ok = refused(ctx, u, "ehf.o", e->needle, n, why, whylen);
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
        ok = refused(ctx, u, "twocie.o", "CIE pointer", n, why, whylen);
    }
    if (u) objrt_unload(u);
    objrt_free(ctx);
    free(img);
    return ok;
}

/* ---- random call-frame programs against a reference decoder ---- */

/* A ULEB128 as libgcc reads it (bits past 64 dropped), at most 10 bytes, inside n. */
static int ref_uleb(const unsigned char *p, size_t n, size_t *i, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned k = 0; k < 10; k++) {
        if (*i >= n) return 0;
        unsigned char b = p[(*i)++];
        x |= (uint64_t)(b & 0x7f) << (7 * k);
        if (!(b & 0x80)) { if (v) *v = x; return 1; }
    }
    return 0;
}

static int ref_skip(size_t n, size_t *i, uint64_t k)
{
    if (k > n - *i) return 0;
    *i += (size_t)k;
    return 1;
}

/* DWARF 4 section 7.23 plus the GNU opcodes, for an FDE whose CIE encodes pointers as
 * pcrel sdata4 (DW_CFA_set_loc: 4 bytes). 1: every instruction known and inside. */
static int ref_program_ok(const unsigned char *p, size_t n)
{
    size_t i = 0;
    uint64_t len;
    while (i < n) {
        unsigned op = p[i++];
        if ((op & 0xc0) == 0x40 || (op & 0xc0) == 0xc0) continue;     /* advance_loc, restore */
        if ((op & 0xc0) == 0x80) { if (!ref_uleb(p, n, &i, NULL)) return 0; continue; }
        switch (op) {
        case 0x00: case 0x0a: case 0x0b: case 0x2d: break;
        case 0x01: case 0x04: if (!ref_skip(n, &i, 4)) return 0; break;
        case 0x02: if (!ref_skip(n, &i, 1)) return 0; break;
        case 0x03: if (!ref_skip(n, &i, 2)) return 0; break;
        case 0x1d: if (!ref_skip(n, &i, 8)) return 0; break;
        case 0x06: case 0x07: case 0x08: case 0x0d: case 0x0e: case 0x13: case 0x2e:
            if (!ref_uleb(p, n, &i, NULL)) return 0;
            break;
        case 0x05: case 0x09: case 0x0c: case 0x11: case 0x12: case 0x14: case 0x15: case 0x2f:
            if (!ref_uleb(p, n, &i, NULL) || !ref_uleb(p, n, &i, NULL)) return 0;
            break;
        case 0x0f: if (!ref_uleb(p, n, &i, &len) || !ref_skip(n, &i, len)) return 0; break;
        case 0x10: case 0x16:
            if (!ref_uleb(p, n, &i, NULL) || !ref_uleb(p, n, &i, &len) || !ref_skip(n, &i, len))
                return 0;
            break;
        default: return 0;
        }
    }
    return 1;
}

static unsigned rnd(unsigned n) { return (unsigned)(rand() % (int)n); }

static int gen_faults;      /* 0: only sound instructions; 1: also broken ones */

/* A LEB128 operand: mostly one byte, sometimes 2-3; with faults, rarely up to 11 bytes or
 * unterminated. */
static size_t gen_leb(unsigned char *b, unsigned small)
{
    unsigned r = rnd(100), k = r < 80 ? 1 : r < 95 || !gen_faults ? 2 + rnd(2) : 1 + rnd(11);
    for (unsigned j = 0; j < k; j++)
        b[j] = (unsigned char)((j + 1 < k ? 0x80 : 0) | (small && j == 0 ? rnd(small) : small ? 0 : rnd(128)));
    if (gen_faults && r >= 98) b[k - 1] |= 0x80;       /* unterminated */
    return k;
}

/* One random instruction at b (room for 64 bytes); returns its length. Without faults,
 * opcodes come only from the known ones. */
static size_t gen_insn(unsigned char *b)
{
    static const unsigned char unknown[] = { 0x17, 0x18, 0x1c, 0x1e, 0x20, 0x2c, 0x30, 0x3f };
    static const unsigned char leb1[] = { 0x06, 0x07, 0x08, 0x0d, 0x0e, 0x13, 0x2e };
    static const unsigned char leb2[] = { 0x05, 0x09, 0x0c, 0x11, 0x12, 0x14, 0x15, 0x2f };
    static const unsigned char none[] = { 0x00, 0x0a, 0x0b, 0x2d };
    unsigned r = rnd(gen_faults ? 100 : 86);
    size_t n = 1;
    if (r < 25) b[0] = (unsigned char)(0x40 | rnd(64));
    else if (r < 30) b[0] = (unsigned char)(0xc0 | rnd(64));
    else if (r < 45) { b[0] = (unsigned char)(0x80 | rnd(64)); n += gen_leb(b + 1, 0); }
    else if (r < 60) { b[0] = leb1[rnd(sizeof leb1)]; n += gen_leb(b + 1, 0); }
    else if (r < 66) { b[0] = leb2[rnd(sizeof leb2)]; n += gen_leb(b + 1, 0); n += gen_leb(b + n, 0); }
    else if (r < 74) b[0] = none[rnd(sizeof none)];
    else if (r < 80) {                                  /* advance_loc1/2/4, set_loc, loc8 */
        static const unsigned char op[] = { 0x02, 0x03, 0x04, 0x01, 0x1d };
        static const unsigned char sz[] = { 1, 2, 4, 4, 8 };
        unsigned k = rnd(sizeof op);
        b[0] = op[k];
        for (unsigned j = 0; j < sz[k]; j++) b[n++] = (unsigned char)rnd(256);
    } else if (r < 86) {                                /* expression blocks */
        unsigned k = rnd(3);
        b[0] = k == 0 ? 0x0f : k == 1 ? 0x10 : 0x16;
        if (k) n += gen_leb(b + n, 0);
        size_t at = n;
        n += gen_leb(b + n, 12);                        /* the block's length */
        uint64_t len = 0;
        for (size_t j = at; j < n && j < at + 2; j++) len |= (uint64_t)(b[j] & 0x7f) << (7 * (j - at));
        for (uint64_t j = 0; j < len && n < 60; j++) b[n++] = (unsigned char)rnd(256);
    } else if (r < 92) b[0] = unknown[rnd(sizeof unknown)];
    else b[0] = (unsigned char)rnd(256);
    return n;
}

/* The longest FDE of img whose CIE is "zR" with pcrel pointers of ptr bytes (4: sdata4,
 * 8: sdata8): *prog and *len its call-frame program. 0 when there is none. */
static int longest_zr_fde(unsigned char *img, unsigned ptr, size_t *prog, size_t *len)
{
    size_t head = 5 + 2 * (size_t)ptr;       /* CIE pointer, pc_begin, range, aug length */
    int eh = t_find_section(img, ".eh_frame");
    if (eh < 0) return 0;
    const unsigned char *s = img + t_shdr(img, (unsigned)eh)->sh_offset;
    size_t size = t_shdr(img, (unsigned)eh)->sh_size, best = 0;
    for (size_t at = 0; at + 8 <= size;) {
        uint32_t n, id;
        memcpy(&n, s + at, 4);
        memcpy(&id, s + at + 4, 4);
        if (n == 0 || n > size - at - 4) break;
        size_t cie = at + 4 - id;
        if (id != 0 && id <= at + 4 && memcmp(s + cie + 9, "zR", 3) == 0 &&
            s[cie + 16] == (ptr == 8 ? 0x1c : 0x1b) &&
            s[at + 4 + head - 1] == 0 && n > best + head) {   /* augmentation data length 0 */
            best = n - head;
            *prog = at + 4 + head;
        }
        at += 4 + (size_t)n;
    }
    *len = best;
    return best > 0;
}

/* An input of the path comparison: twocie.o (ptr 4) or twocie8.o (ptr 8). */
typedef struct paths_input {
    const char *name;
    unsigned char *bytes;           /* NULL when the file could not be read */
    size_t size;
    unsigned ptr;                   /* bytes of its FDEs' pc_begin and range */
    size_t min_prog;                /* the shortest longest program it may have: clang's
                                       FDEs are shorter than gcc's */
    int control;                    /* the comparison's control instead */
} paths_input;

/* A copy of in and its longest zR FDE program, which the random cases overwrite; NULL
 * (with why) when it has none of in->min_prog bytes or more. */
static unsigned char *copy_with_long_program(const paths_input *in, size_t *prog, size_t *len,
                                             char *why, size_t whylen)
{
    if (!in->bytes) {
        snprintf(why, whylen, "fixture %s could not be read", in->name);
        return NULL;
    }
    unsigned char *img = t_copy(in->bytes, in->size);
    if (!longest_zr_fde(img, in->ptr, prog, len) || *len < in->min_prog) {
        snprintf(why, whylen, "%s has no zR FDE with a program of %zu bytes or more", in->name,
                 in->min_prog);
        free(img);
        return NULL;
    }
    return img;
}

static paths_input two4 = { "twocie.o", NULL, 0, 4, 24, 0 };

static int run_random_programs(void *arg, char *why, size_t whylen)
{
    (void)arg;
    size_t prog, len;
    unsigned char *img = copy_with_long_program(&two4, &prog, &len, why, whylen);
    if (!img)
        return 0;
    unsigned char *p = img + t_shdr(img, (unsigned)t_find_section(img, ".eh_frame"))->sh_offset + prog;
    objrt_ctx *ctx = objrt_new();
    objrt_options opt = { .no_constructors = 1 };
    objrt_set_options(ctx, &opt);
    srand(13);
    int ok = 1, accepted = 0, refused = 0;
    for (int k = 0; k < 600 && ok; k++) {
        unsigned char buf[4096];
        size_t n = 0, m;
        gen_faults = k & 1;
        if (gen_faults) {
            while (n < len) n += gen_insn(buf + n);      /* the last one may be cut off */
            if (k % 8 == 1)     /* or end in an opcode whose one-byte operand is missing */
                buf[len - 1] = rnd(2) ? 0x0e : (unsigned char)(0x80 | rnd(64));
        } else {
            while ((m = gen_insn(buf + n)) <= len - n) n += m;
            memset(buf + n, 0, len - n);                 /* nop padding, as assemblers do */
        }
        memcpy(p, buf, len);
        int want = ref_program_ok(p, len);
        objrt_unit *u = t_load_mem(ctx, "twocie.o", img, two_size);
        if (u) { accepted++; objrt_unload(u); } else refused++;
        if (!!u != want || (!u && !strstr(objrt_error(ctx), "instruction"))) {
            int at = snprintf(why, whylen, "program %d: reference %s, loader %s (%s):", k,
                              want ? "accepts" : "refuses", u ? "loaded" : "refused",
                              u ? "-" : objrt_error(ctx));
            for (size_t j = 0; j < len && at > 0 && (size_t)at + 3 < whylen; j++)
                at += snprintf(why + at, whylen - (size_t)at, " %02x", p[j]);
            ok = 0;
        }
    }
    if (ok && (accepted < 60 || refused < 60)) {
        snprintf(why, whylen, "generator unbalanced: %d accepted, %d refused", accepted, refused);
        ok = 0;
    }
    if (ok) printf("# random programs of %zu bytes: %d accepted, %d refused, all as the reference\n",
                   len, accepted, refused);
    fflush(stdout);                     /* the case runs in a child that _exits */
    objrt_free(ctx);
    free(img);
    return ok;
}

/* ---- LSDA pointers (lsda.o: g++ -O2, a throw caught inside the unit; twocie.o) ---- */

static unsigned char *cxx;      /* lsda.o, NULL when it could not be read */
static size_t cxx_size;

/* A ULEB128 at p[*i] (no bounds beyond 10 bytes: the fixture is gcc's). */
static uint64_t lsda_uleb(const unsigned char *p, size_t *i)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < 10; k++) {
        unsigned char b = p[(*i)++];
        v |= (uint64_t)(b & 0x7f) << (7 * k);
        if (!(b & 0x80)) break;
    }
    return v;
}

/* The FDEs of img's .eh_frame whose CIE has 'L' with gcc's layout: CIE "zPLR", version 1,
 * FDE and LSDA pointers PC-relative sdata4 (0x1b), so the FDE's augmentation length is
 * the byte at +16 (4) and its LSDA pointer the 4 bytes at +17. Up to `max` offsets in
 * out[]; *lenc_at (if not NULL) receives the offset of the first such CIE's 'L' byte.
 * Returns how many. */
static size_t lsda_fdes(unsigned char *img, size_t *out, size_t max, size_t *lenc_at)
{
    int eh = t_find_section(img, ".eh_frame");
    if (eh < 0) return 0;
    const unsigned char *s = img + t_shdr(img, (unsigned)eh)->sh_offset;
    size_t size = t_shdr(img, (unsigned)eh)->sh_size, n = 0;
    for (size_t at = 0; at + 8 <= size && n < max;) {
        uint32_t len, id;
        memcpy(&len, s + at, 4);
        memcpy(&id, s + at + 4, 4);
        if (len == 0 || len > size - at - 4) break;
        size_t cie = at + 4 - id, i = cie + 14;            /* after "zPLR\0" */
        if (id != 0 && id <= at + 4 && s[cie + 8] == 1 && memcmp(s + cie + 9, "zPLR", 5) == 0) {
            lsda_uleb(s, &i);                               /* code alignment */
            lsda_uleb(s, &i);                               /* data alignment (skipped) */
            i++;                                            /* return address column */
            lsda_uleb(s, &i);                               /* augmentation length */
            unsigned char penc = s[i++];
            i += (penc & 0x0f) == 0x0b || (penc & 0x0f) == 0x03 ? 4 : 8;  /* personality */
            if (s[i] == 0x1b && s[i + 1] == 0x1b && s[at + 16] == 4) {
                if (lenc_at && n == 0) *lenc_at = i;
                out[n++] = at;
            }
        }
        at += 4 + (size_t)len;
    }
    return n;
}

/* img's .rela.eh_frame entry at r_offset `off`, or NULL. */
static Elf64_Rela *eh_rela_at(unsigned char *img, size_t off)
{
    int rs = t_find_section(img, ".rela.eh_frame");
    if (rs < 0) return NULL;
    Elf64_Shdr *h = t_shdr(img, (unsigned)rs);
    Elf64_Rela *r = (Elf64_Rela *)(img + h->sh_offset);
    for (size_t k = 0; k < h->sh_size / sizeof *r; k++)
        if (r[k].r_offset == off) return &r[k];
    return NULL;
}

/* ---- the common FDE path against the general one (OBJRT_FULL_WALK=1) ---- */

/* "loaded" or the error of loading img (an edited copy of in) with OBJRT_FULL_WALK set or
 * not. */
static void outcome(const paths_input *in, const unsigned char *img, int full, char *out,
                    size_t outlen)
{
    if (full) setenv("OBJRT_FULL_WALK", "1", 1); else unsetenv("OBJRT_FULL_WALK");
    objrt_ctx *ctx = objrt_new();
    objrt_options opt = { .no_constructors = 1 };
    objrt_set_options(ctx, &opt);
    objrt_unit *u = t_load_mem(ctx, in->name, img, in->size);
    snprintf(out, outlen, "%s", u ? "loaded" : objrt_error(ctx));
    if (u) objrt_unload(u);
    objrt_free(ctx);
    unsetenv("OBJRT_FULL_WALK");
}

/* 1 when a (common path) and b (general path) give the same outcome; else the why. */
static int same_outcome(const paths_input *in, const unsigned char *a, const unsigned char *b,
                        const char *what, int *loaded, char *why, size_t whylen)
{
    char common[512], general[512];
    outcome(in, a, 0, common, sizeof common);
    outcome(in, b, 1, general, sizeof general);
    if (strcmp(common, general) != 0) {
        snprintf(why, whylen, "%s: common path: %.200s; general path: %.200s", what, common, general);
        return 0;
    }
    *loaded += strcmp(common, "loaded") == 0;
    return 1;
}

/* The LSDA fields of twocie.o (img, unedited) on both paths: for every FDE whose CIE has
 * 'L', its augmentation length 0..8, its LSDA relocation's addend moved by -2^30..2^30,
 * that relocation dropped with the field's 4 bytes 0 or random; then the CIE's 'L'
 * encoding byte replaced (omit, other sizes, an indirect and unreadable ones). *n and
 * *loaded count the inputs; img is unedited again on return. */
static int lsda_paths(unsigned char *img, int *n, int *loaded, char *why, size_t whylen)
{
    static const int64_t moves[] = { -0x40000000, -0x100000, -0x1000, -0x100, -1, 1,
                                     0x100, 0x1000, 0x100000, 0x40000000 };
    static const unsigned char encs[] = { 0xff, 0x00, 0x03, 0x0b, 0x1a, 0x1b, 0x1c, 0x9b,
                                          0x01, 0x50 };
    unsigned char *s = img + t_shdr(img, (unsigned)t_find_section(img, ".eh_frame"))->sh_offset;
    size_t fdes[16], lenc = 0, nf = lsda_fdes(img, fdes, 16, &lenc);
    char what[160];
    int ok = nf > 0;
    if (!ok) snprintf(why, whylen, "twocie.o has no FDE with an LSDA pointer");
    for (size_t j = 0; ok && j < nf; j++) {
        size_t f = fdes[j];
        Elf64_Rela *r = eh_rela_at(img, f + 17), keep;
        if (!r) { snprintf(why, whylen, "FDE at 0x%zx: no relocation at its LSDA pointer", f); return 0; }
        keep = *r;
        for (unsigned v = 0; v <= 8 && ok; v++, (*n)++) {
            s[f + 16] = (unsigned char)v;
            snprintf(what, sizeof what, "FDE at 0x%zx augmentation length %u", f, v);
            ok = same_outcome(&two4, img, img, what, loaded, why, whylen);
        }
        s[f + 16] = 4;
        for (size_t k = 0; k < sizeof moves / sizeof moves[0] && ok; k++, (*n)++) {
            r->r_addend = keep.r_addend + moves[k];
            snprintf(what, sizeof what, "FDE at 0x%zx LSDA addend %+lld", f, (long long)moves[k]);
            ok = same_outcome(&two4, img, img, what, loaded, why, whylen);
        }
        r->r_info = ELF64_R_INFO(ELF64_R_SYM(keep.r_info), 0);        /* R_*_NONE */
        for (int k = 0; k < 8 && ok; k++, (*n)++) {
            uint32_t v = k ? (uint32_t)rand() : 0;
            memcpy(s + f + 17, &v, 4);
            snprintf(what, sizeof what, "FDE at 0x%zx LSDA unrelocated 0x%08x", f, v);
            ok = same_outcome(&two4, img, img, what, loaded, why, whylen);
        }
        *r = keep;
        memcpy(s + f + 17, two + (s - img) + f + 17, 4);
    }
    for (size_t k = 0; k < sizeof encs / sizeof encs[0] && ok; k++, (*n)++) {
        s[lenc] = encs[k];
        snprintf(what, sizeof what, "CIE 'L' encoding 0x%02x", encs[k]);
        ok = same_outcome(&two4, img, img, what, loaded, why, whylen);
    }
    s[lenc] = 0x1b;
    return ok;
}

/* arg: a paths_input. Random programs and FDE header bytes, each compared on the two
 * paths (and, for twocie.o, its LSDA fields); or the control: the original against an
 * unknown opcode must differ. */
static int run_paths(void *arg, char *why, size_t whylen)
{
    const paths_input *in = arg;
    size_t prog, len;
    unsigned char *img = copy_with_long_program(in, &prog, &len, why, whylen);
    if (!img)
        return 0;
    int eh = t_find_section(img, ".eh_frame");
    unsigned char *s = img + t_shdr(img, (unsigned)eh)->sh_offset, *p = s + prog;
    size_t size = t_shdr(img, (unsigned)eh)->sh_size;
    int ok = 1, loaded = 0, n = 0;
    char what[160];
    if (in->control) {
        unsigned char *bad = t_copy(in->bytes, in->size);
        bad[t_shdr(img, (unsigned)eh)->sh_offset + prog] = 0x3f;   /* an unknown opcode */
        ok = !same_outcome(in, img, bad, "control", &loaded, why, whylen);
        if (!ok) snprintf(why, whylen, "the comparison did not see an unknown opcode");
        free(bad);
        free(img);
        return ok;
    }
    srand(1313);
    for (int k = 0; k < 600 && ok; k++, n++) {          /* call-frame programs */
        unsigned char buf[4096];
        size_t m = 0, step;
        gen_faults = k & 1;
        if (gen_faults) {
            while (m < len) m += gen_insn(buf + m);
        } else {
            while ((step = gen_insn(buf + m)) <= len - m) m += step;
            memset(buf + m, 0, len - m);
        }
        memcpy(p, buf, len);
        snprintf(what, sizeof what, "program %d", k);
        ok = same_outcome(in, img, img, what, &loaded, why, whylen);
    }
    memcpy(img, in->bytes, in->size);
    for (int k = 0; k < 600 && ok; k++, n++) {          /* one byte of an FDE's header */
        size_t fdes[64], nf = 0;
        for (size_t at = 0; at + 8 <= size && nf < 64;) {
            uint32_t l, id;
            memcpy(&l, s + at, 4);
            memcpy(&id, s + at + 4, 4);
            if (l == 0 || l > size - at - 4) break;
            if (id != 0) fdes[nf++] = at;
            at += 4 + (size_t)l;
        }
        if (!nf) { snprintf(why, whylen, "%s has no FDE", in->name); ok = 0; break; }
        size_t f = fdes[rnd((unsigned)nf)], off = 4 + rnd(5 + 2 * in->ptr); /* id .. aug length */
        unsigned char was = s[f + off], v = (unsigned char)(rnd(4) ? rnd(256) : rnd(3));
        s[f + off] = v;
        snprintf(what, sizeof what, "FDE at 0x%zx byte %zu := 0x%02x", f, off, v);
        ok = same_outcome(in, img, img, what, &loaded, why, whylen);
        s[f + off] = was;
    }
    for (size_t at = 0; ok && at + 8 <= size;) {        /* every FDE's CIE pointer, +-8 */
        uint32_t l, id;
        memcpy(&l, s + at, 4);
        memcpy(&id, s + at + 4, 4);
        if (l == 0 || l > size - at - 4) break;
        for (int d = -8; d <= 8 && ok && id != 0; d++, n++) {
            uint32_t v = id + (uint32_t)d;
            memcpy(s + at + 4, &v, 4);
            snprintf(what, sizeof what, "FDE at 0x%zx CIE pointer %+d", at, d);
            ok = same_outcome(in, img, img, what, &loaded, why, whylen);
        }
        memcpy(s + at + 4, &id, 4);
        at += 4 + (size_t)l;
    }
    if (ok && in->ptr == 4)
        ok = lsda_paths(img, &n, &loaded, why, whylen);
    if (ok && (loaded < 60 || n - loaded < 60)) {
        snprintf(why, whylen, "unbalanced: %d of %d loaded", loaded, n);
        ok = 0;
    }
    if (ok) printf("# common and general paths, %s: %d inputs, %d loaded, the same answers\n",
                   in->name, n, loaded);
    fflush(stdout);
    free(img);
    return ok;
}

typedef struct lsda_edit {
    const char *name;
    int what;                   /* LSDA_* below */
    int64_t value;
    const char *needle;         /* NULL: must load (and catch, for LSDA_NONE) */
} lsda_edit;

enum { LSDA_NONE, LSDA_ADDEND, LSDA_NULL, LSDA_AUGLEN };

/* Load lsda.o edited as `e` says (in its first FDE with an LSDA) with libstdc++ available.
 * The control must load, throw and catch (lsda_catch(5) = 51: the handler ran;
 * lsda_catch(1) = 1: no throw); an edit must change the input, then be refused naming
 * `needle`, or (LSDA_NULL: no LSDA) load and run the function that does not throw. */
static int run_lsda(void *arg, char *why, size_t whylen)
{
    const lsda_edit *e = arg;
    if (!cxx) { snprintf(why, whylen, "fixture lsda.o (g++) could not be read"); return 0; }
    unsigned char *img = t_copy(cxx, cxx_size);
    size_t fde;
    Elf64_Rela *r = NULL;
    if (lsda_fdes(img, &fde, 1, NULL) != 1 || !(r = eh_rela_at(img, fde + 17))) {
        snprintf(why, whylen, "lsda.o has no \"zPLR\" FDE with a relocated LSDA pointer at +17");
        free(img);
        return 0;
    }
    unsigned char *eh = img + t_shdr(img, (unsigned)t_find_section(img, ".eh_frame"))->sh_offset;
    if (e->what == LSDA_ADDEND)
        r->r_addend += e->value;
    else if (e->what == LSDA_NULL) {        /* no relocation: the field's bytes, 0, stay */
        r->r_info = ELF64_R_INFO(ELF64_R_SYM(r->r_info), 0);    /* R_*_NONE */
        memset(eh + fde + 17, 0, 4);
    } else if (e->what == LSDA_AUGLEN)
        eh[fde + 16] = (unsigned char)e->value;
    if (e->what != LSDA_NONE && memcmp(img, cxx, cxx_size) == 0) {
        snprintf(why, whylen, "the edit left lsda.o unchanged");
        free(img);
        return 0;
    }
    objrt_ctx *ctx = objrt_new();
    objrt_options opt = { .no_constructors = 1 };
    objrt_set_options(ctx, &opt);
    int ok;
    if (objrt_add_library(ctx, "stdc++") != 0) {
        snprintf(why, whylen, "libstdc++: %s", objrt_error(ctx));
        ok = 0;
    } else {
        objrt_unit *u = t_load_mem(ctx, "lsda.o", img, cxx_size);
        void *frames[64];
        int n = backtrace(frames, 64);
        int (*fn)(int) = u ? (int (*)(int))objrt_sym(ctx, "lsda_catch") : NULL;
        if (e->needle) {
            ok = refused(ctx, u, "lsda.o", e->needle, n, why, whylen);
        } else if (!fn) {
            snprintf(why, whylen, "%s", u ? "loaded, but lsda_catch is missing" : objrt_error(ctx));
            ok = 0;
        } else {
            int thrown = e->what == LSDA_NONE ? fn(5) : 51, plain = fn(1);
            ok = thrown == 51 && plain == 1 && n >= 2;
            if (!ok)
                snprintf(why, whylen, "lsda_catch(5) = %d (want 51), lsda_catch(1) = %d, "
                         "backtrace %d frames", thrown, plain, n);
        }
        if (u) objrt_unload(u);
    }
    objrt_free(ctx);
    free(img);
    return ok;
}

/* lsda.o's bytes, or NULL (the cases then fail saying so) when the file is missing. */
static unsigned char *read_optional(const char *path, size_t *size)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) return NULL;
    fclose(f);
    return t_read_file(path, size);
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: t_eh_frame basic.o twocie.o [lsda.o [twocie8.o]]\n"); return 2; }
    orig = t_read_file(argv[1], &orig_size);
    two = t_read_file(argv[2], &two_size);
    two4.bytes = two;
    two4.size = two_size;
    cxx = read_optional(argc > 3 ? argv[3] : NULL, &cxx_size);
    static edit cases[] = {
        { "control", CIE, 8, 1, 1, NULL },                 /* rewrites the version as it is */
        { "cie-pointer-outside-section", FDE, 4, 4, 0x7ffffff0, "CIE pointer" },
        { "cie-pointer-into-cie", FDE, 4, 4, 0, "CIE pointer" },   /* value set below */
        { "cie-pointer-one-ahead", FDE, 4, 4, 0, "CIE pointer" },  /* value set below */
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
    /* the FDE's CIE pointer (at FDE+4) aimed 8 bytes into the CIE: FDE + 4 - 8; or one
     * byte past itself, whose offset (FDE + 4 - pointer) wraps below 0 */
    {
        unsigned char *img = malloc(orig_size);
        memcpy(img, orig, orig_size);
        char why[256];
        size_t fde = layout_ok(img, why, sizeof why);
        cases[2].value = (uint32_t)(fde + 4 - 8);
        cases[3].value = (uint32_t)(fde + 4 + 1);   /* the byte after the pointer: wraps */
        free(img);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[128];
        snprintf(name, sizeof name, "eh-frame-%s", cases[i].name);
        t_case(name, run_edit, (void *)&cases[i]);
    }
    t_case("eh-frame-two-cies-control", run_two, NULL);
    t_case("eh-frame-two-cies-pointer-past-cached-cie", run_two, (void *)1);
    t_case("eh-frame-cfa-random-programs-match-reference", run_random_programs, NULL);
    paths_input two4_control = two4, two8 = { "twocie8.o", NULL, 0, 8, 12, 0 }, two8_control;
    two4_control.control = 1;
    two8.bytes = read_optional(argc > 4 ? argv[4] : NULL, &two8.size);
    two8_control = two8;
    two8_control.control = 1;
    t_case("eh-frame-common-and-general-paths-agree", run_paths, &two4);
    t_case("eh-frame-common-and-general-paths-control", run_paths, &two4_control);
    t_case("eh-frame-common-and-general-paths-agree-large", run_paths, &two8);
    t_case("eh-frame-common-and-general-paths-control-large", run_paths, &two8_control);
    static lsda_edit lsda_cases[] = {
        { "lsda-cxx-control", LSDA_NONE, 0, NULL },
        { "lsda-pointer-outside-unit", LSDA_ADDEND, 0x40000000,
          "LSDA pointer (record offset 0x11) leads outside the unit" },
        { "lsda-pointer-before-unit", LSDA_ADDEND, -0x40000000,
          "LSDA pointer (record offset 0x11) leads outside the unit" },
        { "lsda-null-pointer-loads", LSDA_NULL, 0, NULL },
        { "lsda-augmentation-too-short", LSDA_AUGLEN, 3, "too short for the LSDA pointer" },
        { "lsda-augmentation-empty", LSDA_AUGLEN, 0, "too short for the LSDA pointer" },
    };
    for (size_t i = 0; i < sizeof lsda_cases / sizeof lsda_cases[0]; i++) {
        char name[128];
        snprintf(name, sizeof name, "eh-frame-%s", lsda_cases[i].name);
        t_case(name, run_lsda, &lsda_cases[i]);
    }
    free(two8.bytes);
    free(cxx);
    free(orig);
    free(two);
    return t_exit_status();
}

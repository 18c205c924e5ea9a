/*
 * t_plan_sums - the plan's size and offset sums never wrap (issue 10, defect 2).
 *
 * Hand-made objects use the e_shnum = 0 escape to declare 2^16 NOBITS sections of 2^40
 * bytes each; 256 such inputs (one buffer, given 256 times) declare exactly 2^64 bytes.
 * Before the fix the layout cursor wrapped past 2^64 and the unit "loaded" in a tiny
 * reservation. Now every sum is checked against the user address space (2^47 bytes):
 *   wrap          the 2^64-byte unit is refused, naming a section and the limit, cleanly
 *   limit-128     one input, 128 sections of 2^40 (just past 2^47): refused the same way
 *   control-127   127 sections of 2^40 pass the plan (any other outcome: loads, or the
 *                 system cannot reserve 127 TiB) - the limit is not hit too early
 * No argv.
 */
#include "t_common.h"
#include <malloc.h>

#define NAMES "\0.bss\0.shstrtab\0"     /* .bss at 1, .shstrtab at 6 */

/* An ET_REL object: section 1 the name table, sections 2..nsec-1 NOBITS .bss of `size`. */
static unsigned char *nobits_object(size_t nsec, uint64_t size, size_t *len)
{
    size_t shoff = 64 + 16;
    *len = shoff + nsec * sizeof(Elf64_Shdr);
    unsigned char *img = calloc(1, *len);
    /* e_shnum 0: the count is in sh[0].sh_size */
    t_rel_header((Elf64_Ehdr *)img, shoff, nsec < SHN_LORESERVE ? (Elf64_Half)nsec : 0, 1);
    memcpy(img + 64, NAMES, sizeof NAMES - 1);
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + shoff);
    if (nsec >= SHN_LORESERVE)
        sh[0].sh_size = nsec;
    sh[1] = (Elf64_Shdr){ .sh_name = 6, .sh_type = SHT_STRTAB, .sh_offset = 64,
                          .sh_size = sizeof NAMES - 1, .sh_addralign = 1 };
    for (size_t i = 2; i < nsec; i++)
        sh[i] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_NOBITS,
                              .sh_flags = SHF_ALLOC | SHF_WRITE, .sh_size = size,
                              .sh_addralign = 1 };
    return img;
}

typedef struct { unsigned char *img; size_t len, copies; } many;

static int load_many(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    many *m = arg;
    objrt_input *in = calloc(m->copies, sizeof *in);
    char (*names)[32] = calloc(m->copies, 32);
    for (size_t i = 0; i < m->copies; i++) {
        snprintf(names[i], 32, "big%zu.o", i);
        in[i] = (objrt_input){ names[i], m->img, m->len };
    }
    objrt_unit *u = objrt_load_memory(ctx, in, m->copies);
    int ok = 0;
    const char *needles[] = { "section .bss", "0x800000000000", NULL };
    if (u) {
        objrt_stats st;
        objrt_unit_stats(u, &st);
        snprintf(why, whylen, "loaded: %zu inputs declaring 0x%llx bytes each got a "
                 "reservation of %zu bytes", m->copies,
                 (unsigned long long)((m->len - 80) / 64 - 2) << 40, st.reserved_bytes);
        objrt_unload(u);
    } else {
        ok = t_check_error(ctx, "big", needles, why, whylen);
    }
    free(in);
    free(names);
    return ok;
}

static int case_wrap(void *arg, char *why, size_t whylen)
{
    objrt_ctx *ctx = objrt_new();
    int ok = t_fails_cleanly(ctx, load_many, arg, why, whylen);
    objrt_free(ctx);
    return ok;
}

static int case_control(void *arg, char *why, size_t whylen)
{
    many *m = arg;
    objrt_ctx *ctx = objrt_new();
    objrt_input in = { "big.o", m->img, m->len };
    objrt_unit *u = objrt_load_memory(ctx, &in, 1);
    int ok = u || !strstr(objrt_error(ctx), "0x800000000000");
    if (!ok)
        snprintf(why, whylen, "127 sections of 2^40 bytes hit the limit: %s", objrt_error(ctx));
    if (u)
        objrt_unload(u);
    objrt_free(ctx);
    return ok;
}

int main(void)
{
    /* A fixed threshold: glibc otherwise raises it after the first multi-MiB free, and the
     * heap then grows by what later parses allocate - not a mapping objrt left behind. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    many wrap = { 0 }, limit = { 0 }, under = { 0 };
    wrap.img = nobits_object(65538, (uint64_t)1 << 40, &wrap.len);
    wrap.copies = 256;                      /* 256 * 2^16 * 2^40 = 2^64: wraps to 0 */
    limit.img = nobits_object(130, (uint64_t)1 << 40, &limit.len);
    limit.copies = 1;                       /* 128 sections of 2^40: 2^47 plus alignment */
    under.img = nobits_object(129, (uint64_t)1 << 40, &under.len);
    t_case("plan-sums-wrap-2^64-refused", case_wrap, &wrap);
    t_case("plan-sums-limit-128x2^40-refused", case_wrap, &limit);
    t_case("plan-sums-control-127x2^40-passes-plan", case_control, &under);
    free(wrap.img);
    free(limit.img);
    free(under.img);
    return t_exit_status();
}

/*
 * fuzz_elf.c - libFuzzer harness with structure-aware mutation of ELF objects.
 *
 * Loads one input like fuzz_load.c, but half of the mutations are made by
 * LLVMFuzzerCustomMutator below, which knows the ELF64 layout: it picks a section header
 * (or, in a SHT_RELA section, a relocation) and sets one field to a value chosen to hit a
 * boundary - 0, 1, the file size, the section's own size +/- a little, powers of two up to
 * 2^47 and past (so the planner sees declared sizes and alignments no byte-level mutation of
 * a 64 KiB input would produce), another header's value, or all ones. It also flips the
 * e_shnum = 0 escape. The other half are libFuzzer's own (with the dictionary objrt.dict).
 * Build: tests/fuzz/build.sh OUTDIR.
 */
#include <elf.h>

#include "fuzz_common.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    objrt_unit *u = fz_load_one(data, size);
    if (u)
        objrt_unload(u);
    return 0;
}

static uint64_t rng(uint64_t *s)                /* xorshift64*: the mutator's dice */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

/* A value near a boundary, relative to `cur` (the field's value) and `other`. */
static uint64_t boundary(uint64_t *s, uint64_t cur, uint64_t other, size_t file)
{
    switch (rng(s) % 10) {
    case 0: return 0;
    case 1: return 1;
    case 2: return file - rng(s) % 16;
    case 3: return cur + rng(s) % 17 - 8;
    case 4: return (uint64_t)1 << (rng(s) % 64);             /* up to 2^63: past 2^47 */
    case 5: return ((uint64_t)1 << (rng(s) % 64)) - 1;
    case 6: return other;
    case 7: return UINT64_MAX - rng(s) % 8;
    case 8: return (uint64_t)1 << (40 + rng(s) % 8);         /* the loader's limits */
    default: return rng(s);
    }
}

static void set_field(uint8_t *p, size_t width, uint64_t v) { memcpy(p, &v, width); }

static size_t mutate_elf(uint8_t *d, size_t size, uint64_t *s)
{
    Elf64_Ehdr eh;
    memcpy(&eh, d, sizeof eh);
    size_t shnum = eh.e_shnum;
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
        shnum > (size - eh.e_shoff) / sizeof(Elf64_Shdr) || shnum < 2)
        return 0;
    uint8_t *sh = d + eh.e_shoff;
    size_t i = 1 + rng(s) % (shnum - 1), j = 1 + rng(s) % (shnum - 1);
    Elf64_Shdr h, o;
    memcpy(&h, sh + i * sizeof h, sizeof h);
    memcpy(&o, sh + j * sizeof o, sizeof o);
    if (rng(s) % 16 == 0) {                         /* the e_shnum = 0 escape */
        uint64_t n = rng(s) % 2 ? shnum : boundary(s, shnum, 0, size);
        memcpy(d + offsetof(Elf64_Ehdr, e_shnum), &(Elf64_Half){ 0 }, 2);
        set_field(sh + offsetof(Elf64_Shdr, sh_size), 8, n);
        return size;
    }
    if (h.sh_type == SHT_RELA && h.sh_offset <= size && h.sh_size >= sizeof(Elf64_Rela) &&
        h.sh_size <= size - h.sh_offset && rng(s) % 2) {    /* one relocation's field */
        size_t k = rng(s) % (h.sh_size / sizeof(Elf64_Rela));
        uint8_t *r = d + h.sh_offset + k * sizeof(Elf64_Rela);
        Elf64_Rela rel;
        memcpy(&rel, r, sizeof rel);
        switch (rng(s) % 4) {
        case 0: set_field(r, 8, boundary(s, rel.r_offset, o.sh_size, size)); break;
        case 1: set_field(r + 8, 8, ELF64_R_INFO(ELF64_R_SYM(rel.r_info), rng(s) % 64)); break;
        case 2: set_field(r + 8, 8, ELF64_R_INFO(boundary(s, ELF64_R_SYM(rel.r_info), 0, size) & 0xffffffff,
                                                 ELF64_R_TYPE(rel.r_info))); break;
        default: set_field(r + 16, 8, boundary(s, (uint64_t)rel.r_addend, o.sh_size, size));
        }
        return size;
    }
    static const struct { size_t off, width; } f[] = {
        { offsetof(Elf64_Shdr, sh_type), 4 },   { offsetof(Elf64_Shdr, sh_flags), 8 },
        { offsetof(Elf64_Shdr, sh_offset), 8 }, { offsetof(Elf64_Shdr, sh_size), 8 },
        { offsetof(Elf64_Shdr, sh_link), 4 },   { offsetof(Elf64_Shdr, sh_info), 4 },
        { offsetof(Elf64_Shdr, sh_addralign), 8 }, { offsetof(Elf64_Shdr, sh_entsize), 8 },
        { offsetof(Elf64_Shdr, sh_name), 4 },
    };
    size_t which = rng(s) % (sizeof f / sizeof f[0]);
    uint64_t cur = 0, other = 0;
    memcpy(&cur, sh + i * sizeof h + f[which].off, f[which].width);
    memcpy(&other, sh + j * sizeof o + f[which].off, f[which].width);
    uint64_t v = boundary(s, cur, other, size);
    if (f[which].off == offsetof(Elf64_Shdr, sh_type) && rng(s) % 2)
        v = rng(s) % 2 ? SHT_NOBITS : rng(s) % 20;              /* a real type */
    if (f[which].off == offsetof(Elf64_Shdr, sh_flags) && rng(s) % 2)
        v = cur ^ ((uint64_t)1 << (rng(s) % 11));               /* one SHF_ flag */
    set_field(sh + i * sizeof h + f[which].off, f[which].width, v);
    return size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    if (rng(&s) % 2 == 0 && size >= sizeof(Elf64_Ehdr) && memcmp(data, ELFMAG, SELFMAG) == 0) {
        size_t n = mutate_elf(data, size, &s);
        if (n)
            return n;
    }
    return LLVMFuzzerMutate(data, size, max_size);
}

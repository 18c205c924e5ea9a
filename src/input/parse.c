/*
 * parse.c - validate an ELF64 relocatable object before anything trusts it.
 *
 * After objrt_parse_object() succeeds, every offset, size, index and string the later
 * stages read is known to lie inside the file: section contents, the section name table,
 * the symbol table and its strings, SHN_XINDEX entries and relocation records (their
 * offsets are checked against the patched section when applied, as the width depends on
 * the type). Parsing has no side effects beyond allocating the objrt_obj (and, when the
 * link has no architecture yet, as for `objrt layout`, taking the first object's); the
 * caller (input.c) decides what becomes of the object.
 */
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "input/parse.h"

static bool is_pow2_or_zero(uint64_t v) { return (v & (v - 1)) == 0; }

/* [off, off+len) inside [0, size) without overflow. */
static bool in_file(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* What an e_machine is called, for messages about objects built for another one. */
static const char *machine_name(uint16_t m)
{
    switch (m) {
    case EM_X86_64:  return "x86_64";
    case EM_AARCH64: return "AArch64";
    case EM_386:     return "i386 (32-bit x86)";
    case EM_ARM:     return "32-bit ARM";
    case EM_RISCV:   return "RISC-V";
    case EM_PPC64:   return "PowerPC64";
    case EM_PPC:     return "PowerPC";
    case EM_S390:    return "s390";
    case EM_MIPS:    return "MIPS";
    case EM_LOONGARCH: return "LoongArch";
    default:         return "an unknown machine";
    }
}

/* An ET_DYN file with a PT_INTERP header: a position-independent executable. */
static bool has_interp(const uint8_t *d, size_t size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
    if (eh->e_phentsize != sizeof(Elf64_Phdr) ||
        !in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), size))
        return false;
    for (size_t i = 0; i < eh->e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, d + eh->e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_INTERP)
            return true;
    }
    return false;
}

/* An ELF file that is not a relocatable object: say what it is and what to do instead. */
static int not_relocatable(objrt_link *l, const char *name, const uint8_t *d, size_t size)
{
    uint16_t type = ((const Elf64_Ehdr *)d)->e_type;
    if (type == ET_DYN && has_interp(d, size))
        type = ET_EXEC;
    switch (type) {
    case ET_DYN:
        return objrt_fail(l->ctx, "%s: a shared library (ELF type ET_DYN), not a relocatable object (.o): open a library "
                          "with dlopen, or make its symbols available to a unit with "
                          "objrt_add_library (objrt run: -l LIB); objrt loads the .o files "
                          "(gcc -c) or .a archives it is built from", name);
    case ET_EXEC:
        return objrt_fail(l->ctx, "%s: an executable (ELF type %s), not a relocatable "
                          "object (.o): objrt loads the .o files (gcc -c) or .a archives it is "
                          "built from", name, ((const Elf64_Ehdr *)d)->e_type == ET_DYN ? "ET_DYN, "
                          "position-independent" : "ET_EXEC");
    case ET_CORE:
        return objrt_fail(l->ctx, "%s: a core dump (ELF type ET_CORE), not a relocatable "
                          "object (.o)", name);
    default:
        return objrt_fail(l->ctx, "%s: ELF type %u is not a relocatable object (ET_REL)",
                          name, (unsigned)type);
    }
}

static int check_header(objrt_link *l, const char *name, const uint8_t *d, size_t size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
    if (size < sizeof *eh)
        return objrt_fail(l->ctx, "%s: truncated: %zu bytes is smaller than an ELF header",
                          name, size);
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return objrt_lto_check_bytes(l, name, d, size) ? -1
               : objrt_fail(l->ctx, "%s: not an ELF object or ar archive", name);
    /* e_type and e_machine sit at the same offsets in a 32-bit header */
    if (eh->e_ident[EI_CLASS] == ELFCLASS32)
        return objrt_fail(l->ctx, "%s: a 32-bit ELF object (ELFCLASS32, %s): objrt loads "
                          "64-bit objects only (x86_64, AArch64); compile it without -m32, "
                          "for this machine", name, machine_name(eh->e_machine));
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
        return objrt_fail(l->ctx, "%s: not a 64-bit little-endian ELF object%s", name,
                          eh->e_ident[EI_DATA] == ELFDATA2MSB ? " (it is big-endian)" : "");
    if (eh->e_type != ET_REL)
        return not_relocatable(l, name, d, size);
    if (!l->arch && !(l->arch = objrt_arch_for_machine(eh->e_machine)))
        return objrt_fail(l->ctx, "%s: an object for %s (machine %u): objrt supports x86_64 "
                          "and AArch64", name, machine_name(eh->e_machine), eh->e_machine);
    if (eh->e_machine != l->arch->machine)
        return objrt_fail(l->ctx, "%s: an object for %s (machine %u), but this unit is %s: "
                          "compile it for %s; an object runs under an objrt built for its "
                          "machine (an AArch64 one on AArch64, or under qemu-aarch64)", name,
                          machine_name(eh->e_machine), eh->e_machine,
                          machine_name(l->arch->machine), machine_name(l->arch->machine));
    if (eh->e_shentsize != sizeof(Elf64_Shdr))
        return objrt_fail(l->ctx, "%s: section header size %u, expected %zu", name,
                          eh->e_shentsize, sizeof(Elf64_Shdr));
    if (eh->e_shoff & 7 || eh->e_shoff > size)
        return objrt_fail(l->ctx, "%s: section header table offset 0x%llx is invalid "
                          "(file is 0x%zx bytes)", name, (unsigned long long)eh->e_shoff, size);
    return 0;
}

/* Section count and name-table index, following the escapes for more than 0xff00. */
static int read_section_table(objrt_link *l, objrt_obj *o, const Elf64_Ehdr *eh)
{
    o->sh = (const Elf64_Shdr *)(o->data + eh->e_shoff);
    o->shnum = eh->e_shnum;
    if (eh->e_shoff == 0)
        return objrt_fail(l->ctx, "%s: no section header table", o->name);
    if (!in_file(eh->e_shoff, sizeof(Elf64_Shdr), o->size))
        return objrt_fail(l->ctx, "%s: truncated: section header table at 0x%llx is past the "
                          "end (0x%zx bytes)", o->name, (unsigned long long)eh->e_shoff, o->size);
    if (o->shnum == 0)
        o->shnum = o->sh[0].sh_size;
    if (o->shnum == 0 || o->shnum > (o->size - eh->e_shoff) / sizeof(Elf64_Shdr))
        return objrt_fail(l->ctx, "%s: truncated: section header table (%zu entries at 0x%llx) "
                          "ends past the end of the file (0x%zx bytes)", o->name, o->shnum,
                          (unsigned long long)eh->e_shoff, o->size);
    size_t strndx = eh->e_shstrndx == SHN_XINDEX ? o->sh[0].sh_link : eh->e_shstrndx;
    if (strndx == SHN_UNDEF || strndx >= o->shnum || o->sh[strndx].sh_type != SHT_STRTAB)
        return objrt_fail(l->ctx, "%s: section name table index %zu is invalid", o->name, strndx);
    const Elf64_Shdr *ss = &o->sh[strndx];
    if (!in_file(ss->sh_offset, ss->sh_size, o->size) || ss->sh_size == 0 ||
        o->data[ss->sh_offset + ss->sh_size - 1] != '\0')
        return objrt_fail(l->ctx, "%s: section name table is out of bounds or unterminated",
                          o->name);
    o->shstr = (const char *)o->data + ss->sh_offset;
    o->shstrsz = ss->sh_size;
    return 0;
}

typedef struct range { uint64_t off, end; size_t idx; } range;

static int cmp_range(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Sort by offset, stably (the overlap message names the pair in this order). Runs for
 * every object of every load, and compilers write sections nearly in offset order (the
 * relocation sections and the section table after the contents), so an insertion sort
 * with a budget of moves linear in the count beats qsort's call per comparison; past the
 * budget (a hostile order) qsort finishes. Both are stable, and insertion keeps equal
 * offsets in their first order, so the result is the same either way. */
static void sort_ranges(range *r, size_t nr)
{
    size_t budget = 16 * nr;
    for (size_t i = 1; i < nr; i++) {
        range x = r[i];
        size_t j = i;
        for (; j > 0 && r[j - 1].off > x.off; j--) {
            if (budget-- == 0) {
                r[j] = x;
                qsort(r, nr, sizeof *r, cmp_range);
                return;
            }
            r[j] = r[j - 1];
        }
        r[j] = x;
    }
}

/* Each section's bytes lie in the file, alignments are powers of two, and no two
 * sections' bytes overlap (a hostile file could otherwise alias relocations and code). */
#define RANGES_ON_STACK 64             /* most objects have fewer sections: no malloc */
static int check_sections(objrt_link *l, objrt_obj *o)
{
    range small[RANGES_ON_STACK];
    range *r = o->shnum + 2 <= RANGES_ON_STACK ? small : malloc((o->shnum + 2) * sizeof *r);
    if (!r)
        return objrt_fail(l->ctx, "out of memory");
    size_t nr = 0;
    int rc = 0;
    /* the headers are ranges too: no section may alias them */
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)o->data;
    r[nr++] = (range){ 0, sizeof *eh, 0 };
    r[nr++] = (range){ eh->e_shoff, eh->e_shoff + o->shnum * sizeof(Elf64_Shdr), 0 };
    for (size_t i = 1; i < o->shnum && rc == 0; i++) {
        const Elf64_Shdr *s = &o->sh[i];
        if (s->sh_name >= o->shstrsz)
            rc = objrt_fail(l->ctx, "%s: section %zu: name offset %u past the name table",
                            o->name, i, s->sh_name);
        else if (!is_pow2_or_zero(s->sh_addralign))
            rc = objrt_fail(l->ctx, "%s: section %s: alignment %llu is not a power of two",
                            o->name, objrt_sec_name(o, i), (unsigned long long)s->sh_addralign);
        else if (s->sh_addralign > OBJRT_MAX_ALIGN || s->sh_size > OBJRT_MAX_SECTION)
            rc = objrt_fail(l->ctx, "%s: section %s: size 0x%llx or alignment 0x%llx beyond what "
                            "objrt places (at most 0x%llx bytes aligned to 0x%llx)", o->name,
                            objrt_sec_name(o, i), (unsigned long long)s->sh_size,
                            (unsigned long long)s->sh_addralign,
                            (unsigned long long)OBJRT_MAX_SECTION,
                            (unsigned long long)OBJRT_MAX_ALIGN);
        else if (s->sh_type != SHT_NOBITS && !in_file(s->sh_offset, s->sh_size, o->size))
            rc = objrt_fail(l->ctx, "%s: truncated: section %s [0x%llx, +0x%llx) lies past the "
                            "end of the file (0x%zx bytes)", o->name, objrt_sec_name(o, i),
                            (unsigned long long)s->sh_offset, (unsigned long long)s->sh_size,
                            o->size);
        else if (s->sh_type != SHT_NOBITS && s->sh_size)
            r[nr++] = (range){ s->sh_offset, s->sh_offset + s->sh_size, i };
    }
    if (rc == 0) {
        sort_ranges(r, nr);
        for (size_t i = 1; i < nr && rc == 0; i++)
            if (r[i].off < r[i - 1].end)
                rc = objrt_fail(l->ctx, "%s: sections %s and %s overlap in the file", o->name,
                                r[i - 1].idx ? objrt_sec_name(o, r[i - 1].idx) : "(ELF headers)",
                                r[i].idx ? objrt_sec_name(o, r[i].idx) : "(ELF headers)");
    }
    if (r != small)
        free(r);
    return rc;
}

static int check_symbols(objrt_link *l, objrt_obj *o, size_t symtab)
{
    const Elf64_Shdr *s = &o->sh[symtab];
    if (s->sh_entsize != sizeof(Elf64_Sym) || s->sh_size % sizeof(Elf64_Sym) ||
        s->sh_offset % 8)
        return objrt_fail(l->ctx, "%s: symbol table has a bad entry size or alignment", o->name);
    if (s->sh_link == 0 || s->sh_link >= o->shnum || o->sh[s->sh_link].sh_type != SHT_STRTAB)
        return objrt_fail(l->ctx, "%s: symbol table links to section %u, not a string table",
                          o->name, s->sh_link);
    const Elf64_Shdr *st = &o->sh[s->sh_link];
    if (st->sh_size == 0 || o->data[st->sh_offset + st->sh_size - 1] != '\0')
        return objrt_fail(l->ctx, "%s: symbol string table %s is not NUL-terminated", o->name,
                          objrt_sec_name(o, s->sh_link));
    o->syms = (const Elf64_Sym *)(o->data + s->sh_offset);
    o->nsyms = s->sh_size / sizeof(Elf64_Sym);
    o->first_global = s->sh_info;
    o->str = (const char *)o->data + st->sh_offset;
    o->strsz = st->sh_size;
    if (o->first_global > o->nsyms)
        return objrt_fail(l->ctx, "%s: symbol table: first global %zu beyond %zu symbols",
                          o->name, o->first_global, o->nsyms);
    for (size_t i = 0; i < o->nsyms; i++) {
        const Elf64_Sym *y = &o->syms[i];
        if (y->st_name >= o->strsz)
            return objrt_fail(l->ctx, "%s: symbol %zu: name offset %u past the string table",
                              o->name, i, y->st_name);
        if (i == 0 && y->st_shndx != SHN_UNDEF)
            return objrt_fail(l->ctx, "%s: symbol 0 must be the null symbol (section %u)",
                              o->name, y->st_shndx);
        if (y->st_shndx == SHN_XINDEX && !o->xindex)
            return objrt_fail(l->ctx, "%s: symbol %s uses SHN_XINDEX without a SHT_SYMTAB_SHNDX "
                              "section", o->name, o->str + y->st_name);
        uint32_t shndx = objrt_sym_shndx(o, i);
        bool special = shndx == SEC_UNDEF || shndx == SEC_ABS || shndx == SEC_COMMON;
        if (!special && shndx >= o->shnum)
            return objrt_fail(l->ctx, "%s: symbol %s: section index %u out of range (%zu sections)",
                              o->name, o->str + y->st_name, shndx, o->shnum);
        if (!special && y->st_value > o->sh[shndx].sh_size)
            return objrt_fail(l->ctx, "%s: symbol %s: value 0x%llx lies past the end of section %s "
                              "(0x%llx bytes)", o->name, o->str + y->st_name,
                              (unsigned long long)y->st_value, objrt_sec_name(o, shndx),
                              (unsigned long long)o->sh[shndx].sh_size);
        if (shndx == SEC_COMMON && (y->st_value > OBJRT_MAX_ALIGN || y->st_size > OBJRT_MAX_SECTION))
            return objrt_fail(l->ctx, "%s: common symbol %s: size or alignment too large", o->name,
                              o->str + y->st_name);
        if (shndx == SEC_COMMON && (y->st_value == 0 || !is_pow2_or_zero(y->st_value)))
            return objrt_fail(l->ctx, "%s: common symbol %s: alignment %llu is not a power of two",
                              o->name, o->str + y->st_name, (unsigned long long)y->st_value);
    }
    return 0;
}

/* The first of r[0..n) that names a symbol index >= nsyms, or SIZE_MAX. r_info holds the
 * index in its high 32 bits, so one unsigned compare of the whole word with nsyms << 32
 * asks it; four at a time, as every relocation of every input is asked once. */
static size_t first_bad_symbol(const Elf64_Rela *r, size_t n, size_t nsyms)
{
    if (nsyms > UINT32_MAX)
        return SIZE_MAX;                    /* every 32-bit index names a symbol */
    uint64_t bad = (uint64_t)nsyms << 32;
    size_t k = 0;
    for (; k + 4 <= n; k += 4)
        if ((r[k].r_info >= bad) | (r[k + 1].r_info >= bad) | (r[k + 2].r_info >= bad) |
            (r[k + 3].r_info >= bad))
            break;
    for (; k < n; k++)
        if (r[k].r_info >= bad)
            return k;
    return SIZE_MAX;
}

static int check_relocations(objrt_link *l, objrt_obj *o, size_t i, size_t symtab)
{
    const Elf64_Shdr *s = &o->sh[i];
    const char *sn = objrt_sec_name(o, i);
    if (s->sh_type == SHT_REL)
        return objrt_fail(l->ctx, "%s: section %s: SHT_REL relocations are not used on %s",
                          o->name, sn, l->arch->name);
    if (s->sh_entsize != sizeof(Elf64_Rela) || s->sh_size % sizeof(Elf64_Rela) || s->sh_offset % 8)
        return objrt_fail(l->ctx, "%s: section %s: bad relocation entry size or alignment",
                          o->name, sn);
    if (s->sh_link != symtab || symtab == 0)
        return objrt_fail(l->ctx, "%s: section %s: links to section %u, not the symbol table",
                          o->name, sn, s->sh_link);
    if (s->sh_info == 0 || s->sh_info >= o->shnum)
        return objrt_fail(l->ctx, "%s: section %s: applies to section %u, out of range", o->name,
                          sn, s->sh_info);
    /* Only a section with contents can be patched; relocating a table (itself, another
     * relocation section, the symbols) would otherwise be skipped silently, leaving the
     * section these relocations were meant for unrelocated. */
    uint32_t tt = o->sh[s->sh_info].sh_type;
    if (s->sh_info == i || tt == SHT_NULL || tt == SHT_RELA || tt == SHT_REL ||
        tt == SHT_SYMTAB || tt == SHT_STRTAB || tt == SHT_SYMTAB_SHNDX || tt == SHT_GROUP)
        return objrt_fail(l->ctx, "%s: section %s: applies to section %s (%u), which is %s",
                          o->name, sn, objrt_sec_name(o, s->sh_info), s->sh_info,
                          s->sh_info == i ? "itself" : "a table, not code or data");
    const Elf64_Rela *r = (const Elf64_Rela *)(o->data + s->sh_offset);
    size_t k = first_bad_symbol(r, s->sh_size / sizeof *r, o->nsyms);
    if (k != SIZE_MAX)
        return objrt_fail(l->ctx, "%s: section %s: relocation %zu (offset 0x%llx) names symbol "
                          "%llu of %zu", o->name, sn, k, (unsigned long long)r[k].r_offset,
                          (unsigned long long)ELF64_R_SYM(r[k].r_info), o->nsyms);
    return 0;
}

/* Finds the symbol table (at most one) and its SHN_XINDEX companion. */
static int find_symtab(objrt_link *l, objrt_obj *o, size_t *symtab)
{
    *symtab = 0;
    for (size_t i = 1; i < o->shnum; i++) {
        const Elf64_Shdr *s = &o->sh[i];
        if (s->sh_type == SHT_SYMTAB) {
            if (*symtab)
                return objrt_fail(l->ctx, "%s: more than one symbol table", o->name);
            *symtab = i;
        }
    }
    for (size_t i = 1; i < o->shnum; i++) {
        const Elf64_Shdr *s = &o->sh[i];
        if (s->sh_type != SHT_SYMTAB_SHNDX)
            continue;
        if (s->sh_link != *symtab || *symtab == 0 || s->sh_offset % 4 ||
            s->sh_size / 4 < o->sh[*symtab].sh_size / sizeof(Elf64_Sym))
            return objrt_fail(l->ctx, "%s: section %s: SHT_SYMTAB_SHNDX does not match the "
                              "symbol table", o->name, objrt_sec_name(o, i));
        o->xindex = (const Elf32_Word *)(o->data + s->sh_offset);
    }
    return 0;
}

/* Section groups (SHT_GROUP): a flag word, then member section indexes. resolve.c follows
 * the members of COMDAT groups to drop duplicates, so every index is checked here: a member
 * is a real section other than the group itself, a symbol table, a string table or another
 * group, and no section belongs to two groups. o->sec_group records each section's group. */
static int check_group(objrt_link *l, objrt_obj *o, size_t g, size_t symtab)
{
    const Elf64_Shdr *s = &o->sh[g];
    const char *gn = objrt_sec_name(o, g);
    if (s->sh_size < 4 || s->sh_size % 4 || s->sh_offset % 4)
        return objrt_fail(l->ctx, "%s: group section %s: size %llu is not a flag word and "
                          "4-byte member indexes", o->name, gn, (unsigned long long)s->sh_size);
    if (s->sh_link != symtab || symtab == 0)
        return objrt_fail(l->ctx, "%s: group section %s: links to section %u, not the symbol "
                          "table", o->name, gn, s->sh_link);
    if (s->sh_info == 0 || s->sh_info >= o->nsyms || !*objrt_sym_name(o, s->sh_info))
        return objrt_fail(l->ctx, "%s: group section %s: signature symbol %u is not a named "
                          "symbol of the %zu", o->name, gn, s->sh_info, o->nsyms);
    const uint32_t *w = (const uint32_t *)(o->data + s->sh_offset);
    if (w[0] & ~(uint32_t)(GRP_COMDAT | 0xfff00000u))      /* the gABI's OS and processor bits */
        return objrt_fail(l->ctx, "%s: group section %s: unknown flags 0x%x", o->name, gn, w[0]);
    for (size_t k = 1; k < s->sh_size / 4; k++) {
        uint32_t m = w[k];
        if (m == 0 || m >= o->shnum)
            return objrt_fail(l->ctx, "%s: group section %s: member %zu is section %u, out of "
                              "range (%zu sections)", o->name, gn, k, m, o->shnum);
        uint32_t t = o->sh[m].sh_type;
        if (t == SHT_GROUP || t == SHT_SYMTAB || t == SHT_SYMTAB_SHNDX || t == SHT_STRTAB)
            return objrt_fail(l->ctx, "%s: group section %s: member %zu is section %s, a %s",
                              o->name, gn, k, objrt_sec_name(o, m),
                              t == SHT_GROUP ? "group" : t == SHT_STRTAB ? "string table"
                                                                         : "symbol table");
        if (o->sec_group[m])
            return objrt_fail(l->ctx, "%s: section %s is a member of groups %s and %s", o->name,
                              objrt_sec_name(o, m), objrt_sec_name(o, o->sec_group[m]), gn);
        o->sec_group[m] = (uint32_t)g;
    }
    return 0;
}

static int check_groups(objrt_link *l, objrt_obj *o, size_t symtab)
{
    for (size_t i = 1; i < o->shnum; i++) {
        if (o->sh[i].sh_type != SHT_GROUP)
            continue;
        if (!o->sec_group && !(o->sec_group = calloc(o->shnum, sizeof *o->sec_group)))
            return objrt_fail(l->ctx, "out of memory");
        if (check_group(l, o, i, symtab))
            return -1;
    }
    return 0;
}

static int validate(objrt_link *l, objrt_obj *o)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)o->data;
    size_t symtab;
    if (check_header(l, o->name, o->data, o->size) || read_section_table(l, o, eh) ||
        check_sections(l, o) || find_symtab(l, o, &symtab))
        return -1;
    if ((symtab && check_symbols(l, o, symtab)) || check_groups(l, o, symtab))
        return -1;
    if (objrt_lto_check_object(l, o))
        return -1;
    for (size_t i = 1; i < o->shnum; i++) {
        uint32_t t = o->sh[i].sh_type;
        if ((t == SHT_RELA || t == SHT_REL) && check_relocations(l, o, i, symtab))
            return -1;
    }
    return 0;
}

void objrt_obj_free(objrt_obj *o)
{
    if (!o)
        return;
    free(o->gsym);
    free(o->sec_off);                   /* sec_placed shares its allocation (plan.c) */
    free(o->sec_group);
    free(o->sec_dropped);
    free(o);
}

int objrt_parse_object(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                       bool pulled, objrt_obj **out)
{
    size_t namelen = strlen(name);
    objrt_obj *o = calloc(1, sizeof *o + namelen + 1);     /* the name lives after it */
    if (!o)
        return objrt_fail(l->ctx, "out of memory");
    o->name = memcpy((char *)(o + 1), name, namelen + 1);
    o->data = data;
    o->size = size;
    o->pulled = pulled;
    if (validate(l, o)) {
        objrt_obj_free(o);
        return -1;
    }
    *out = o;
    return 0;
}

/*
 * t_corrupt.c - an object with one corrupted header field must be refused cleanly.
 *
 * usage: t_corrupt OBJECT.o [LABEL]   (tests/robustness/fixtures/basic.c compiled for the target;
 *        LABEL, e.g. "clang", goes into the check names when several compilers' objects run)
 * Each case patches one field of a copy of the object and loads it with
 * objrt_load_memory: NULL, an error naming the input (and the section concerned where
 * there is one), no crash, nothing left mapped or leaked. Control: the copy made by the
 * same code path but left unpatched loads.
 */
#include "t_common.h"

static unsigned char *g_orig;
static size_t g_size;

/* A patch returns the section name the error should mention (or NULL). */
typedef const char *(*patch_fn)(unsigned char *img, size_t size);

static Elf64_Shdr *sec(unsigned char *img, const char *name)
{
    int i = t_find_section(img, name);
    if (i < 0) { fprintf(stderr, "fixture has no %s\n", name); exit(2); }
    return t_shdr(img, (unsigned)i);
}
static Elf64_Rela *first_rela(unsigned char *img)
{
    return (Elf64_Rela *)(img + sec(img, ".rela.text")->sh_offset);
}
static Elf64_Sym *named_sym(unsigned char *img, const char *name)
{
    int i = t_find_symbol(img, name);
    if (i < 0) { fprintf(stderr, "fixture has no symbol %s\n", name); exit(2); }
    return t_symbol(img, i);
}

static const char *p_none(unsigned char *img, size_t size) { (void)img; (void)size; return NULL; }
static const char *p_shoff_past_eof(unsigned char *img, size_t size) { t_ehdr(img)->e_shoff = size + 64; return NULL; }
static const char *p_shoff_wraps(unsigned char *img, size_t size) { (void)size; t_ehdr(img)->e_shoff = ~(Elf64_Off)0 - 16; return NULL; }
static const char *p_shnum_huge(unsigned char *img, size_t size) { (void)size; t_ehdr(img)->e_shnum = 0xfeff; return NULL; }
static const char *p_shentsize(unsigned char *img, size_t size) { (void)size; t_ehdr(img)->e_shentsize = 32; return NULL; }
static const char *p_shstrndx(unsigned char *img, size_t size) { (void)size; t_ehdr(img)->e_shstrndx = t_ehdr(img)->e_shnum + 3; return NULL; }
static const char *p_sh_name(unsigned char *img, size_t size) { (void)size; sec(img, ".data")->sh_name = 0x7ffffff0; return NULL; }
static const char *p_text_offset(unsigned char *img, size_t size) { sec(img, ".text")->sh_offset = size + 16; return ".text"; }
static const char *p_data_size(unsigned char *img, size_t size) { sec(img, ".data")->sh_size = size; return ".data"; }
static const char *p_offset_wraps(unsigned char *img, size_t size)
{
    (void)size;
    Elf64_Shdr *s = sec(img, ".text");
    s->sh_offset = ~(Elf64_Off)0 - 8;
    s->sh_size = 0x40;
    return ".text";
}
static const char *p_symtab_offset(unsigned char *img, size_t size) { t_shdr(img, (unsigned)t_find_type(img, SHT_SYMTAB))->sh_size = size * 4; return ".symtab"; }
static const char *p_rela_link(unsigned char *img, size_t size)
{
    (void)size;
    sec(img, ".rela.text")->sh_link = (Elf64_Word)t_find_section(img, ".text");
    return ".rela.text";
}
static const char *p_rela_info(unsigned char *img, size_t size)
{
    (void)size;
    sec(img, ".rela.text")->sh_info = t_ehdr(img)->e_shnum + 7;
    return ".rela.text";
}
static const char *p_sym_shndx(unsigned char *img, size_t size)
{
    (void)size;
    named_sym(img, "basic_answer")->st_shndx = (Elf64_Section)(t_ehdr(img)->e_shnum + 10);
    return NULL;
}
static const char *p_sym_name(unsigned char *img, size_t size)
{
    (void)size;
    Elf64_Shdr *symtab = t_shdr(img, (unsigned)t_find_type(img, SHT_SYMTAB));
    named_sym(img, "basic_answer")->st_name = (Elf64_Word)t_shdr(img, symtab->sh_link)->sh_size + 100;
    return NULL;
}
static const char *p_sym_value(unsigned char *img, size_t size)
{
    (void)size;
    named_sym(img, "basic_data")->st_value = 0x100000;   /* far past the end of .data */
    return NULL;
}
static const char *p_strtab_nul(unsigned char *img, size_t size)
{
    (void)size;
    Elf64_Shdr *symtab = t_shdr(img, (unsigned)t_find_type(img, SHT_SYMTAB));
    Elf64_Shdr *str = t_shdr(img, symtab->sh_link);
    img[str->sh_offset + str->sh_size - 1] = 'X';        /* last name runs off the end */
    /* clang shares one .strtab between symbol and section names: the error may then
     * be about the section name table. */
    return symtab->sh_link == t_ehdr(img)->e_shstrndx ? NULL : ".strtab";
}
static const char *p_shstrtab_nul(unsigned char *img, size_t size)
{
    (void)size;
    Elf64_Shdr *str = t_shdr(img, t_ehdr(img)->e_shstrndx);
    img[str->sh_offset + str->sh_size - 1] = 'X';
    return NULL;
}
static const char *p_align3(unsigned char *img, size_t size) { (void)size; sec(img, ".text")->sh_addralign = 3; return ".text"; }
static const char *p_align24(unsigned char *img, size_t size) { (void)size; sec(img, ".data")->sh_addralign = 24; return ".data"; }
static const char *p_align_huge(unsigned char *img, size_t size) { (void)size; sec(img, ".data")->sh_addralign = (Elf64_Xword)1 << 62; return ".data"; }
static const char *p_rel_offset(unsigned char *img, size_t size)
{
    (void)size;
    first_rela(img)->r_offset = sec(img, ".text")->sh_size + 8;
    return ".text";
}
static const char *p_rel_straddle(unsigned char *img, size_t size)
{
    (void)size;
    first_rela(img)->r_offset = sec(img, ".text")->sh_size - 2;   /* 4-byte field, 2 inside */
    return ".text";
}
static const char *p_rel_sym(unsigned char *img, size_t size)
{
    (void)size;
    Elf64_Rela *r = first_rela(img);
    r->r_info = ELF64_R_INFO(0x00ffffff, ELF64_R_TYPE(r->r_info));
    return ".text";
}
static const char *p_overlap(unsigned char *img, size_t size)
{
    (void)size;
    Elf64_Shdr *data = sec(img, ".data"), *text = sec(img, ".text");
    data->sh_offset = text->sh_offset + 2;     /* .data now overlaps .text's bytes */
    return NULL;
}
static const char *p_overlap_shdrs(unsigned char *img, size_t size)
{
    (void)size;
    sec(img, ".data")->sh_offset = t_ehdr(img)->e_shoff;   /* .data overlaps the headers */
    return NULL;
}
static const char *p_machine(unsigned char *img, size_t size)
{
    (void)size;
    Elf64_Ehdr *eh = t_ehdr(img);
    eh->e_machine = eh->e_machine == EM_X86_64 ? EM_AARCH64 : EM_X86_64;
    return NULL;
}
static const char *p_machine_other(unsigned char *img, size_t size) { (void)size; t_ehdr(img)->e_machine = EM_PPC64; return NULL; }
static const char *p_class(unsigned char *img, size_t size) { (void)size; img[EI_CLASS] = ELFCLASS32; return NULL; }
static const char *p_data(unsigned char *img, size_t size) { (void)size; img[EI_DATA] = ELFDATA2MSB; return NULL; }
static const char *p_magic(unsigned char *img, size_t size) { (void)size; img[1] = 'e'; return NULL; }
static const char *p_exec(unsigned char *img, size_t size) { (void)size; t_ehdr(img)->e_type = ET_EXEC; return NULL; }
static const char *p_dyn(unsigned char *img, size_t size) { (void)size; t_ehdr(img)->e_type = ET_DYN; return NULL; }
static const char *p_core(unsigned char *img, size_t size) { (void)size; t_ehdr(img)->e_type = ET_CORE; return NULL; }

static const struct { const char *name; patch_fn patch; } cases[] = {
    { "e_shoff-past-eof", p_shoff_past_eof },
    { "e_shoff-wraps", p_shoff_wraps },
    { "e_shnum-past-eof", p_shnum_huge },
    { "e_shentsize-wrong", p_shentsize },
    { "e_shstrndx-out-of-range", p_shstrndx },
    { "sh_name-past-shstrtab", p_sh_name },
    { "sh_offset-past-eof", p_text_offset },
    { "sh_size-past-eof", p_data_size },
    { "sh_offset-plus-size-wraps", p_offset_wraps },
    { "symtab-size-past-eof", p_symtab_offset },
    { "rela-sh_link-not-symtab", p_rela_link },
    { "rela-sh_info-out-of-range", p_rela_info },
    { "st_shndx-out-of-range", p_sym_shndx },
    { "st_name-past-strtab", p_sym_name },
    { "st_value-past-section", p_sym_value },
    { "strtab-without-nul", p_strtab_nul },
    { "shstrtab-without-nul", p_shstrtab_nul },
    { "sh_addralign-3", p_align3 },
    { "sh_addralign-24", p_align24 },
    { "sh_addralign-2pow62", p_align_huge },
    { "r_offset-past-section", p_rel_offset },
    { "r_offset-straddles-end", p_rel_straddle },
    { "r_sym-out-of-range", p_rel_sym },
    { "sections-overlap", p_overlap },
    { "section-overlaps-headers", p_overlap_shdrs },
    { "e_machine-other-arch", p_machine },
    { "e_machine-ppc64", p_machine_other },
    { "ei_class-32", p_class },
    { "ei_data-big-endian", p_data },
    { "bad-magic", p_magic },
    { "e_type-exec", p_exec },
    { "e_type-dyn", p_dyn },
    { "e_type-core", p_core },
};

struct job { const char *name; char input[96]; patch_fn patch; };

static int load_patched(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    struct job *j = arg;
    unsigned char *img = t_copy(g_orig, g_size);
    const char *needles[2] = { j->patch(img, g_size), NULL };
    objrt_unit *u = t_load_mem(ctx, j->input, img, g_size);
    free(img);
    return t_refused(ctx, u, "corrupted object loaded", j->input, needles, why, whylen);
}

static int run_case(void *arg, char *why, size_t whylen)
{
    return t_fails_cleanly_new(load_patched, arg, ((struct job *)arg)->input, why, whylen);
}

/* Control: the same copy-and-load path with no patch loads and runs. */
static int run_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    unsigned char *img = t_copy(g_orig, g_size);
    p_none(img, g_size);
    objrt_input in = { "unpatched.o", img, g_size };
    int ok = t_mem_call(&in, 1, "basic_answer", 42, why, whylen);
    free(img);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) { fprintf(stderr, "usage: %s OBJECT [LABEL]\n", argv[0]); return 2; }
    g_orig = t_read_file(argv[1], &g_size);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "corrupt-%s%s", argc == 3 ? argv[2] : "", argc == 3 ? "-" : "");
    char cname[128];
    snprintf(cname, sizeof cname, "%scontrol-unpatched-loads", prefix);
    t_case(cname, run_control, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct job j = { cases[i].name, "", cases[i].patch };
        snprintf(j.input, sizeof j.input, "corrupt-%s.o", cases[i].name);
        char name[128];
        snprintf(name, sizeof name, "%s%s", prefix, cases[i].name);
        t_case(name, run_case, &j);
    }
    free(g_orig);
    return t_exit_status();
}

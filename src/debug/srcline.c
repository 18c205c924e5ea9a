/*
 * srcline.c - the source file and line of a code address in a loaded unit, for the crash
 * report: read from the object's DWARF line table with elfutils' libdwfl, not by a DWARF
 * reader of our own.
 *
 * The input is the image gdbjit.c built for the object (and gives gdb): the relocatable
 * object with every placed section's sh_addr set to where it was loaded and the DWARF
 * with its relocations. It is reported to libdwfl the way a Linux kernel module is, an
 * ET_REL whose sections lie where section_address says (their sh_addr), and libdwfl
 * applies the .rela.debug_* relocations itself.
 *
 * libdw is opened with dlopen on the first report: only a crash needs it, so a process
 * that never crashes never loads it (nor libelf and the compression libraries it pulls
 * in), and libobjrt does not depend on it. Without libdw.so.1 there are no lines, the rest
 * of the report is unchanged. libdw allocates: the caller guards against a hang (crash.c).
 */
#include <dlfcn.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debug/unitinfo.h"

/* The libdw and libelf functions used, typed from their own header. */
#define DW_FUNCS(X) X(dwfl_begin) X(dwfl_end) X(dwfl_report_begin) X(dwfl_report_module) \
    X(dwfl_report_end) X(dwfl_module_getsrc) X(dwfl_lineinfo) X(elf_version) X(elf_memory) \
    X(elf_end) X(dwfl_module_nextcu) X(dwarf_haspc) X(dwarf_getsrc_die) X(dwarf_lineno) \
    X(dwarf_linesrc)
static struct {
#define DW_FIELD(f) __typeof__(f) *f;
    DW_FUNCS(DW_FIELD)
#undef DW_FIELD
} dw;
static int dw_state;            /* 0 not tried, 1 usable, -1 unavailable */

static bool open_libdw(void)
{
    if (dw_state)
        return dw_state > 0;
    dw_state = -1;
    void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return false;
#define DW_LOAD(f) if (!(*(void **)&dw.f = dlsym(h, #f))) return false;
    DW_FUNCS(DW_LOAD)
#undef DW_LOAD
    dw.elf_version(EV_CURRENT);
    dw_state = 1;
    return true;
}

/* The image being looked at: one report at a time (a second thread's crash waits for
 * nothing, it only risks a wrong line, never a wrong address). */
static uint8_t *cur_image;
static size_t cur_size;

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                    char **file_name, Elf **elfp)
{
    (void)mod, (void)userdata, (void)name, (void)base;
    *file_name = NULL;
    *elfp = dw.elf_memory((char *)cur_image, cur_size);
    return -1;                  /* no descriptor: the Elf is in memory */
}

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                        const char *file, const char *debuglink, GElf_Word crc, char **path)
{
    (void)mod, (void)userdata, (void)name, (void)base, (void)file, (void)debuglink, (void)crc;
    *path = NULL;
    return -1;                  /* the DWARF is in the image itself */
}

/* Where a section of the image was loaded: its sh_addr (gdbjit.c set it). */
static int section_address(Dwfl_Module *mod, void **userdata, const char *modname,
                           Dwarf_Addr base, const char *secname, GElf_Word shndx,
                           const GElf_Shdr *shdr, Dwarf_Addr *addr)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)secname, (void)shndx;
    *addr = shdr->sh_addr;
    return 0;
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = find_elf, .find_debuginfo = no_debuginfo, .section_address = section_address,
};

/* The address range the image's loaded sections cover, from its section headers. */
static bool image_range(const uint8_t *img, size_t size, uint64_t *lo, uint64_t *hi)
{
    Elf64_Ehdr eh;
    if (size < sizeof eh)
        return false;
    memcpy(&eh, img, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
        (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
        return false;
    *lo = UINT64_MAX;
    *hi = 0;
    for (size_t i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, img + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_addr)
            continue;
        *lo = sh.sh_addr < *lo ? sh.sh_addr : *lo;
        *hi = sh.sh_addr + sh.sh_size > *hi ? sh.sh_addr + sh.sh_size : *hi;
    }
    return *lo < *hi;
}

/* dwfl_module_getsrc finds the unit through .debug_aranges, which clang does not emit:
 * then each compilation unit is asked whether it covers pc. */
static const char *line_from_cus(Dwfl_Module *mod, uintptr_t pc, int *lineno)
{
    Dwarf_Addr bias = 0;
    for (Dwarf_Die *cu = NULL; (cu = dw.dwfl_module_nextcu(mod, cu, &bias));) {
        if (dw.dwarf_haspc(cu, pc - bias) <= 0)
            continue;
        Dwarf_Line *l = dw.dwarf_getsrc_die(cu, pc - bias);
        if (l && dw.dwarf_lineno(l, lineno) == 0)
            return dw.dwarf_linesrc(l, NULL, NULL);
    }
    return NULL;
}

bool objrt_srcline(const objrt_unitinfo *ui, const char *object, uintptr_t pc, char *buf,
                   size_t len)
{
    const struct objrt_jit_entry *e = NULL;
    for (size_t i = 0; i < ui->nobjs && !e; i++)
        if (ui->objs[i].object == object)
            e = ui->objs[i].jit;
    uint64_t lo = 0, hi = 0;
    if (!e || !open_libdw() ||
        !image_range(objrt_gdbjit_bytes(e), objrt_gdbjit_size(e), &lo, &hi) || pc < lo || pc >= hi)
        return false;
    /* a copy: libdwfl relocates the DWARF in place, and the image is gdb's */
    uint8_t *copy = malloc(objrt_gdbjit_size(e));
    Dwfl *d = copy ? dw.dwfl_begin(&callbacks) : NULL;
    if (!d) {
        free(copy);
        return false;
    }
    memcpy(copy, objrt_gdbjit_bytes(e), objrt_gdbjit_size(e));
    cur_image = copy;
    cur_size = objrt_gdbjit_size(e);
    dw.dwfl_report_begin(d);
    Dwfl_Module *mod = dw.dwfl_report_module(d, object, lo, hi);
    dw.dwfl_report_end(d, NULL, NULL);
    Dwfl_Line *line = mod ? dw.dwfl_module_getsrc(mod, pc) : NULL;
    int lineno = 0;
    const char *file = line ? dw.dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL)
                     : mod ? line_from_cus(mod, pc, &lineno) : NULL;
    bool found = file && lineno > 0;
    if (found)
        snprintf(buf, len, "%s:%d", file, lineno);
    dw.dwfl_end(d);             /* ends the Elf find_elf made too */
    free(copy);
    return found;
}

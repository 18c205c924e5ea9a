/*
 * gdbjit.c - tell GDB about loaded code through its JIT interface (gdb/jit.c; the same
 * interface LLVM's MCJIT uses): gdb sets a breakpoint in __jit_debug_register_code and,
 * each time it is hit, reads the in-memory ELF file named by __jit_debug_descriptor.
 *
 * The image given for each object of a unit is that relocatable object with sh_addr of
 * every placed section set to where it was loaded (sections that were not loaded lose
 * SHF_ALLOC) and without the bytes gdb reads from memory anyway (see keep_of). gdb reads an
 * ET_REL's sh_addr as the section's address, takes its symbols (locals included) relative
 * to it, and applies the .rela.debug_* relocations itself against those addresses, so -g
 * objects get file, line and variable information without objrt relocating DWARF.
 */
#include <stdlib.h>
#include <string.h>

#include "loader/unitinfo.h"

enum { JIT_NOACTION, JIT_REGISTER, JIT_UNREGISTER };

struct objrt_jit_entry {
    struct objrt_jit_entry *next, *prev;
    const char *symfile_addr;
    uint64_t symfile_size;
};

struct jit_descriptor {
    uint32_t version;
    uint32_t action_flag;
    struct objrt_jit_entry *relevant_entry;
    struct objrt_jit_entry *first_entry;
};

/* The names and layout gdb looks for; exported from libobjrt.so (see objrt.map). */
void __jit_debug_register_code(void);
extern struct jit_descriptor __jit_debug_descriptor;

__attribute__((noinline, used)) void __jit_debug_register_code(void)
{
    __asm__ volatile("" ::: "memory");    /* gdb's breakpoint: the call must stay */
}

struct jit_descriptor __jit_debug_descriptor = { 1, JIT_NOACTION, NULL, NULL };

/* Every process-wide change goes through this lock, as gdb reads the list at any stop. */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

static void notify(struct objrt_jit_entry *e, uint32_t action)
{
    __jit_debug_descriptor.relevant_entry = e;
    __jit_debug_descriptor.action_flag = action;
    __jit_debug_register_code();
    __jit_debug_descriptor.action_flag = JIT_NOACTION;
    __jit_debug_descriptor.relevant_entry = NULL;
}

/* What the image keeps of section i: gdb reads loaded code and data from memory, so
 * placed sections become SHT_NOBITS (size and address kept) and the relocations that
 * patched them are dropped; symbols, strings, DWARF with its relocations, and .eh_frame
 * (gdb unwinds with it) keep their bytes. A debug-less object shrinks to its symbols. */
enum keep { KEEP_BYTES, KEEP_HEADER, DROP_BYTES };

static bool is_unwind(const objrt_obj *o, size_t i)
{
    if (o->sh[i].sh_type == 0x70000001)         /* SHT_X86_64_UNWIND */
        return true;
    const char *n = objrt_sec_name(o, i);       /* asked twice per section of every image: */
    return n[0] == '.' && n[1] == 'e' && strcmp(n, ".eh_frame") == 0;  /* reject cheaply */
}

static enum keep keep_of(const objrt_obj *o, size_t i)
{
    const Elf64_Shdr *s = &o->sh[i];
    if (s->sh_type == SHT_NOBITS)
        return KEEP_HEADER;
    if (o->sec_placed[i])
        return is_unwind(o, i) ? KEEP_BYTES : DROP_BYTES;
    if ((s->sh_type == SHT_RELA || s->sh_type == SHT_REL) && s->sh_info < o->shnum &&
        o->sec_placed[s->sh_info] && !is_unwind(o, s->sh_info))
        return DROP_BYTES;
    return KEEP_BYTES;
}

static size_t image_size(const objrt_obj *o)
{
    size_t n = objrt_align_up(sizeof(Elf64_Ehdr), 8);
    for (size_t i = 1; i < o->shnum; i++)     /* parse.c: contents lie inside the file */
        if (keep_of(o, i) == KEEP_BYTES)
            n += objrt_align_up(o->sh[i].sh_size, 8);
    return n + o->shnum * sizeof(Elf64_Shdr);
}

/* The object's ELF header and section table, with loaded addresses, and kept contents. */
static struct objrt_jit_entry *make_image(const objrt_link *l, const objrt_obj *o)
{
    size_t size = image_size(o);
    struct objrt_jit_entry *e = calloc(1, sizeof *e);
    uint8_t *img = malloc(size);      /* every byte is written below: no calloc zeroing */
    if (!e || !img) {
        free(e);
        free(img);
        return NULL;
    }
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    memcpy(eh, o->data, sizeof *eh);
    size_t at = objrt_align_up(sizeof *eh, 8);
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + size - o->shnum * sizeof *sh);
    memcpy(sh, o->sh, o->shnum * sizeof *sh);
    eh->e_shoff = (uint64_t)((uint8_t *)sh - img);
    for (size_t i = 1; i < o->shnum; i++) {
        enum keep k = keep_of(o, i);
        if (o->sec_placed[i])
            sh[i].sh_addr = (uint64_t)(uintptr_t)l->base + o->sec_off[i];
        else
            sh[i].sh_flags &= ~(uint64_t)SHF_ALLOC;   /* not loaded: no address to claim */
        if (k == KEEP_BYTES) {
            uint64_t n = o->sh[i].sh_size, padded = objrt_align_up(n, 8);
            memcpy(img + at, o->data + o->sh[i].sh_offset, n);
            memset(img + at + n, 0, padded - n);
            sh[i].sh_offset = at;
            at += padded;
        } else if (k == DROP_BYTES) {
            sh[i].sh_offset = 0;
            if (sh[i].sh_type == SHT_RELA || sh[i].sh_type == SHT_REL)
                sh[i].sh_size = 0;
            else
                sh[i].sh_type = SHT_NOBITS;
        }
    }
    e->symfile_addr = (const char *)img;
    e->symfile_size = size;
    return e;
}

struct objrt_jit_entry *objrt_gdbjit_image(const objrt_link *l, const objrt_obj *o)
{
    return make_image(l, o);
}

const uint8_t *objrt_gdbjit_bytes(const struct objrt_jit_entry *e)
{
    return (const uint8_t *)e->symfile_addr;
}

void objrt_gdbjit_free(struct objrt_jit_entry *e)
{
    if (e)
        free((void *)e->symfile_addr);
    free(e);
}

void objrt_gdbjit_register(objrt_unitinfo *ui)
{
    pthread_mutex_lock(&jit_lock);
    for (size_t i = 0; i < ui->nobjs; i++) {
        struct objrt_jit_entry *e = ui->objs[i].jit;
        if (!e)
            continue;
        e->prev = NULL;
        e->next = __jit_debug_descriptor.first_entry;
        if (e->next)
            e->next->prev = e;
        __jit_debug_descriptor.first_entry = e;
        notify(e, JIT_REGISTER);
    }
    ui->jit_registered = true;
    pthread_mutex_unlock(&jit_lock);
}

void objrt_gdbjit_unregister(objrt_unitinfo *ui)
{
    if (!ui->jit_registered)
        return;
    pthread_mutex_lock(&jit_lock);
    for (size_t i = 0; i < ui->nobjs; i++) {
        struct objrt_jit_entry *e = ui->objs[i].jit;
        if (!e)
            continue;
        if (e->prev)
            e->prev->next = e->next;
        else
            __jit_debug_descriptor.first_entry = e->next;
        if (e->next)
            e->next->prev = e->prev;
        notify(e, JIT_UNREGISTER);
    }
    ui->jit_registered = false;
    pthread_mutex_unlock(&jit_lock);
}

/*
 * gdbjit.c - tell GDB about loaded code through its JIT interface (gdb/jit.c; the same
 * interface LLVM's MCJIT uses): gdb sets a breakpoint in __jit_debug_register_code and,
 * each time it is hit, reads the in-memory ELF file named by __jit_debug_descriptor.
 *
 * The image given for each object of a unit is a copy of that relocatable object whose
 * placed sections have sh_addr set to where they were loaded (sections that were not
 * loaded lose SHF_ALLOC). gdb reads an ET_REL's sh_addr as the section's address, takes
 * its symbols (locals included) relative to it, and applies the .rela.debug_* relocations
 * itself against those addresses, so -g objects get file, line and variable information
 * without objrt relocating DWARF.
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

/* A copy of o with the loaded addresses in its section headers. */
static struct objrt_jit_entry *make_image(const objrt_link *l, const objrt_obj *o)
{
    struct objrt_jit_entry *e = calloc(1, sizeof *e);
    uint8_t *img = malloc(o->size);
    if (!e || !img) {
        free(e);
        free(img);
        return NULL;
    }
    memcpy(img, o->data, o->size);
    /* parse.c checked that the section headers lie inside the file, 8-byte aligned. */
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + ((const uint8_t *)o->sh - o->data));
    for (size_t i = 1; i < o->shnum; i++) {
        if (o->sec_placed[i])
            sh[i].sh_addr = (uint64_t)(uintptr_t)l->base + o->sec_off[i];
        else
            sh[i].sh_flags &= ~(uint64_t)SHF_ALLOC;
    }
    e->symfile_addr = (const char *)img;
    e->symfile_size = o->size;
    return e;
}

static void entry_free(struct objrt_jit_entry *e)
{
    if (e)
        free((void *)e->symfile_addr);
    free(e);
}

int objrt_gdbjit_register(objrt_link *l, objrt_unitinfo *ui)
{
    ui->jit = calloc(l->nobjs + 1, sizeof *ui->jit);
    if (!ui->jit)
        return objrt_fail(l->ctx, "out of memory");
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        if (!o->pulled || !o->sec_placed)
            continue;
        struct objrt_jit_entry *e = make_image(l, o);
        if (!e)
            return objrt_fail(l->ctx, "out of memory (debugger image of %s)", o->name);
        ui->jit[ui->njit++] = e;
    }
    pthread_mutex_lock(&jit_lock);
    for (size_t i = 0; i < ui->njit; i++) {
        struct objrt_jit_entry *e = ui->jit[i];
        e->next = __jit_debug_descriptor.first_entry;
        if (e->next)
            e->next->prev = e;
        __jit_debug_descriptor.first_entry = e;
        notify(e, JIT_REGISTER);
    }
    pthread_mutex_unlock(&jit_lock);
    return 0;
}

void objrt_gdbjit_unregister(objrt_unitinfo *ui)
{
    pthread_mutex_lock(&jit_lock);
    for (size_t i = 0; i < ui->njit; i++) {
        struct objrt_jit_entry *e = ui->jit[i];
        if (!e->prev && __jit_debug_descriptor.first_entry != e)
            continue;                     /* built, never linked (registration failed) */
        if (e->prev)
            e->prev->next = e->next;
        else
            __jit_debug_descriptor.first_entry = e->next;
        if (e->next)
            e->next->prev = e->prev;
        notify(e, JIT_UNREGISTER);
    }
    pthread_mutex_unlock(&jit_lock);
    for (size_t i = 0; i < ui->njit; i++)
        entry_free(ui->jit[i]);
    ui->njit = 0;
}

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
 *
 * A unit's images are sized first and then written into one block with their list
 * entries (one allocation and one pass of page faults per unit, not two per object);
 * the block is freed as a whole after the unit is unregistered.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "debug/unitinfo.h"
#include "base/fork.h"
#include "input/input.h"

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

/* The names and layout gdb looks for; exported from libobjrt.so (see objrt.map), the only
 * names outside the public headers that are. */
__attribute__((visibility("default"))) void __jit_debug_register_code(void);
__attribute__((visibility("default"))) extern struct jit_descriptor __jit_debug_descriptor;

__attribute__((noinline, used)) void __jit_debug_register_code(void)
{
    __asm__ volatile("" ::: "memory");    /* gdb's breakpoint: the call must stay */
}

struct jit_descriptor __jit_debug_descriptor = { 1, JIT_NOACTION, NULL, NULL };
/* The same object under a name of our own, which the code below uses: another JIT in the
 * process (LLVM's defines both names) may come before libobjrt in the lookup order, and a
 * reference by the exported name would then chain our entries into its list, under our lock
 * and not its. The register call is bound to ours at link time (-Bsymbolic-functions, which
 * does not cover data; docs/reference.md). */
extern struct jit_descriptor own_descriptor
    __attribute__((alias("__jit_debug_descriptor"), visibility("hidden")));

/* Every process-wide change goes through this lock, as gdb reads the list at any stop. */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

static void notify(struct objrt_jit_entry *e, uint32_t action)
{
    own_descriptor.relevant_entry = e;
    own_descriptor.action_flag = action;
    __jit_debug_register_code();
    own_descriptor.action_flag = JIT_NOACTION;
    own_descriptor.relevant_entry = NULL;
}

/* What the image keeps of section i: gdb reads loaded code and data from memory, so
 * placed sections become SHT_NOBITS (size and address kept) and the relocations that
 * patched them are dropped; symbols, strings, DWARF with its relocations, and .eh_frame
 * (gdb unwinds with it) keep their bytes. A loaded .eh_frame is copied from the unit, as
 * relocated, so its relocations are dropped too: gdb relocates an ET_REL section only when
 * a relocation section names it, and the relocated bytes are what applying them would
 * give (pc-relative fields are relative to sh_addr, the loaded address). A debug-less
 * object shrinks to its symbols and unwind tables. The symbol table is copied whole:
 * leaving out the undefined and section symbols gdb and objrt_addr_info never use (half
 * of sqlite's) saved a sixth of the images but made the stage slower warm and no faster
 * on a first link; a walk per symbol costs more than a copy of it. */
enum keep { KEEP_BYTES, KEEP_LOADED, KEEP_HEADER, DROP_BYTES };

/* Which placed sections are .eh_frame comes from the plan's items (IT_EH_FRAME, set by the
 * same test: SHT_X86_64_UNWIND or the name): asking each placed section's name here again
 * cost a cache miss per section (libcrypto: 3,800 of them). */
static enum keep keep_of(const objrt_obj *o, size_t i)
{
    const Elf64_Shdr *s = &o->sh[i];
    if (s->sh_type == SHT_NOBITS)
        return KEEP_HEADER;
    if (o->sec_placed[i])
        return DROP_BYTES;              /* KEEP_LOADED for .eh_frame: mark_unwind() */
    if ((s->sh_type == SHT_RELA || s->sh_type == SHT_REL) && s->sh_info < o->shnum &&
        o->sec_placed[s->sh_info])
        return DROP_BYTES;
    return KEEP_BYTES;
}

/* The image's size; keep[i] records keep_of(o, i) for the fill (asked once per section).
 * Kept contents lie inside the input (parse.c), so the sum stays below its size plus the
 * padding and the headers. */
static size_t image_size(const objrt_obj *o, uint8_t *keep)
{
    size_t n = objrt_align_up(sizeof(Elf64_Ehdr), 8);
    for (size_t i = 1; i < o->shnum; i++) {
        keep[i] = (uint8_t)keep_of(o, i);
        if (keep[i] == KEEP_BYTES)
            n += objrt_align_up(o->sh[i].sh_size, 8);
    }
    return n + o->shnum * sizeof(Elf64_Shdr);
}

typedef struct image_plan {     /* per object of the link: its image's size and decisions */
    size_t size;
    size_t keep;                /* offset of its sections' keep_of() answers */
} image_plan;

/* Every loaded .eh_frame keeps its bytes, as relocated (see above). */
static void mark_unwind(const objrt_link *l, const uint32_t *slot, image_plan *ip, uint8_t *keep)
{
    for (size_t i = 0; i < l->plan.nitems; i++) {
        const objrt_item *it = &l->plan.items[i];
        if (it->kind != IT_EH_FRAME || slot[it->obj] == OBJRT_NONE)
            continue;
        image_plan *p = &ip[it->obj];
        keep[p->keep + it->shndx] = KEEP_LOADED;
        p->size += objrt_align_up(l->objs[it->obj]->sh[it->shndx].sh_size, 8);
    }
}

/* The object's ELF header and section table, with loaded addresses, and kept contents,
 * written to img (size bytes, every one of them written here). */
static void fill_image(const objrt_link *l, const objrt_obj *o, const uint8_t *keep,
                       uint8_t *img, size_t size)
{
    static const uint64_t zero;
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    memcpy(eh, o->data, sizeof *eh);
    size_t at = objrt_align_up(sizeof *eh, 8);
    memset(img + sizeof *eh, 0, at - sizeof *eh);
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + size - o->shnum * sizeof *sh);
    memcpy(sh, o->sh, o->shnum * sizeof *sh);
    eh->e_shoff = (uint64_t)((uint8_t *)sh - img);
    for (size_t i = 1; i < o->shnum; i++) {
        const uint8_t *loaded = o->sec_placed[i] ? l->base + o->sec_off[i] : NULL;
        if (loaded)
            sh[i].sh_addr = (uint64_t)(uintptr_t)loaded;
        else
            sh[i].sh_flags &= ~(uint64_t)SHF_ALLOC;   /* not loaded: no address to claim */
        if (keep[i] == KEEP_BYTES || keep[i] == KEEP_LOADED) {
            uint64_t n = o->sh[i].sh_size, padded = objrt_align_up(n, 8);
            if (padded != n)            /* the padding first: the copy overwrites the rest */
                memcpy(img + at + padded - 8, &zero, 8);
            memcpy(img + at, keep[i] == KEEP_LOADED ? loaded : o->data + o->sh[i].sh_offset, n);
            sh[i].sh_offset = at;
            at += padded;
        } else if (keep[i] == DROP_BYTES) {
            sh[i].sh_offset = 0;
            if (sh[i].sh_type == SHT_RELA || sh[i].sh_type == SHT_REL)
                sh[i].sh_size = 0;
            else
                sh[i].sh_type = SHT_NOBITS;
        }
    }
}

/* From this size on a block whose pages are fresh (a new process's heap, or a mapping of
 * malloc's own) is made present in one call (Linux >= 5.14; elsewhere the copies fault it
 * in): one fault per page costs more than the copy into it. Memory that malloc reuses
 * from an earlier unit is present already, and populating it again costs more than
 * asking whether its last page is there (mincore). */
#define POPULATE_FROM ((size_t)64 << 10)
/* The block stays in small pages, from malloc. Mapped 2 MiB-aligned with its whole blocks
 * offered to huge pages (internal.h), as place.c does with a unit, libcrypto's 3.1 MB made
 * this stage slower in new processes: on the VM measured, a huge page taken after the
 * inputs' and the unit's was mostly cold (likely memory its host had reclaimed: free page
 * reporting) and slow to populate (docs/perf-history.md, "Huge pages for the debugger
 * images"). */

/* One unloaded unit's block is kept by its context for the next load (at most
 * JIT_SPARE_MAX; taken only for a size at least half of it, so a small unit does not pin
 * a large one; what the next load does not take is freed at its end, as place.c does
 * with reservations). Freeing it would leave the top of the heap free: glibc trims it
 * and the next load faults it in again, at every warm link. */
#define JIT_SPARE_MAX ((size_t)64 << 20)

static void *spare_take(objrt_ctx *ctx, size_t size)
{
    objrt_spare *s = &ctx->jit_spare;
    if (!s->base || s->size < size || s->size / 2 > size)
        return NULL;
    void *p = s->base;
    *s = (objrt_spare){ 0 };
    return p;
}

static void spare_keep(objrt_ctx *ctx, void *block, size_t size)
{
    objrt_spare *s = &ctx->jit_spare;
    if (ctx->closing || size > JIT_SPARE_MAX || (s->base && s->size >= size)) {
        free(block);
        return;
    }
    free(s->base);                      /* the bigger one stays: it fits more loads */
    *s = (objrt_spare){ block, size };
}

void objrt_gdbjit_spare_release(objrt_ctx *ctx)
{
    free(ctx->jit_spare.base);
    ctx->jit_spare = (objrt_spare){ 0 };
}

static void *block_alloc(objrt_ctx *ctx, size_t size)
{
    uint8_t *p = spare_take(ctx, size);
    if (p)
        return p;                       /* present: it held the last unit's images */
    p = malloc(size);
    if (!p || size < POPULATE_FROM)
        return p;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(uintptr_t)(page - 1);
    unsigned char present = 0;
    if (hi > lo && (mincore((void *)(hi - page), page, &present) != 0 || !(present & 1)))
        madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);   /* advice: may fail */
    return p;
}

int objrt_gdbjit_build(const objrt_link *l, objrt_unitinfo *ui, const uint32_t *slot)
{
#ifdef OBJRT_BENCH_ABLATE
    (void)l, (void)ui, (void)slot;
    return 0;           /* bench/link's ablated build: what a load costs without the images */
#endif
    size_t nsec = 0;
    for (size_t m = 0; m < l->nobjs; m++)
        if (slot[m] != OBJRT_NONE && __builtin_add_overflow(nsec, l->objs[m]->shnum, &nsec))
            return objrt_fail(l->ctx, "symbol images: too many sections");
    uint8_t *keep = malloc(nsec ? nsec : 1);
    image_plan *ip = malloc((l->nobjs ? l->nobjs : 1) * sizeof *ip);
    size_t total = ui->nobjs * sizeof(struct objrt_jit_entry);  /* 8-aligned: images too */
    bool big = false;
    for (size_t m = 0, k = 0; keep && ip && m < l->nobjs; m++)
        if (slot[m] != OBJRT_NONE) {
            ip[m] = (image_plan){ image_size(l->objs[m], keep + k), k };
            k += l->objs[m]->shnum;
        }
    if (keep && ip)
        mark_unwind(l, slot, ip, keep);
    for (size_t m = 0; keep && ip && m < l->nobjs; m++)
        if (slot[m] != OBJRT_NONE)
            big |= __builtin_add_overflow(total, ip[m].size, &total);
    struct objrt_jit_entry *e = keep && ip && !big ? block_alloc(l->ctx, total ? total : 1) : NULL;
    if (!e) {
        free(keep);
        free(ip);
        return objrt_fail(l->ctx, "out of memory (symbol images)");
    }
    ui->jit_block = e;
    ui->jit_block_size = total ? total : 1;
    uint8_t *img = (uint8_t *)(e + ui->nobjs);
    for (size_t m = 0; m < l->nobjs; m++) {
        if (slot[m] == OBJRT_NONE)
            continue;
        size_t s = slot[m];
        fill_image(l, l->objs[m], keep + ip[m].keep, img, ip[m].size);
        e[s] = (struct objrt_jit_entry){ NULL, NULL, (const char *)img, ip[m].size };
        ui->objs[s].jit = &e[s];
        img += ip[m].size;
    }
    free(keep);
    free(ip);
    return 0;
}

void objrt_gdbjit_release(objrt_unitinfo *ui)
{
    if (ui->jit_block && ui->unit)
        spare_keep(ui->unit->ctx, ui->jit_block, ui->jit_block_size);
    else
        free(ui->jit_block);
    ui->jit_block = NULL;
}

const uint8_t *objrt_gdbjit_bytes(const struct objrt_jit_entry *e)
{
    return (const uint8_t *)e->symfile_addr;
}

size_t objrt_gdbjit_size(const struct objrt_jit_entry *e)
{
    return (size_t)e->symfile_size;
}

void objrt_gdbjit_register(objrt_unitinfo *ui)
{
    pthread_mutex_lock(&jit_lock);
    for (size_t i = 0; i < ui->nobjs; i++) {
        struct objrt_jit_entry *e = ui->objs[i].jit;
        if (!e)
            continue;
        e->prev = NULL;
        e->next = own_descriptor.first_entry;
        if (e->next)
            e->next->prev = e;
        own_descriptor.first_entry = e;
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
            own_descriptor.first_entry = e->next;
        if (e->next)
            e->next->prev = e->prev;
        notify(e, JIT_UNREGISTER);
    }
    ui->jit_registered = false;
    pthread_mutex_unlock(&jit_lock);
}

OBJRT_FORK_LOCK(jit_lock)

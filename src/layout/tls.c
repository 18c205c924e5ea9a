/*
 * tls.c - thread-local storage: glibc's dynamic linker manages the unit's TLS.
 *
 * The unit's .tdata and .tbss sections form one TLS block, laid out as ld lays out PT_TLS
 * (.tdata first, then .tbss). objrt writes a minimal ELF shared object in memory (memfd):
 * one PT_TLS segment holding the block's initial image, and dynamic relocations asking
 * for exactly the values the unit's TLS GOT entries need. dlopen()ing it makes the block
 * a real TLS module: glibc gives it a module id, allocates and initialises it in every
 * thread (lazily through its own __tls_get_addr, or eagerly in static TLS), frees it when
 * a thread exits, and resolves the relocations:
 *
 *   GOT entry          module relocation(s)          the unit's code
 *   GD  {mod, off}     DTPMOD64 + DTPOFF64           __tls_get_addr (glibc's)
 *   LD  {mod, 0}       DTPMOD64                      __tls_get_addr, then DTPOFF
 *   IE  tp offset      TPOFF64                       %fs / TPIDR_EL0 + slot
 *   DESC {fn, arg}     TLSDESC                       call *desc (glibc's resolvers)
 *   LE (no entry)      TPOFF64 of the block          %fs / TPIDR_EL0 + constant
 *
 * A TPOFF64 against the unit's block makes glibc place it in its static TLS surplus (and
 * initialise it in every live thread); when the surplus is exhausted dlopen fails with
 * "cannot allocate memory in static TLS block" and objrt says how to avoid IE/LE. The same
 * relocations against the *names* of TLS symbols the host defines (libstdc++'s
 * __once_callable) let glibc bind them exactly as it binds any shared library's.
 * objrt copies the resolved bytes into the unit's GOT; the module (memdso.c) stays loaded
 * until the unit is unloaded.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"

#define MAX_TLS_ALIGN ((uint64_t)1 << 16)
/* glibc aborts the process when it cannot allocate a thread's block: refuse absurd sizes */
#define MAX_TLS_SIZE ((uint64_t)1 << 28)

bool objrt_sec_is_tls(const objrt_obj *o, size_t shndx)
{
    return shndx < o->shnum &&
           (o->sh[shndx].sh_flags & (SHF_TLS | SHF_ALLOC)) == (SHF_TLS | SHF_ALLOC);
}

int objrt_tls_layout(objrt_link *l)
{
    objrt_tls *t = &l->tls;
    uint64_t cur = 0, align = 1;
    for (int nobits = 0; nobits < 2; nobits++) {
        for (size_t m = 0; m < l->nobjs; m++) {
            objrt_obj *o = l->objs[m];
            for (size_t i = 1; o->pulled && o->tls_sections && i < o->shnum; i++) {
                const Elf64_Shdr *s = &o->sh[i];
                if (!objrt_sec_is_tls(o, i) || (s->sh_type == SHT_NOBITS) != (bool)nobits)
                    continue;
                uint64_t a = s->sh_addralign ? s->sh_addralign : 1;
                if (a > MAX_TLS_ALIGN)
                    return objrt_fail(l->ctx, "%s: section %s: thread-local alignment %llu is "
                                      "above %llu", o->name, objrt_sec_name(o, i),
                                      (unsigned long long)a, (unsigned long long)MAX_TLS_ALIGN);
                cur = objrt_align_up(cur, a);
                o->sec_off[i] = cur;
                cur += s->sh_size;          /* parse bounds sizes: no overflow (internal.h) */
                if (a > align)
                    align = a;
            }
        }
        if (!nobits)
            t->filesz = cur;
    }
    if (cur > MAX_TLS_SIZE)
        return objrt_fail(l->ctx, "thread-local storage: the unit's block is 0x%llx bytes, "
                          "more than objrt gives a thread (0x%llx)", (unsigned long long)cur,
                          (unsigned long long)MAX_TLS_SIZE);
    t->size = cur;
    t->align = align;
    return 0;
}

/* Where the thread-local symbol `sym` of o lives: in the unit's block (*g = OBJRT_NONE, *off
 * its offset) or in a module of the host (*g = its global index). */
static int tls_target(const objrt_link *l, const objrt_obj *o, size_t sym, uint32_t *g,
                      uint64_t *off, const char **why)
{
    *g = OBJRT_NONE;
    *off = 0;
    if (sym >= o->first_global) {
        uint32_t gi = o->gsym[sym - o->first_global];
        const objrt_gsym *s = &l->gsyms[gi];
        if (s->state != G_DEF && strcmp(s->name, "_TLS_MODULE_BASE_") == 0)
            return 0;                       /* ld's name for the start of the unit's block */
        if (s->state == G_EXTERNAL) {
            if (ELF64_ST_TYPE(o->syms[sym].st_info) != STT_TLS) {
                *why = "the symbol is not thread-local (STT_TLS)";
                return -1;
            }
            *g = gi;
            return 0;
        }
        if (s->state != G_DEF) {
            *why = "the symbol is not thread-local data of the unit";
            return -1;
        }
        o = l->objs[s->obj];
        sym = s->sym;
    }
    uint32_t shndx = objrt_sym_shndx(o, sym);
    if (sym == 0 || !objrt_sec_is_tls(o, shndx)) {
        *why = "the symbol is not in a thread-local section (.tdata, .tbss)";
        return -1;
    }
    *off = o->sec_off[shndx] + o->syms[sym].st_value;
    return 0;
}

static int note_error(objrt_link *l, const objrt_obj *o, size_t target, const Elf64_Rela *r,
                      const objrt_howto *h, const char *why)
{
    return objrt_fail(l->ctx, "%s: section %s+0x%llx: relocation %s against '%s': %s", o->name,
                      objrt_sec_name(o, target), (unsigned long long)r->r_offset, h->name,
                      objrt_sym_name(o, ELF64_R_SYM(r->r_info)), why);
}

/* The key of a TLS GOT entry: the symbol's slot key tagged with the entry kind; local
 * dynamic has one entry per unit, whatever symbol names it. */
static objrt_slotkey entry_key(const objrt_link *l, const objrt_obj *o, const Elf64_Rela *r,
                               const objrt_howto *h)
{
    if (h->tls == TLS_LD)
        return (objrt_slotkey){ (uint64_t)TLS_LD << 59 | (uint64_t)1 << 58, 0 };
    objrt_slotkey k = objrt_sym_key(o, ELF64_R_SYM(r->r_info), 0);
    k.id ^= (uint64_t)h->tls << 59;
    k.addend = l->arch->slot_addend(h, r->r_addend);
    return k;
}

static int add_host(objrt_tls *t, uint32_t g)
{
    for (size_t i = 0; i < t->nhost; i++)
        if (t->host[i] == g)
            return 0;
    uint32_t *v = realloc(t->host, (t->nhost + 1) * sizeof *v);
    if (!v)
        return -1;
    t->host = v;
    v[t->nhost++] = g;
    return 0;
}

static int add_entry(objrt_link *l, objrt_slotkey k, objrt_tls_entry e)
{
    objrt_tls *t = &l->tls;
    if (t->nents == t->capents) {
        size_t cap = t->capents ? t->capents * 2 : 16;
        objrt_tls_entry *v = realloc(t->ents, cap * sizeof *v);
        if (!v)
            return objrt_fail(l->ctx, "out of memory");
        t->ents = v;
        t->capents = cap;
    }
    e.at = t->got_bytes;
    t->got_bytes += e.kind == TLS_IE ? 8 : 16;
    if (objrt_keymap_put(&t->map, k.id, k.addend, (uint32_t)t->nents) ||
        (e.gsym != OBJRT_NONE && add_host(t, e.gsym)))
        return objrt_fail(l->ctx, "out of memory");
    t->ents[t->nents++] = e;
    return 0;
}

int objrt_tls_note(objrt_link *l, const objrt_obj *o, size_t target, const Elf64_Rela *r,
                   const objrt_howto *h)
{
    objrt_tls *t = &l->tls;
    uint32_t g;
    uint64_t off;
    const char *why;
    if (tls_target(l, o, ELF64_R_SYM(r->r_info), &g, &off, &why))
        return note_error(l, o, target, r, h, why);
    bool own = g == OBJRT_NONE;
    t->own_used |= own;
    if (!own && (h->tls == TLS_DTPREL || h->tls == TLS_TPREL || h->tls == TLS_LD))
        return note_error(l, o, target, r, h, "local-exec and local-dynamic references need "
                          "thread-local data the unit defines; this symbol is the host's");
    if (h->tls == TLS_TPREL)
        t->static_needed = t->le_used = true;
    if (h->tls == TLS_DTPREL || h->tls == TLS_TPREL)
        return 0;
    objrt_slotkey k = entry_key(l, o, r, h);
    if (objrt_keymap_get(&t->map, k.id, k.addend) != OBJRT_NONE)
        return 0;
    if (h->tls == TLS_IE && own)
        t->static_needed = true;
    objrt_tls_entry e = { .kind = h->tls, .gsym = g };
    if (own && h->tls != TLS_LD)
        e.off = off + (uint64_t)k.addend;
    else if (!own)
        e.addend = k.addend;
    return add_entry(l, k, e);
}

int objrt_tls_value(const objrt_link *l, const objrt_obj *o, const Elf64_Rela *r,
                    const objrt_howto *h, uint64_t P, uint64_t *v, const char **why)
{
    const objrt_tls *t = &l->tls;
    const objrt_plan *p = &l->plan;
    if (h->tls == TLS_DTPREL || h->tls == TLS_TPREL) {
        uint32_t g;
        uint64_t off;
        if (tls_target(l, o, ELF64_R_SYM(r->r_info), &g, &off, why))
            return -1;
        *v = off + (uint64_t)r->r_addend + (h->tls == TLS_TPREL ? t->block_tpoff : 0);
        return 0;
    }
    objrt_slotkey k = entry_key(l, o, r, h);
    uint32_t i = objrt_keymap_get(&t->map, k.id, k.addend);
    if (i == OBJRT_NONE) {
        *why = "no thread-local GOT entry planned";
        return -1;
    }
    uint64_t GOT = (uintptr_t)l->base + p->got_off;
    uint64_t G = GOT + 8 * (uint64_t)p->got.n + t->ents[i].at;
    uint64_t rest = (uint64_t)(r->r_addend - k.addend);
    switch (h->formula) {
    case F_GOT_PCREL:      *v = G + rest - P; return 0;
    case F_GOT_ABS:        *v = G + rest; return 0;
    case F_GOT_OFFSET:     *v = G - GOT + rest; return 0;
    case F_GOT_PAGE_PCREL: *v = ((G + rest) & ~(uint64_t)0xfff) - (P & ~(uint64_t)0xfff); return 0;
    }
    *why = "unhandled thread-local formula";
    return -1;
}

/* ---- the TLS image: .tdata bytes, with their absolute relocations applied ---- */

static int image_error(objrt_link *l, const objrt_obj *o, size_t target, const Elf64_Rela *r,
                       const char *what)
{
    objrt_site s = { .o = o, .target = target, .r = r, .type = ELF64_R_TYPE(r->r_info),
                     .sym = ELF64_R_SYM(r->r_info), .A = r->r_addend };
    s.h = objrt_howto_of(l->arch, s.type);
    return objrt_site_fail(l, s, what, NULL);     /* the one relocation error format */
}

/* Each thread starts from this image, so only values that are the same in every thread
 * may be written into it: absolute addresses. */
static int relocate_image(objrt_link *l, const objrt_obj *o, size_t rs, uint8_t *img)
{
    size_t target = o->sh[rs].sh_info;
    const Elf64_Shdr *ts = &o->sh[target];
    const Elf64_Rela *r = (const Elf64_Rela *)(o->data + o->sh[rs].sh_offset);
    size_t n = o->sh[rs].sh_size / sizeof *r;
    for (size_t k = 0; k < n; k++) {
        const objrt_howto *h = objrt_howto_of(l->arch, ELF64_R_TYPE(r[k].r_info));
        uint64_t S;
        bool fixed;
        if (!h)
            return image_error(l, o, target, &r[k], "unsupported relocation type");
        if (h->formula == F_NONE)
            continue;
        if (h->formula != F_ABS || h->tls)
            return image_error(l, o, target, &r[k], "only absolute addresses can be "
                               "relocated in thread-local data");
        if (ts->sh_type == SHT_NOBITS || r[k].r_offset > ts->sh_size ||
            h->size > ts->sh_size - r[k].r_offset)
            return image_error(l, o, target, &r[k], "offset lies outside the section");
        if (objrt_sym_addr(l, o, ELF64_R_SYM(r[k].r_info), &S, &fixed))
            return image_error(l, o, target, &r[k], "symbol is in a section that is not loaded");
        uint64_t v = S + (uint64_t)r[k].r_addend;
        if (!objrt_value_fits(h, v))
            return image_error(l, o, target, &r[k], "value does not fit the field");
        l->arch->write(h, img + o->sec_off[target] + r[k].r_offset, v);
    }
    return 0;
}

static int build_image(objrt_link *l, uint8_t *img)
{
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        for (size_t i = 1; o->pulled && i < o->shnum; i++) {
            const Elf64_Shdr *s = &o->sh[i];
            if (objrt_sec_is_tls(o, i) && s->sh_type != SHT_NOBITS)
                memcpy(img + o->sec_off[i], o->data + s->sh_offset, s->sh_size);
        }
    }
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        for (size_t i = 1; o->pulled && i < o->shnum; i++)
            if (o->sh[i].sh_type == SHT_RELA && objrt_sec_is_tls(o, o->sh[i].sh_info) &&
                relocate_image(l, o, i, img))
                return -1;
    }
    return 0;
}

/* ---- the module file ---- */

typedef struct modfile {
    uint8_t *buf;
    size_t size;
    uint64_t phoff, dyn, hash, sym, str, rela, data, tdata;
    size_t nphdr, ndyn, nsym, strsz, nrela;
} modfile;

static size_t count_relas(const objrt_tls *t)
{
    size_t n = t->le_used;
    for (size_t i = 0; i < t->nents; i++)
        n += t->ents[i].kind == TLS_GD ? 2 : 1;
    return n;
}

static void mod_layout(const objrt_link *l, modfile *f)
{
    const objrt_tls *t = &l->tls;
    f->nsym = 1 + t->nhost;
    f->strsz = 1;
    for (size_t i = 0; i < t->nhost; i++)
        f->strsz += strlen(l->gsyms[t->host[i]].name) + 1;
    f->nrela = count_relas(t);
    f->nphdr = t->own_used ? 4 : 3;
    f->ndyn = 6 + (f->nrela ? 3 : 0) + (t->static_needed ? 1 : 0);
    f->phoff = sizeof(Elf64_Ehdr);
    f->dyn = f->phoff + f->nphdr * sizeof(Elf64_Phdr);
    f->hash = f->dyn + f->ndyn * sizeof(Elf64_Dyn);
    f->sym = objrt_align_up(f->hash + (3 + f->nsym) * 4, 8);
    f->str = f->sym + f->nsym * sizeof(Elf64_Sym);
    f->rela = objrt_align_up(f->str + f->strsz, 8);
    f->data = objrt_align_up(f->rela + f->nrela * sizeof(Elf64_Rela), 16);
    f->tdata = objrt_align_up(f->data + t->got_bytes + 8, t->align);
    f->size = f->tdata + t->filesz;
}

static void put_headers(const objrt_link *l, modfile *f)
{
    const objrt_tls *t = &l->tls;
    objrt_memdso_base(f->buf, f->size, l->arch->machine, f->nphdr, f->dyn,
                      f->ndyn * sizeof(Elf64_Dyn));
    if (t->own_used)        /* glibc ignores an empty PT_TLS: give a referenced block a byte */
        objrt_memdso_phdr(f->buf, 2, PT_TLS, PF_R, f->tdata, t->filesz, t->size ? t->size : 1,
                          t->align);
}

static void put_dynamic(const objrt_link *l, modfile *f)
{
    Elf64_Dyn d[16];
    size_t n = 0;
    d[n++] = (Elf64_Dyn){ DT_HASH, { f->hash } };
    d[n++] = (Elf64_Dyn){ DT_STRTAB, { f->str } };
    d[n++] = (Elf64_Dyn){ DT_SYMTAB, { f->sym } };
    d[n++] = (Elf64_Dyn){ DT_STRSZ, { f->strsz } };
    d[n++] = (Elf64_Dyn){ DT_SYMENT, { sizeof(Elf64_Sym) } };
    if (f->nrela) {
        d[n++] = (Elf64_Dyn){ DT_RELA, { f->rela } };
        d[n++] = (Elf64_Dyn){ DT_RELASZ, { f->nrela * sizeof(Elf64_Rela) } };
        d[n++] = (Elf64_Dyn){ DT_RELAENT, { sizeof(Elf64_Rela) } };
    }
    if (l->tls.static_needed)           /* what ld sets for IE in a shared object */
        d[n++] = (Elf64_Dyn){ DT_FLAGS, { DF_STATIC_TLS } };
    d[n++] = (Elf64_Dyn){ DT_NULL, { 0 } };
    memcpy(f->buf + f->dyn, d, n * sizeof *d);
}

/* Symbols: null, then one undefined STT_TLS name per host TLS symbol (weak when only
 * weakly referenced, as the unit's reference is). One hash bucket, empty: nothing is
 * looked up in this module. */
static void put_symbols(const objrt_link *l, modfile *f)
{
    const objrt_tls *t = &l->tls;
    uint32_t hash[3] = { 1, (uint32_t)f->nsym, 0 };     /* nbucket, nchain, bucket[0] */
    memcpy(f->buf + f->hash, hash, sizeof hash);
    size_t name = 1;
    for (size_t i = 0; i < t->nhost; i++) {
        const objrt_gsym *g = &l->gsyms[t->host[i]];
        Elf64_Sym s = { .st_name = (Elf64_Word)name, .st_shndx = SHN_UNDEF,
                        .st_info = ELF64_ST_INFO(g->strong_ref ? STB_GLOBAL : STB_WEAK, STT_TLS) };
        memcpy(f->buf + f->sym + (i + 1) * sizeof s, &s, sizeof s);
        size_t len = strlen(g->name) + 1;
        memcpy(f->buf + f->str + name, g->name, len);
        name += len;
    }
}

static uint32_t host_index(const objrt_tls *t, uint32_t g)
{
    for (size_t i = 0; i < t->nhost; i++)
        if (t->host[i] == g)
            return (uint32_t)i + 1;
    return 0;
}

static void put_relas(const objrt_link *l, modfile *f)
{
    const objrt_tls *t = &l->tls;
    const objrt_arch *a = l->arch;
    size_t n = 0;
#define RELA(at, type, sym, add)                                                           \
    do {                                                                                   \
        Elf64_Rela r_ = { f->data + (at), ELF64_R_INFO((sym), (type)), (int64_t)(add) };   \
        memcpy(f->buf + f->rela + n++ * sizeof r_, &r_, sizeof r_);                        \
    } while (0)
    for (size_t i = 0; i < t->nents; i++) {
        const objrt_tls_entry *e = &t->ents[i];
        uint32_t sym = e->gsym == OBJRT_NONE ? 0 : host_index(t, e->gsym);
        int64_t add = e->gsym == OBJRT_NONE ? (int64_t)e->off : e->addend;
        switch (e->kind) {
        case TLS_GD:   RELA(e->at, a->dyn_dtpmod, sym, 0); RELA(e->at + 8, a->dyn_dtpoff, sym, add); break;
        case TLS_LD:   RELA(e->at, a->dyn_dtpmod, 0, 0); break;
        case TLS_IE:   RELA(e->at, a->dyn_tpoff, sym, add); break;
        case TLS_DESC: RELA(e->at, a->dyn_tlsdesc, sym, add); break;
        }
    }
    if (t->le_used)                     /* the block's own offset from the thread pointer */
        RELA(t->got_bytes, a->dyn_tpoff, 0, 0);
#undef RELA
}

/* glibc's "undefined symbol: NAME" for a host TLS name, said as objrt says it for any
 * other symbol: the object that references it, then glibc's words. */
static int undefined_host_tls(objrt_link *l, const char *e)
{
    const char *p = strstr(e, "undefined symbol: ");
    if (!p)
        return 0;
    p += strlen("undefined symbol: ");
    for (size_t i = 0; i < l->tls.nhost; i++) {
        const objrt_gsym *g = &l->gsyms[l->tls.host[i]];
        size_t n = strlen(g->name);
        if (strncmp(p, g->name, n) == 0 && (p[n] == '\0' || p[n] == ' ' || p[n] == ','))
            return objrt_fail(l->ctx, "%s: undefined symbol '%s' (thread-local; the dynamic "
                              "linker: %s)", l->objs[g->obj]->name, g->name, e);
    }
    return 0;
}

/* glibc places a dlopened module in static TLS (which initial- and local-exec references
 * need) only when its block's alignment is at most the static TLS block's: the largest of
 * the TCB's (64 on x86_64, 16 on AArch64) and those of the modules loaded at startup. This
 * variable, one cache line in every thread, makes that 64 on AArch64 too whenever libobjrt
 * is loaded at startup (the CLI; a host linked with it): an -O2 unit whose .tbss gcc aligns
 * to 32 or 64 then loads on AArch64 as it does on x86_64. It is never referenced, so its
 * model is global-dynamic: a libobjrt.so dlopened later (Python's ctypes) takes it as
 * dynamic TLS and asks nothing of static TLS (initial-exec would make that dlopen itself
 * fail on AArch64). */
#define STATIC_TLS_ALIGN 64
__attribute__((used, aligned(STATIC_TLS_ALIGN))) static __thread char static_tls_align[1];

static int open_module(objrt_link *l, const modfile *f)
{
    objrt_tls *t = &l->tls;
    const char *e;
    if (objrt_memdso_open(f->buf, f->size, RTLD_NOW | RTLD_LOCAL, &t->handle, &t->fd, &e) == 0)
        return 0;
    if (undefined_host_tls(l, e))
        return -1;
    char why[160] = "";
    if (strstr(e, "static TLS") && l->tls.align > STATIC_TLS_ALIGN)
        snprintf(why, sizeof why, " (the block is %llu-byte aligned; static TLS guarantees "
                 "%d)", (unsigned long long)l->tls.align, STATIC_TLS_ALIGN);
    return objrt_fail(l->ctx, "thread-local storage: glibc refused the unit's TLS module: %s%s%s",
                      e, why, strstr(e, "static TLS")
                      ? "; initial- and local-exec TLS references need glibc's static TLS "
                        "surplus (or a library the host linked at startup): compile the unit "
                        "with -fPIC -ftls-model=global-dynamic, or raise the tunable "
                        "glibc.rtld.optional_static_tls"
                      : "");
}

int objrt_tls_load(objrt_link *l)
{
    objrt_tls *t = &l->tls;
    if (!t->nents && !t->le_used)
        return 0;                       /* no code reaches thread-local data */
    modfile f = { 0 };
    mod_layout(l, &f);
    if (!(f.buf = calloc(1, f.size)))
        return objrt_fail(l->ctx, "out of memory");
    int rc = build_image(l, f.buf + f.tdata);
    if (rc == 0) {
        put_headers(l, &f);
        put_dynamic(l, &f);
        put_symbols(l, &f);
        put_relas(l, &f);
        rc = open_module(l, &f);
    }
    free(f.buf);
    if (rc)
        return -1;
    struct link_map *lm;
    if (dlinfo(t->handle, RTLD_DI_LINKMAP, &lm) != 0)
        return objrt_fail(l->ctx, "thread-local storage: dlinfo: %s", dlerror());
    const uint8_t *data = (const uint8_t *)lm->l_addr + f.data;
    memcpy(objrt_write_at(l, (uintptr_t)l->base + l->plan.got_off + 8 * l->plan.got.n), data,
           t->got_bytes);
    memcpy(&t->block_tpoff, data + t->got_bytes, 8);
    return 0;
}

void objrt_tls_release(objrt_tls *t)
{
    objrt_memdso_close(t->handle, t->fd);
    free(t->ents);
    free(t->host);
    objrt_keymap_free(&t->map);
    *t = (objrt_tls){ 0 };
}

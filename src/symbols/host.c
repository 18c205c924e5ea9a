/*
 * host.c - what the host process's libraries say about a name the unit leaves undefined:
 * its address, in the documented order of places outside the unit, and whether that
 * address starts a function. Both answers come from glibc (dlsym, dladdr1) and are kept
 * per context for as long as no library has been loaded or unloaded since they were given
 * (glibc's counts, dl_iterate_phdr), because asking them again at every load costs more
 * than a whole link of a small unit does.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"
#include "symbols/lookup.h"
#include "base/provider.h"

/* ---- are the context's answers still the process's? ---- */

static int library_counts(struct dl_phdr_info *info, size_t size, void *data)
{
    unsigned long long *c = data;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        return -1;                          /* no counts: never trust the answers kept */
    c[0] = info->dlpi_adds;
    c[1] = info->dlpi_subs;
    return 1;                               /* the first object carries them: stop */
}

static void forget_names(objrt_ctx *ctx)
{
    for (size_t i = 0; i < ctx->host_names.n; i++)
        free((char *)ctx->host_names.ents[i].key.s);    /* copies: the units' names go */
    objrt_strmap_free(&ctx->host_names);
    free(ctx->host_addr);
    ctx->host_addr = NULL;
    ctx->nhost_addr = ctx->caphost_addr = 0;
}

void objrt_host_forget(objrt_ctx *ctx)
{
    objrt_keymap_free(&ctx->host_kind);
    forget_names(ctx);
}

/* True when the answers kept may be used: no library came or went since they were given.
 * Otherwise they are dropped (an address may now belong to another library, a name to
 * another definition) and false is returned only when glibc gives no counts at all. */
static bool answers_valid(objrt_ctx *ctx)
{
    unsigned long long c[2];
    if (dl_iterate_phdr(library_counts, c) != 1) {
        objrt_host_forget(ctx);
        return false;
    }
    if (c[0] != ctx->host_adds || c[1] != ctx->host_subs) {
        objrt_host_forget(ctx);
        ctx->host_adds = c[0];
        ctx->host_subs = c[1];
    }
    return true;
}

/* ---- is a host address a function? ---- */

static bool is_function_type(unsigned char st_info)
{
    int t = ELF64_ST_TYPE(st_info);
    return t == STT_FUNC || t == STT_GNU_IFUNC;
}

/* dladdr1's answer: the symbol starting at addr, whatever its name. It scans the whole
 * symbol table of the library (~69k instructions for libc). */
static bool dladdr_is_code(uint64_t addr)
{
    Dl_info info;
    const ElfW(Sym) *es = NULL;
    void *p = (void *)(uintptr_t)addr;
    if (!addr || !dladdr1(p, &info, (void **)&es, RTLD_DL_SYMENT) || !es || info.dli_saddr != p)
        return false;
    return is_function_type(es->st_info);
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
/* A pointer from the library's dynamic section: glibc rewrites most of them to absolute
 * addresses when it loads the library, but not every library's (a read-only dynamic
 * section, the vDSO's), so whichever reading lies inside the library's mapping is it. */
static const void *dyn_ptr(ElfW(Addr) p, ElfW(Addr) base, uintptr_t lo, uintptr_t hi)
{
    if (p >= lo && p < hi)
        return (const void *)p;
    if (p + base >= lo && p + base < hi)
        return (const void *)(p + base);
    return NULL;
}

typedef struct dyn_tables {
    const uint32_t *gnu_hash;
    const ElfW(Sym) *symtab;
    const char *strtab;
    size_t strsz;
} dyn_tables;

static bool find_tables(const struct dl_find_object *fo, dyn_tables *t)
{
    const struct link_map *lm = fo->dlfo_link_map;
    uintptr_t lo = (uintptr_t)fo->dlfo_map_start, hi = (uintptr_t)fo->dlfo_map_end;
    memset(t, 0, sizeof *t);
    for (const ElfW(Dyn) *d = lm->l_ld; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_GNU_HASH)
            t->gnu_hash = dyn_ptr(d->d_un.d_ptr, lm->l_addr, lo, hi);
        else if (d->d_tag == DT_SYMTAB)
            t->symtab = dyn_ptr(d->d_un.d_ptr, lm->l_addr, lo, hi);
        else if (d->d_tag == DT_STRTAB)
            t->strtab = dyn_ptr(d->d_un.d_ptr, lm->l_addr, lo, hi);
        else if (d->d_tag == DT_STRSZ)
            t->strsz = d->d_un.d_val;
    }
    return t->gnu_hash && t->symtab && t->strtab && t->gnu_hash[0] && t->gnu_hash[2];
}

/* The ELF GNU hash of a name (the dynamic linker's, not objrt's keyed one). */
static uint32_t gnu_hash(const char *s, size_t len)
{
    uint32_t h = 5381;
    for (size_t i = 0; i < len; i++)
        h = h * 33 + (unsigned char)s[i];
    return h;
}

/* The symbol table entry of `name` that starts at addr, in the library that holds addr,
 * found through its GNU hash table: a few hundred instructions where dladdr1 scans every
 * symbol. NULL when there is none: no such table, or no definition of that name there
 * (an IFUNC, whose resolved target dlsym returned, is one). */
static const ElfW(Sym) *sym_at(const char *name, size_t len, uint64_t addr)
{
    struct dl_find_object fo;
    dyn_tables t;
    if (_dl_find_object((void *)(uintptr_t)addr, &fo) != 0 || !fo.dlfo_link_map ||
        !find_tables(&fo, &t))
        return NULL;
    const uint32_t nbuckets = t.gnu_hash[0], symoffset = t.gnu_hash[1];
    const uint32_t bloom_words = t.gnu_hash[2], bloom_shift = t.gnu_hash[3];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(t.gnu_hash + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_words);
    const uint32_t *chain = buckets + nbuckets;
    const unsigned bits = sizeof(ElfW(Addr)) * 8;
    uint32_t h = gnu_hash(name, len);
    ElfW(Addr) word = bloom[(h / bits) % bloom_words];
    ElfW(Addr) mask = (ElfW(Addr))1 << (h % bits) | (ElfW(Addr))1 << ((h >> bloom_shift) % bits);
    if ((word & mask) != mask)
        return NULL;
    uint32_t i = buckets[h % nbuckets];
    if (i < symoffset)
        return NULL;
    for (;; i++) {
        uint32_t ch = chain[i - symoffset];
        const ElfW(Sym) *s = &t.symtab[i];
        if ((ch | 1) == (h | 1) && s->st_shndx != SHN_UNDEF &&
            fo.dlfo_link_map->l_addr + s->st_value == addr &&
            (!t.strsz || (s->st_name < t.strsz && len < t.strsz - s->st_name)) &&
            !memcmp(t.strtab + s->st_name, name, len) && !t.strtab[s->st_name + len])
            return s;
        if (ch & 1)
            return NULL;
    }
}

int objrt_host_kind_by_name(const char *name, size_t len, uint64_t addr)
{
    const ElfW(Sym) *s = addr ? sym_at(name, len, addr) : NULL;
    return s ? is_function_type(s->st_info) : -1;
}
#else
int objrt_host_kind_by_name(const char *name, size_t len, uint64_t addr)
{
    (void)name, (void)len, (void)addr;
    return -1;                              /* no _dl_find_object: dladdr1 answers */
}
#endif

bool objrt_host_is_code(objrt_ctx *ctx, const objrt_strkey *name, uint64_t addr)
{
    bool keep = answers_valid(ctx);
    uint32_t kind = keep ? objrt_keymap_get(&ctx->host_kind, addr, 0) : OBJRT_NONE;
    if (kind != OBJRT_NONE)
        return kind;
    int k = objrt_host_kind_by_name(name->s, name->len, addr);
    bool code = k >= 0 ? k : dladdr_is_code(addr);
    if (keep)
        (void)objrt_keymap_put(&ctx->host_kind, addr, 0, code);    /* no memory: ask again */
    return code;
}

/* ---- names outside the unit ---- */

/* Room for one more kept address; false when out of memory (the answer is then not kept,
 * and no error is recorded: the lookup itself succeeded). */
static bool host_addr_room(objrt_ctx *ctx)
{
    if (ctx->nhost_addr < ctx->caphost_addr)
        return true;
    size_t cap = ctx->caphost_addr ? 2 * ctx->caphost_addr : 64;
    void **v = cap < SIZE_MAX / sizeof *v ? realloc(ctx->host_addr, cap * sizeof *v) : NULL;
    if (!v)
        return false;
    ctx->host_addr = v;
    ctx->caphost_addr = cap;
    return true;
}

/* dlsym(RTLD_DEFAULT, name), kept per context when it found something (until a library
 * comes or goes: answers_valid). A name not found is asked again every time: promoting a
 * loaded library to RTLD_GLOBAL (dlopen with RTLD_NOLOAD) moves no count and may define
 * it, while what was found stays first in the global scope. */
static void *global_scope_lookup(objrt_ctx *ctx, const objrt_strkey *key)
{
    bool keep = answers_valid(ctx);
    uint32_t i = keep ? objrt_strmap_find(&ctx->host_names, key) : OBJRT_NONE;
    if (i != OBJRT_NONE)
        return ctx->host_addr[i];
    void *p = dlsym(RTLD_DEFAULT, key->s);
    char *copy = p && keep && host_addr_room(ctx) ? malloc(key->len + 1) : NULL;
    if (!copy)
        return p;
    memcpy(copy, key->s, key->len + 1);
    objrt_strkey owned = { copy, key->len, key->hash };
    if (objrt_strmap_add_new(&ctx->host_names, &owned, (uint32_t)ctx->nhost_addr)) {
        free(copy);
        return p;
    }
    ctx->host_addr[ctx->nhost_addr++] = p;
    return p;
}

static void *libgcc_s;
static void open_libgcc_s(void) { libgcc_s = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL); }

void *objrt_libgcc_s(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, open_libgcc_s);
    return libgcc_s;
}

/* What objrt_sym() sees: loaded units of ctx (newest first), then objrt_define()d names. */
static void *defined_lookup(objrt_ctx *ctx, const objrt_strkey *name)
{
    uint32_t i = objrt_strmap_find(&ctx->defined, name);
    return i == OBJRT_NONE ? NULL : ctx->defined_addr[i];
}

void *objrt_sym_loaded(objrt_ctx *ctx, const objrt_strkey *name)
{
    void *p = objrt_units_lookup(ctx, name);
    return p ? p : defined_lookup(ctx, name);
}

/* The symbols the providers registered with the loader define (base/provider.h). */
static void *provided_lookup(const char *name)
{
    const objrt_provider *pr;
    void *p;
    for (size_t i = 0; (pr = objrt_provider_at(i)); i++)
        if (pr->lookup && (p = pr->lookup(name)))
            return p;
    return NULL;
}

/* The resolution order outside the unit (called with ctx->lock held). The compiler's
 * support library comes last: `cc` links it implicitly, and the host may not have loaded
 * it (AArch64 long double arithmetic calls __addtf3 and friends). */
void *objrt_lookup_external(objrt_ctx *ctx, const objrt_strkey *key)
{
    const char *name = key->s;
    void *p;
    if ((p = objrt_sym_loaded(ctx, key)) || (p = objrt_builtin_lookup(name)) ||
        (p = provided_lookup(name)) || (p = global_scope_lookup(ctx, key)))
        return p;
    for (size_t i = 0; i < ctx->nlibs; i++)
        if ((p = dlsym(ctx->libs[i], name)))
            return p;
    if (ctx->resolver && (p = ctx->resolver(ctx->resolver_data, name)))
        return p;
    return objrt_libgcc_s() ? dlsym(objrt_libgcc_s(), name) : NULL;
}

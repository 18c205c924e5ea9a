/*
 * t_hostkind.c - what a context keeps about the host's libraries (src/symbols/host.c): the
 * answer to "is this host address a function?" (objrt_host_is_code, which decides whether
 * a unit may take a host symbol's address through a stub of its own) and the addresses
 * dlsym(RTLD_DEFAULT) found (objrt_lookup_external).
 *
 * usage: t_hostkind LIBRARY
 * LIBRARY is a shared library the test has not loaded (dlopen'ed and dlclose'd here).
 * Cases:
 *   hostkind-agrees             puts, printf and malloc (functions), environ and stdin
 *                               (data), a heap pointer and a stack address (no symbol):
 *                               the same answer as dladdr1 itself, asked twice (the
 *                               second from the context's map, which holds them)
 *   hostkind-by-name-agrees     every symbol libc.so.6 and libm.so.6 define (their GNU
 *                               hash tables walked here): the answer found by name
 *                               (objrt_host_kind_by_name) is dladdr1's, and it is found
 *                               for nearly all of them (dladdr1 is not what answered)
 *   hostkind-by-name-refuses    no answer by name for puts's name one byte past puts, for
 *                               printf's name at puts, or for a name nothing defines
 *   hostkind-kept               an answer planted in the map is what the next question
 *                               gets while no library comes or goes (the map is used)
 *   hostnames-kept              an address planted for "puts" among dlsym's kept finds is
 *                               what the next lookup of puts gets; a name nothing defines
 *                               is not kept
 *   hostkind-dlopen-forgets     after dlopen(LIBRARY) both planted answers are gone: the
 *                               true ones again
 *   hostkind-dlclose-forgets    answers planted after that are used again, and are gone
 *                               after dlclose(LIBRARY)
 * Needs the context's layout (white box: base/context.h, symbols/lookup.h).
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include "symbols/lookup.h"
#include "report.h"

extern char **environ;

static bool dladdr_is_code(const void *p)
{
    Dl_info info;
    const ElfW(Sym) *es = NULL;
    if (!dladdr1(p, &info, (void **)&es, RTLD_DL_SYMENT) || !es || info.dli_saddr != p)
        return false;
    int t = ELF64_ST_TYPE(es->st_info);
    return t == STT_FUNC || t == STT_GNU_IFUNC;
}

static bool is_code(objrt_ctx *ctx, const char *name, const void *p)
{
    objrt_strkey k = objrt_strkey_of(name);
    return objrt_host_is_code(ctx, &k, (uintptr_t)p);
}

/* Plants the wrong answers for puts (data; its address elsewhere), then asks: 1 when both
 * planted ones came back, 0 when neither did, -1 when they could not be planted. */
static int planted_come_back(objrt_ctx *ctx, void *fake)
{
    objrt_strkey k = objrt_strkey_of("puts");
    uint32_t i = objrt_strmap_find(&ctx->host_names, &k);
    if (objrt_keymap_put(&ctx->host_kind, (uintptr_t)&puts, 0, 0) || i == OBJRT_NONE)
        return -1;
    ctx->host_addr[i] = fake;
    bool kind = !is_code(ctx, "puts", (void *)&puts);
    bool addr = objrt_lookup_external(ctx, &k) == fake;
    return kind && addr ? 1 : !kind && !addr ? 0 : -2;
}

/* ---- every symbol a library defines, from its GNU hash table ---- */

typedef struct walk {
    const char *soname;
    size_t symbols, answered, wrong;
    char why[200];
} walk;

static const void *dyn_ptr(ElfW(Addr) p, ElfW(Addr) base, const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {    /* absolute, or relative: as host.c */
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        ElfW(Addr) lo = base + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && p >= lo && p < hi)
            return (const void *)p;
        if (ph->p_type == PT_LOAD && p + base >= lo && p + base < hi)
            return (const void *)(p + base);
    }
    return NULL;
}

static void check_symbol(walk *w, const char *name, uint64_t addr)
{
    w->symbols++;
    int fast = objrt_host_kind_by_name(name, strlen(name), addr);
    bool want = dladdr_is_code((void *)(uintptr_t)addr);
    if (fast >= 0)
        w->answered++;
    if (fast >= 0 && fast != want && !w->wrong++)
        snprintf(w->why, sizeof w->why, "%s in %s: %d by name, dladdr1 says %d", name,
                 w->soname, fast, want);
}

static int walk_library(struct dl_phdr_info *info, size_t size, void *data)
{
    walk *w = data;
    (void)size;
    if (!strstr(info->dlpi_name, w->soname))
        return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    const uint32_t *gh = NULL;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_GNU_HASH)
            gh = dyn_ptr(dyn->d_un.d_ptr, info->dlpi_addr, info);
        else if (dyn->d_tag == DT_SYMTAB)
            symtab = dyn_ptr(dyn->d_un.d_ptr, info->dlpi_addr, info);
        else if (dyn->d_tag == DT_STRTAB)
            strtab = dyn_ptr(dyn->d_un.d_ptr, info->dlpi_addr, info);
    }
    if (!gh || !symtab || !strtab)
        return 1;
    uint32_t nbuckets = gh[0], symoffset = gh[1];
    const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(gh + 4) + gh[2]);
    const uint32_t *chain = buckets + nbuckets;
    for (uint32_t b = 0; b < nbuckets; b++) {
        if (buckets[b] < symoffset)
            continue;
        for (uint32_t i = buckets[b];; i++) {
            const ElfW(Sym) *s = &symtab[i];
            int t = ELF64_ST_TYPE(s->st_info);
            if (s->st_shndx != SHN_UNDEF && s->st_value &&
                (t == STT_FUNC || t == STT_GNU_IFUNC || t == STT_OBJECT))
                check_symbol(w, strtab + s->st_name, info->dlpi_addr + s->st_value);
            if (chain[i - symoffset] & 1)
                break;
        }
    }
    return 1;
}

static void by_name_agrees(void)
{
    walk libs[] = { { .soname = "libc.so.6" }, { .soname = "libm.so.6" } };
    size_t symbols = 0, answered = 0, wrong = 0;
    const char *why = "";
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        dl_iterate_phdr(walk_library, &libs[i]);
        symbols += libs[i].symbols;
        answered += libs[i].answered;
        wrong += libs[i].wrong;
        if (libs[i].wrong && !*why)
            why = libs[i].why;
    }
    t_report("hostkind-by-name-agrees", symbols >= 1000 && !wrong && answered * 10 >= symbols * 9,
             "%zu symbols, %zu answered by name, %zu wrong%s%s", symbols, answered, wrong,
             *why ? ": " : "", why);
}

static void by_name_refuses(void)
{
    uint64_t p = (uintptr_t)&puts;
    int past = objrt_host_kind_by_name("puts", 4, p + 1);
    int other = objrt_host_kind_by_name("printf", 6, p);
    int none = objrt_host_kind_by_name("t_hostkind_nothing", 18, p);
    int right = objrt_host_kind_by_name("puts", 4, p);
    t_report("hostkind-by-name-refuses", past < 0 && other < 0 && none < 0 && right == 1,
             "puts one byte past: %d, printf at puts: %d, an undefined name: %d (all want -1); "
             "puts at puts: %d (want 1)", past, other, none, right);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
        return 2;
    }
    if (t_listing()) {
        const char *names[] = { "hostkind-agrees", "hostkind-by-name-agrees",
                                "hostkind-by-name-refuses", "hostkind-kept", "hostnames-kept",
                                "hostkind-dlopen-forgets", "hostkind-dlclose-forgets" };
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            printf("EXPECT %s\n", names[i]);
        return 0;
    }
    objrt_ctx *ctx = objrt_new();
    if (!ctx) {
        fprintf(stderr, "objrt_new failed\n");
        return 2;
    }
    int local = 0;
    void *heap = malloc(16);
    const void *probes[] = { (void *)&puts, (void *)&printf, (void *)&malloc, (void *)&environ,
                             (void *)&stdin, heap, &local };
    const char *names[] = { "puts", "printf", "malloc", "environ", "stdin", "t_heap", "t_local" };
    int wrong = 0, asked = 0;
    char why[256] = "";
    pthread_mutex_lock(&ctx->lock);
    (void)objrt_libgcc_s();     /* a name found nowhere else opens it: a library load */
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++, asked++) {
            bool want = dladdr_is_code(probes[i]);
            bool got = is_code(ctx, names[i], probes[i]);
            if (got != want && !wrong++)
                snprintf(why, sizeof why, "probe %zu (round %d): %d, dladdr1 says %d", i,
                         round, got, want);
        }
    size_t kept = ctx->host_kind.n;
    t_report("hostkind-agrees", !wrong && kept == sizeof probes / sizeof probes[0] &&
             dladdr_is_code((void *)&puts) && !dladdr_is_code((void *)&environ),
             "%s%s; %zu answers kept for %zu addresses (%d asked)", why, wrong ? "" : "none wrong",
             kept, sizeof probes / sizeof probes[0], asked);
    by_name_agrees();
    by_name_refuses();

    objrt_strkey puts_key = objrt_strkey_of("puts"), none_key = objrt_strkey_of("t_hostkind_nothing");
    bool found = objrt_lookup_external(ctx, &puts_key) == (void *)&puts;
    size_t names_before = ctx->host_names.n;
    bool none_found = objrt_lookup_external(ctx, &none_key) != NULL;
    int planted = planted_come_back(ctx, &local);
    t_report("hostkind-kept", planted == 1, "the planted answers %s",
             planted == -1 ? "could not be planted" : "were not used: the maps are not read");
    t_report("hostnames-kept", found && !none_found && ctx->host_names.n == names_before &&
             planted == 1, "puts %sfound; an undefined name %s; %zu names kept, %zu before it",
             found ? "" : "not ", none_found ? "found" : "not found", ctx->host_names.n,
             names_before);

    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);     /* glibc's adds count moves */
    bool after_open = lib && is_code(ctx, "puts", (void *)&puts) &&
                      objrt_lookup_external(ctx, &puts_key) == (void *)&puts;
    t_report("hostkind-dlopen-forgets", lib && after_open, "%s",
             !lib ? dlerror() : "a planted answer survived dlopen");

    int again = lib ? planted_come_back(ctx, &local) : -1;  /* kept again until ... */
    if (lib)
        dlclose(lib);                                       /* ... the subs count moves */
    bool after_close = lib && is_code(ctx, "puts", (void *)&puts) &&
                       objrt_lookup_external(ctx, &puts_key) == (void *)&puts;
    t_report("hostkind-dlclose-forgets", again == 1 && after_close,
             "%s", !lib ? "no library" : again != 1 ? "the answers planted after dlopen were "
             "not used" : "a planted answer survived dlclose");
    pthread_mutex_unlock(&ctx->lock);
    free(heap);
    objrt_free(ctx);
    return t_failures ? 1 : 0;
}

/*
 * t_hostkind.c - the per-context answers to "is this host address a function?"
 * (objrt_host_is_code, src/loader/symbols.c), which decide whether a unit may take a host
 * symbol's address through a stub of its own.
 *
 * usage: t_hostkind LIBRARY
 * LIBRARY is a shared library the test has not loaded (dlopen'ed and dlclose'd here).
 * Cases:
 *   hostkind-agrees             puts, printf and malloc (functions), environ and stdin
 *                               (data), a heap pointer and a stack address (no symbol):
 *                               the same answer as dladdr1 itself, asked twice (the
 *                               second from the context's map, which holds them)
 *   hostkind-kept               an answer planted in the map is what the next question
 *                               gets while no library comes or goes (the map is used)
 *   hostkind-dlopen-forgets     after dlopen(LIBRARY) the planted answer is gone: the true
 *                               one again
 *   hostkind-dlclose-forgets    an answer planted after that is used again, and is gone
 *                               after dlclose(LIBRARY)
 * Needs the context's layout (white box: loader/internal.h).
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include "loader/internal.h"
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

/* Plants the wrong answer for puts, then asks: 1 when the planted one came back. */
static int planted_comes_back(objrt_ctx *ctx)
{
    uint64_t a = (uintptr_t)&puts;
    if (objrt_keymap_put(&ctx->host_kind, a, 0, 0))
        return -1;
    return !objrt_host_is_code(ctx, a);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
        return 2;
    }
    if (t_listing()) {
        const char *names[] = { "hostkind-agrees", "hostkind-kept", "hostkind-dlopen-forgets",
                                "hostkind-dlclose-forgets" };
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
    int wrong = 0, asked = 0;
    char why[256] = "";
    pthread_mutex_lock(&ctx->lock);
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++, asked++) {
            bool want = dladdr_is_code(probes[i]);
            bool got = objrt_host_is_code(ctx, (uintptr_t)probes[i]);
            if (got != want && !wrong++)
                snprintf(why, sizeof why, "probe %zu (round %d): %d, dladdr1 says %d", i,
                         round, got, want);
        }
    size_t kept = ctx->host_kind.n;
    t_report("hostkind-agrees", !wrong && kept == sizeof probes / sizeof probes[0] &&
             dladdr_is_code((void *)&puts) && !dladdr_is_code((void *)&environ),
             "%s%s; %zu answers kept for %zu addresses (%d asked)", why, wrong ? "" : "none wrong",
             kept, sizeof probes / sizeof probes[0], asked);

    int planted = planted_comes_back(ctx);
    t_report("hostkind-kept", planted == 1, "the planted answer %s",
             planted < 0 ? "could not be planted" : "was not used: the map is not read");

    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);     /* glibc's adds count moves */
    bool after_open = lib && objrt_host_is_code(ctx, (uintptr_t)&puts);
    t_report("hostkind-dlopen-forgets", lib && after_open, "%s",
             !lib ? dlerror() : "the planted answer survived dlopen");

    int again = lib ? planted_comes_back(ctx) : -1;    /* kept again until ... */
    if (lib)
        dlclose(lib);                                   /* ... the subs count moves */
    bool after_close = lib && objrt_host_is_code(ctx, (uintptr_t)&puts);
    t_report("hostkind-dlclose-forgets", again == 1 && after_close,
             "%s", !lib ? "no library" : again != 1 ? "the answer planted after dlopen was "
             "not used" : "the planted answer survived dlclose");
    pthread_mutex_unlock(&ctx->lock);
    free(heap);
    objrt_free(ctx);
    return t_failures ? 1 : 0;
}

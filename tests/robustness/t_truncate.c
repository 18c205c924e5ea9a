/*
 * t_truncate.c - an object cut short anywhere must be refused cleanly.
 *
 * usage: t_truncate OBJECT.o TMPDIR [LABEL]   (LABEL goes into the check names)
 * Cuts the object every 64 bytes and at every header/section boundary, loads each prefix
 * with objrt_load_memory (and a few as files with objrt_load), and requires: NULL, an
 * error naming the input, no crash, no mapping or heap block left behind. Controls: the
 * whole object loads; the leftover-mapping check notices a mapping made on purpose.
 */
#include <fcntl.h>
#include "t_common.h"

static unsigned char *g_img;
static size_t g_size;
static const char *g_tmp;

struct cut { size_t at; char name[64]; int as_file; };

/* One failing load of the prefix described by `arg` (a struct cut). */
static int load_prefix(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    struct cut *c = arg;
    objrt_unit *u;
    if (c->as_file) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", g_tmp, c->name);
        t_write_file(path, g_img, c->at);
        const char *paths[1] = { path };
        u = objrt_load(ctx, paths, 1);
    } else {
        u = t_load_mem(ctx, c->name, g_img, c->at);
    }
    char what[64];
    snprintf(what, sizeof what, "truncated input of %zu bytes loaded", c->at);
    return t_refused(ctx, u, what, c->name, NULL, why, whylen);
}

static int run_cut(void *arg, char *why, size_t whylen)
{
    return t_fails_cleanly_new(load_prefix, arg, ((struct cut *)arg)->name, why, whylen);
}

/* Control: the whole object loads and leaves no mapping after unload. */
static int run_whole(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_input in = { "whole.o", g_img, g_size };
    return t_mem_call(&in, 1, NULL, 0, why, whylen);
}

/* Negative control of the leftover check: a "load" that leaves a mapping behind. */
static int leaky_load(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)ctx; (void)arg; (void)why; (void)whylen;
    mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return 1;
}
static int run_leaky(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    int caught = !t_fails_cleanly(ctx, leaky_load, NULL, why, whylen);
    if (!caught) snprintf(why, whylen, "leftover check did not notice a leaked mapping");
    return caught;
}

/* Negative control of the heap-leak check (asan config only): a "load" that leaks. */
static void *volatile g_sink;
static int heap_leaky_load(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)ctx; (void)arg; (void)why; (void)whylen;
    g_sink = malloc(64);
    g_sink = NULL;
    return 1;
}
static int run_heap_leaky(void *arg, char *why, size_t whylen)
{
    (void)arg;
    /* This child's leak report is expected: keep it out of the log the suite scans. */
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);
    objrt_ctx *ctx = objrt_new();
    int caught = !t_fails_cleanly(ctx, heap_leaky_load, NULL, why, whylen);
    if (!caught) snprintf(why, whylen, "LeakSanitizer check did not notice a leaked block");
    return caught;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) { fprintf(stderr, "usage: %s OBJECT TMPDIR [LABEL]\n", argv[0]); return 2; }
    char p[64];
    snprintf(p, sizeof p, "truncate-%s%s", argc == 4 ? argv[3] : "", argc == 4 ? "-" : "");
    char n1[128], n2[128], n3[128], n4[128];
    snprintf(n1, sizeof n1, "%scontrol-whole-object-loads", p);
    snprintf(n2, sizeof n2, "%scontrol-leftover-check-detects", p);
    snprintf(n3, sizeof n3, "%sfixture-layout", p);
    snprintf(n4, sizeof n4, "%sall-cuts-refused", p);
    g_img = t_read_file(argv[1], &g_size);
    g_tmp = argv[2];
    char why[1024];

    t_report(n1, t_case_quiet(run_whole, NULL, why, sizeof why), "%s", why);
    t_harness(n2, t_case_quiet(run_leaky, NULL, why, sizeof why), "%s", why);
    if (t_have_lsan()) {
        char n5[128];
        snprintf(n5, sizeof n5, "%scontrol-heap-leak-check-detects", p);
        t_harness(n5, t_case_quiet(run_heap_leaky, NULL, why, sizeof why), "%s", why);
    }

    /* Every place where a header or section starts or ends, plus every 64 bytes. */
    Elf64_Ehdr *eh = t_ehdr(g_img);
    size_t cuts[8192], n = 0;
    size_t fixed[] = { 1, 4, 8, EI_NIDENT - 1, EI_NIDENT, 24, 40, sizeof(Elf64_Ehdr) - 1, sizeof(Elf64_Ehdr) };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) cuts[n++] = fixed[i];
    for (size_t at = 0; at < g_size; at += 64) cuts[n++] = at;
    for (unsigned i = 0; i <= eh->e_shnum && n + 4 < 8192; i++) {
        size_t h = eh->e_shoff + (size_t)i * eh->e_shentsize;
        cuts[n++] = h;
        if (h) cuts[n++] = h - 1;
        if (i < eh->e_shnum && i > 0) {
            Elf64_Shdr *sh = t_shdr(g_img, i);
            if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0) continue;
            cuts[n++] = sh->sh_offset + 1;
            cuts[n++] = sh->sh_offset + sh->sh_size - 1;
        }
    }
    cuts[n++] = g_size - 1;
    qsort(cuts, n, sizeof cuts[0], cmp_size);

    /* gcc and clang put the section header table last: every shorter prefix is broken. */
    if (eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize != g_size) {
        t_harness(n3, 0, "section header table does not end the file");
        return t_exit_status();
    }

    int tried = 0, bad = 0, files = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && cuts[i] == cuts[i - 1]) continue;
        if (cuts[i] >= g_size) continue;
        struct cut c = { cuts[i], "", 0 };
        /* Every 8th cut also goes through objrt_load with a file on disk. */
        c.as_file = (tried % 8) == 0;
        snprintf(c.name, sizeof c.name, "trunc-at-0x%zx.o", cuts[i]);
        tried++;
        files += c.as_file;
        if (!t_case_quiet(run_cut, &c, why, sizeof why)) {
            char name[256];
            snprintf(name, sizeof name, "%s%s%s", p, c.as_file ? "file-" : "", c.name);
            t_report(name, 0, "%s", why);
            bad++;
        }
    }
    /* One summary line; every failing cut above has its own FAIL line. */
    t_report(n4, bad == 0 && tried > 20,
             "%d of %d cuts (%d as files) not refused cleanly", bad, tried, files);
    free(g_img);
    return t_exit_status();
}

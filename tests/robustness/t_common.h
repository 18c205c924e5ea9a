/*
 * t_common.h - helpers shared by the robustness tests in tests/robustness/ (header only).
 *
 * Every test reports through tests/report.h (PASS/FAIL lines, list mode) and exits 0 when
 * all its checks passed, 1 otherwise. Cases that feed objrt hostile input run in a forked
 * child (t_case) so a crash is reported as a FAIL of that case instead of hiding every
 * later case; a case that never reports (the program died first) is failed by name by
 * tests/lib.sh run_cases, which learns the names from the list mode.
 */
#ifndef T_COMMON_H
#define T_COMMON_H

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "objrt.h"

#include "report.h"

/* ---- arguments ---- */

/* Exit with status 2 and a usage line unless the program got exactly `n` - 1 arguments. */
static void t_args(int argc, char **argv, int n, const char *usage)
{
    if (argc == n) return;
    fprintf(stderr, "usage: %s %s\n", argv[0], usage);
    exit(2);
}

/* ---- files ---- */

static unsigned char *t_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno)); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void t_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

/* ---- /proc/self/maps ---- */

typedef struct t_map {
    uintptr_t lo, hi;
    char perms[5];
} t_map;

/* AddressSanitizer keeps freed blocks in a quarantine and serves new ones from memory
 * it has not handed out yet, growing its size-class regions (one mapping each) as it
 * goes: a second round of the same loads then maps more heap than the first. Draining
 * the quarantine before a count lets the round reuse what the last one freed, so a change
 * in the count is objrt's mapping and not the allocator's. (Declared here: gcc ships no
 * <sanitizer/allocator_interface.h>; libasan exports the function.) */
#if defined(__SANITIZE_ADDRESS__)
void __sanitizer_purge_allocator(void);
static void t_heap_settle(void) { __sanitizer_purge_allocator(); }
#else
static void t_heap_settle(void) {}
#endif

/* Read every mapping into `out` (at most `max`); returns the number of lines. */
static int t_maps_read(t_map *out, int max)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3) continue;
        if (out && n < max) {
            out[n].lo = lo;
            out[n].hi = hi;
            memcpy(out[n].perms, perms, 4);
            out[n].perms[4] = 0;
        }
        n++;
    }
    fclose(f);
    return n;
}

static int t_maps_count(void) { return t_maps_read(NULL, 0); }

/* Total bytes of address space mapped (a leaked mapping merged into a neighbour does not
 * change the line count, but it does change this). */
static size_t t_maps_bytes(void)
{
    static t_map maps[8192];
    int n = t_maps_read(maps, 8192);
    size_t total = 0;
    for (int i = 0; i < n && i < 8192; i++) total += maps[i].hi - maps[i].lo;
    return total;
}

/* The mapping containing `addr`, or 0 when unmapped. */
static int t_maps_find(uintptr_t addr, t_map *found)
{
    static t_map maps[8192];
    int n = t_maps_read(maps, 8192);
    for (int i = 0; i < n && i < 8192; i++)
        if (addr >= maps[i].lo && addr < maps[i].hi) { *found = maps[i]; return 1; }
    return 0;
}

/* The contiguous run of mappings (no gap between them) containing `addr`. */
static int t_maps_run(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
    static t_map maps[8192];
    int n = t_maps_read(maps, 8192);
    if (n > 8192) n = 8192;
    for (int i = 0; i < n; i++) {
        if (addr < maps[i].lo || addr >= maps[i].hi) continue;
        int a = i, b = i;
        while (a > 0 && maps[a - 1].hi == maps[a].lo) a--;
        while (b + 1 < n && maps[b].hi == maps[b + 1].lo) b++;
        *lo = maps[a].lo;
        *hi = maps[b].hi;
        return 1;
    }
    return 0;
}

/* Number of mappings both writable and executable; describes the first one in `why`. */
static int t_wx_scan(char *why, size_t whylen)
{
    static t_map maps[8192];
    int n = t_maps_read(maps, 8192), bad = 0;
    if (n > 8192) n = 8192;
    for (int i = 0; i < n; i++) {
        if (maps[i].perms[1] == 'w' && maps[i].perms[2] == 'x') {
            if (!bad && why)
                snprintf(why, whylen, "%lx-%lx %s", (unsigned long)maps[i].lo,
                         (unsigned long)maps[i].hi, maps[i].perms);
            bad++;
        }
    }
    return bad;
}

/* ---- memory ---- */

static long t_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
    if (f) fclose(f);
    return kib;
}

/* LeakSanitizer (asan config): nonzero when unreachable heap blocks exist. */
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
static int t_have_lsan(void) { return __lsan_do_recoverable_leak_check != NULL; }
static int t_leaks_now(void)
{
    return __lsan_do_recoverable_leak_check ? __lsan_do_recoverable_leak_check() : 0;
}

/* ---- crash isolation ---- */

/* A case body: returns 1 when the check passed, else 0 with the reason in `why`. */
typedef int (*t_case_fn)(void *arg, char *why, size_t whylen);

/* Run `fn` in a forked child: returns 1 when the case passed, else 0 with the reason
 * (including a crash: signal, sanitizer abort, exit without a verdict) in `why`. The
 * caller decides what to print; t_case below prints it. */
static int t_case_quiet(t_case_fn fn, void *arg, char *why, size_t whylen)
{
    if (t_listing()) { why[0] = '\0'; return 1; }     /* the caller reports (lists) it */
    char *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) { snprintf(why, whylen, "mmap: %s", strerror(errno)); return 0; }
    shared[0] = 0;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) { snprintf(why, whylen, "fork: %s", strerror(errno)); munmap(shared, 4096); return 0; }
    if (pid == 0) {
        int ok = fn(arg, shared, 4096);
        _exit(ok ? 0 : 3);
    }
    int st = 0, ok = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    shared[4095] = '\0';
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
        snprintf(why, whylen, "did not finish within its time limit (alarm)");
    else if (WIFSIGNALED(st))
        snprintf(why, whylen, "crashed with signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
        snprintf(why, whylen, "%s", shared);
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        snprintf(why, whylen, "child died with exit status %d (sanitizer report on stderr?)",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    else
        ok = 1;
    munmap(shared, 4096);
    return ok;
}

/* A table of cases, run in order with t_case. */
typedef struct t_entry { const char *name; t_case_fn fn; void *arg; } t_entry;
static void t_cases(const t_entry *cases, size_t n);

/* One case of objrt, crash-isolated: PASS or FAIL `name`. */
static void t_case(const char *name, t_case_fn fn, void *arg)
{
    char why[1024];
    if (!t_selected(name))
        return;
    int ok = t_case_quiet(fn, arg, why, sizeof why);
    t_report(name, ok, "%s", why);
}

static void t_cases(const t_entry *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        t_case(cases[i].name, cases[i].fn, cases[i].arg);
}

/* One self-check of the test machinery, crash-isolated (HARNESS PASS/FAIL). */
static void t_harness_case(const char *name, t_case_fn fn, void *arg)
{
    char why[1024];
    if (!t_selected(name))
        return;
    int ok = t_case_quiet(fn, arg, why, sizeof why);
    t_harness(name, ok, "%s", why);
}

/* Does `text` mention the number `val`, in hex (0x...) or decimal? */
static int t_mentions_number(const char *text, unsigned long val)
{
    for (const char *p = text; *p; p++) {
        if ((p == text || !isalnum((unsigned char)p[-1])) && isdigit((unsigned char)*p)) {
            char *end;
            unsigned long v;
            if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
                v = strtoul(p + 2, &end, 16);
            else
                v = strtoul(p, &end, 10);
            if (v == val && end > p) return 1;
        }
    }
    return 0;
}

/* A failing load must leave nothing behind: run `load` once to warm up allocators, then
 * twice more, twice, reading /proc/self/maps after each pair. Something a load leaves
 * behind grows both pairs; the allocator's high-water mark may step up once (under qemu-user
 * a brk heap never shrinks in the guest's maps, and where the step falls depends on the
 * binary's path), so only growth in both pairs counts. Also asks LeakSanitizer (asan
 * config) for unreachable heap blocks. The load callback must return 1 when it failed as
 * expected and described the failure correctly. */
typedef int (*t_load_fn)(objrt_ctx *ctx, void *arg, char *why, size_t whylen);
static int t_fails_cleanly(objrt_ctx *ctx, t_load_fn load, void *arg, char *why, size_t whylen)
{
    int count[3];
    size_t bytes[3];
    if (!load(ctx, arg, why, whylen)) return 0;
    for (int m = 0; m < 3; m++) {
        for (int i = 0; m > 0 && i < 2; i++)
            if (!load(ctx, arg, why, whylen)) return 0;
        count[m] = t_maps_count();
        bytes[m] = t_maps_bytes();
    }
    /* Only growth counts: a failed load may also let malloc return memory it had mapped. */
    if ((count[1] > count[0] && count[2] > count[1]) || (bytes[1] > bytes[0] && bytes[2] > bytes[1])) {
        snprintf(why, whylen, "failed loads left mappings behind: %d lines / %zu bytes, then %d / "
                 "%zu and %d / %zu after two pairs of loads", count[0], bytes[0], count[1],
                 bytes[1], count[2], bytes[2]);
        return 0;
    }
    if (t_leaks_now()) {
        snprintf(why, whylen, "failed loads leaked heap memory (LeakSanitizer report on stderr)");
        return 0;
    }
    return 1;
}

/* ---- one object in a fresh context, per case ---- */

/* PATH loaded into a fresh context; NULL (context freed, `why` set) when it did not. */
static objrt_unit *t_load_fresh(objrt_ctx **ctx, const char *path, char *why, size_t whylen)
{
    *ctx = objrt_new();
    objrt_unit *u = objrt_load(*ctx, &path, 1);
    if (!u) {
        snprintf(why, whylen, "loading %s failed: %s", path, objrt_error(*ctx));
        objrt_free(*ctx);
    }
    return u;
}

/* Free the context; a case that passed must also have leaked nothing. */
static int t_ctx_done(objrt_ctx *ctx, int ok, char *why, size_t whylen)
{
    objrt_free(ctx);
    if (ok && t_leaks_now()) {
        snprintf(why, whylen, "leaked heap memory (LeakSanitizer report on stderr)");
        return 0;
    }
    return ok;
}

/* ---- ELF patching (all targets here are ELF64 little-endian) ---- */

#if defined(__x86_64__)
#define T_MACHINE EM_X86_64
#else
#define T_MACHINE EM_AARCH64
#endif

/* Fill the ELF header of a relocatable object for this machine built from scratch. */
static void t_rel_header(Elf64_Ehdr *eh, Elf64_Off shoff, Elf64_Half shnum, Elf64_Half shstrndx)
{
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_type = ET_REL;
    eh->e_machine = T_MACHINE;
    eh->e_version = EV_CURRENT;
    eh->e_ehsize = sizeof *eh;
    eh->e_shoff = shoff;
    eh->e_shentsize = sizeof(Elf64_Shdr);
    eh->e_shnum = shnum;
    eh->e_shstrndx = shstrndx;
}

static Elf64_Ehdr *t_ehdr(unsigned char *img) { return (Elf64_Ehdr *)img; }

static Elf64_Shdr *t_shdr(unsigned char *img, unsigned idx)
{
    Elf64_Ehdr *eh = t_ehdr(img);
    return (Elf64_Shdr *)(img + eh->e_shoff + (size_t)idx * eh->e_shentsize);
}

static const char *t_shname(unsigned char *img, unsigned idx)
{
    Elf64_Shdr *strs = t_shdr(img, t_ehdr(img)->e_shstrndx);
    return (const char *)img + strs->sh_offset + t_shdr(img, idx)->sh_name;
}

/* Index of the section called `name`, or -1. */
static int t_find_section(unsigned char *img, const char *name)
{
    for (unsigned i = 1; i < t_ehdr(img)->e_shnum; i++)
        if (strcmp(t_shname(img, i), name) == 0) return (int)i;
    return -1;
}

/* Index of the first section of type `type`, or -1. */
static int t_find_type(unsigned char *img, unsigned type)
{
    for (unsigned i = 1; i < t_ehdr(img)->e_shnum; i++)
        if (t_shdr(img, i)->sh_type == type) return (int)i;
    return -1;
}

/* Index in .symtab of the symbol called `name`, or -1. */
static int t_find_symbol(unsigned char *img, const char *name)
{
    int s = t_find_type(img, SHT_SYMTAB);
    if (s < 0) return -1;
    Elf64_Shdr *sh = t_shdr(img, (unsigned)s);
    Elf64_Shdr *str = t_shdr(img, sh->sh_link);
    Elf64_Sym *syms = (Elf64_Sym *)(img + sh->sh_offset);
    for (size_t i = 1; i < sh->sh_size / sizeof(Elf64_Sym); i++)
        if (strcmp((const char *)img + str->sh_offset + syms[i].st_name, name) == 0) return (int)i;
    return -1;
}

static Elf64_Sym *t_symbol(unsigned char *img, int idx)
{
    Elf64_Shdr *sh = t_shdr(img, (unsigned)t_find_type(img, SHT_SYMTAB));
    return (Elf64_Sym *)(img + sh->sh_offset) + idx;
}

/* ---- loading helpers ---- */

/* Load one in-memory input; returns the unit or NULL. */
static objrt_unit *t_load_mem(objrt_ctx *ctx, const char *name, const void *data, size_t size)
{
    objrt_input in = { name, data, size };
    return objrt_load_memory(ctx, &in, 1);
}

/* A private copy of `size` bytes of `img`, for a case to patch. */
static unsigned char *t_copy(const void *img, size_t size)
{
    unsigned char *c = malloc(size ? size : 1);
    if (!c) { fprintf(stderr, "out of memory copying %zu bytes\n", size); exit(2); }
    memcpy(c, img, size);
    return c;
}

/* Call int SYM(void) of the loaded unit `u`, then unload it (SYM NULL: only unload).
 * 1 when SYM exists and returned `want`, else 0 with the reason in `why`. */
static int t_unit_call(objrt_unit *u, const char *sym, int want, char *why, size_t whylen)
{
    int (*fn)(void) = sym ? (int (*)(void))objrt_unit_sym(u, sym) : NULL;
    int v = fn ? fn() : -1;
    objrt_unload(u);
    if (sym && !fn) { snprintf(why, whylen, "loaded, but exports no %s", sym); return 0; }
    if (sym && v != want) { snprintf(why, whylen, "%s() returned %d, expected %d", sym, v, want); return 0; }
    return 1;
}

/* The load/call/unload/compare block every control shares: `u` was just loaded into
 * `ctx` (NULL when the load failed) and must pass t_unit_call; `ctx` is freed either way. */
static int t_call_unload(objrt_ctx *ctx, objrt_unit *u, const char *sym, int want,
                         char *why, size_t whylen)
{
    int ok = 0;
    if (!u)
        snprintf(why, whylen, "did not load: %s", objrt_error(ctx));
    else
        ok = t_unit_call(u, sym, want, why, whylen);
    objrt_free(ctx);
    return ok;
}

/* Load `n` files into a fresh context, then t_call_unload (SYM NULL: only load). */
static int t_files_call(const char *const *paths, size_t n, const char *sym, int want,
                        char *why, size_t whylen)
{
    objrt_ctx *ctx = objrt_new();
    return t_call_unload(ctx, objrt_load(ctx, (const char **)paths, n), sym, want, why, whylen);
}

/* The same for `n` in-memory inputs. */
static int t_mem_call(const objrt_input *in, size_t n, const char *sym, int want,
                      char *why, size_t whylen)
{
    objrt_ctx *ctx = objrt_new();
    return t_call_unload(ctx, objrt_load_memory(ctx, in, n), sym, want, why, whylen);
}

/* t_fails_cleanly (below) in a fresh context; with a `label`, logs "label -> error" on
 * stderr for a reader of the log. */
static int t_fails_cleanly_new(t_load_fn load, void *arg, const char *label, char *why, size_t whylen)
{
    objrt_ctx *ctx = objrt_new();
    int ok = t_fails_cleanly(ctx, load, arg, why, whylen);
    if (label) fprintf(stderr, "%s -> %s\n", label, objrt_error(ctx));
    objrt_free(ctx);
    return ok;
}

/* For a load that must fail: checks the error names `name` (and every extra needle).
 * Returns 1 when fine, else 0 with the reason in `why`. */
static int t_check_error(objrt_ctx *ctx, const char *name, const char *const *needles,
                         char *why, size_t whylen)
{
    const char *err = objrt_error(ctx);
    if (!err || !*err) { snprintf(why, whylen, "empty error message"); return 0; }
    if (name && !strstr(err, name)) {
        snprintf(why, whylen, "error does not name '%s': %s", name, err);
        return 0;
    }
    for (; needles && *needles; needles++) {
        if (!strstr(err, *needles)) {
            snprintf(why, whylen, "error does not mention '%s': %s", *needles, err);
            return 0;
        }
    }
    return 1;
}

/* For a load that must fail: `u` is NULL and the error names `name` and every needle
 * (t_check_error). A unit that did load is unloaded and `what` says why that is wrong. */
static int t_refused(objrt_ctx *ctx, objrt_unit *u, const char *what, const char *name,
                     const char *const *needles, char *why, size_t whylen)
{
    if (u) {
        snprintf(why, whylen, "%s", what);
        objrt_unload(u);
        return 0;
    }
    return t_check_error(ctx, name, needles, why, whylen);
}

/* Case-insensitive substring search. */
static int t_contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return 1;
    return 0;
}

#endif

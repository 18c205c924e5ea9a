/*
 * t_small - the smaller holes of issue 10 (defect 6), one case each:
 *   fifo-input-does-not-block     objrt_load() of a FIFO fails at once ("not a regular file")
 *   contexts-3000-live            3000 live contexts: objrt_new() never NULL, each keeps its
 *                                 own error (a pthread key per context ran out at ~1023)
 *   error-buffer-freed-with-ctx   a thread fails on a context that another thread then frees,
 *                                 20000 times: the process does not grow (1 KiB leaked each)
 *   spin-us-huge-value            OBJRT_SPIN_US=99999999999999999: no overflow, and an idle
 *                                 worker is asleep 1.5 s after a launch (it spun forever)
 *   empty-archive-member-named    a zero-length member: the error names it, not "out of memory"
 *   rela-applies-to-itself        .rela.text with sh_info = itself (or the symbol table) is
 *                                 refused (it loaded, leaving .text unrelocated)
 *   layout-refuses-what-load-does a misaligned .init_array: `objrt layout` refuses it as
 *                                 objrt_load does (layout accepted it)
 *   batch-70-files-load           objrt_load() of 69 empty objects and basic.o last: files
 *                                 are read in batches of a quarter of the descriptor limit
 *                                 (at most 256); with the limit at 256, batches of 64, and
 *                                 the one past them links too
 *   batch-first-bad-input-named   a corrupt file before a missing one, in one batch and
 *                                 across batches: the error names the corrupt one, as when
 *                                 files were read one by one (control: the missing one
 *                                 alone is named)
 * argv: basic.o TMPDIR
 */
#include "t_common.h"
#include <dirent.h>
#include <objrt/tvm_backend.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <stddef.h>

static const char *basic_path, *tmpdir;

static int case_fifo(void *arg, char *why, size_t whylen)
{
    (void)arg;
    char path[4200];
    snprintf(path, sizeof path, "%s/fifo-%d.o", tmpdir, (int)getpid());
    unlink(path);
    if (mkfifo(path, 0600)) { snprintf(why, whylen, "mkfifo: %s", strerror(errno)); return 0; }
    alarm(10);
    objrt_ctx *ctx = objrt_new();
    const char *paths[] = { path };
    objrt_unit *u = objrt_load(ctx, paths, 1);
    alarm(0);
    const char *needles[] = { "not a regular file", NULL };
    int ok = !u && t_check_error(ctx, path, needles, why, whylen);
    objrt_free(ctx);
    unlink(path);
    return ok;
}

static int case_many_contexts(void *arg, char *why, size_t whylen)
{
    (void)arg;
    enum { N = 3000 };
    static objrt_ctx *ctx[N];
    int ok = 1;
    for (int i = 0; i < N && ok; i++) {
        if (!(ctx[i] = objrt_new())) {
            snprintf(why, whylen, "objrt_new() returned NULL with %d contexts alive", i);
            ok = 0;
        } else {
            char name[32];
            snprintf(name, sizeof name, "nosuch-%d.o", i);
            const char *paths[] = { name };
            objrt_load(ctx[i], paths, 1);
        }
    }
    for (int i = 0; i < N && ok; i += 997) {
        char name[32];
        snprintf(name, sizeof name, "nosuch-%d.o", i);
        if (!strstr(objrt_error(ctx[i]), name)) {
            snprintf(why, whylen, "context %d reports '%s', not its own error", i, objrt_error(ctx[i]));
            ok = 0;
        }
    }
    for (int i = 0; i < N && ctx[i]; i++)
        objrt_free(ctx[i]);
    return ok;
}

typedef struct handoff {
    pthread_mutex_t m;
    pthread_cond_t c;
    objrt_ctx *ctx;             /* set by main: fail on it */
    int done, stop;
} handoff;

static void *failer(void *arg)
{
    handoff *h = arg;
    pthread_mutex_lock(&h->m);
    for (;;) {
        while (!h->ctx && !h->stop) pthread_cond_wait(&h->c, &h->m);
        if (h->stop) break;
        objrt_load(h->ctx, NULL, 0);            /* records "nothing to load" for this thread */
        h->ctx = NULL;
        h->done = 1;
        pthread_cond_broadcast(&h->c);
    }
    pthread_mutex_unlock(&h->m);
    return NULL;
}

static int case_buffer_freed(void *arg, char *why, size_t whylen)
{
    (void)arg;
    handoff h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0 };
    pthread_t t;
    pthread_create(&t, NULL, failer, &h);
    long rss0 = 0;
    for (int i = 0; i < 20000; i++) {
        if (i == 1000) rss0 = t_rss_kib();     /* after the allocator warmed up */
        objrt_ctx *ctx = objrt_new();
        pthread_mutex_lock(&h.m);
        h.ctx = ctx;
        h.done = 0;
        pthread_cond_broadcast(&h.c);
        while (!h.done) pthread_cond_wait(&h.c, &h.m);
        pthread_mutex_unlock(&h.m);
        objrt_free(ctx);                        /* the failing thread is still alive */
    }
    long grew = t_rss_kib() - rss0;
    pthread_mutex_lock(&h.m);
    h.stop = 1;
    pthread_cond_broadcast(&h.c);
    pthread_mutex_unlock(&h.m);
    pthread_join(t, NULL);
    if (grew > 4096) {
        snprintf(why, whylen, "RSS grew %ld KiB over 19000 contexts freed under a live thread", grew);
        return 0;
    }
    if (t_leaks_now()) {
        snprintf(why, whylen, "LeakSanitizer found leaks");
        return 0;
    }
    return 1;
}

static int noop_task(int task, TVMParallelGroupEnv *penv, void *cdata)
{
    (void)task; (void)penv; (void)cdata;
    return 0;
}

/* State letter of every thread but the caller: 'R' running, 'S' sleeping, ... */
static int running_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int running = 0;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == (int)gettid()) continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(buf, sizeof buf, f)) {
            char *p = strrchr(buf, ')');
            if (p && p[1] == ' ' && p[2] == 'R') running++;
        }
        fclose(f);
    }
    if (d) closedir(d);
    return running;
}

static int case_spin(void *arg, char *why, size_t whylen)
{
    (void)arg;
    setenv("OBJRT_SPIN_US", "99999999999999999", 1);
    setenv("TVM_NUM_THREADS", "2", 1);
    alarm(30);
    if (objrt_parallel_launch(noop_task, NULL, 2) != 0) {
        snprintf(why, whylen, "launch failed: %s", objrt_last_error());
        return 0;
    }
    struct timespec pause = { 1, 500000000 };   /* beyond the 1 s cap */
    nanosleep(&pause, NULL);
    int samples = 0;
    for (int i = 0; i < 20; i++) {
        samples += running_threads() > 0;
        struct timespec tick = { 0, 25000000 };
        nanosleep(&tick, NULL);
    }
    if (samples > 10) {
        snprintf(why, whylen, "the idle worker was running in %d of 20 samples 1.5 s after the "
                 "launch (spinning)", samples);
        return 0;
    }
    return 1;
}

static int case_empty_member(void *arg, char *why, size_t whylen)
{
    (void)arg;
    static _Alignas(8) char ar[8 + 60 + 1];
    memcpy(ar, "!<arch>\n", 8);
    snprintf(ar + 8, 61, "%-16s%-12s%-6s%-6s%-8s%-10s`\n", "empty.o/", "0", "0", "0", "644", "0");
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = t_load_mem(ctx, "lib.a", ar, 68);
    const char *needles[] = { "empty.o", NULL };
    int ok = !u && t_check_error(ctx, "lib.a", needles, why, whylen);
    if (ok && strstr(objrt_error(ctx), "out of memory")) {
        snprintf(why, whylen, "blames memory: %s", objrt_error(ctx));
        ok = 0;
    }
    if (u) objrt_unload(u);
    objrt_free(ctx);
    return ok;
}

static int rela_to(int self, char *why, size_t whylen)
{
    size_t n;
    unsigned char *img = t_read_file(basic_path, &n);
    int r = t_find_section(img, ".rela.text");
    if (r < 0) { snprintf(why, whylen, "basic.o has no .rela.text"); free(img); return 0; }
    t_shdr(img, (unsigned)r)->sh_info = self ? (unsigned)r : (unsigned)t_find_type(img, SHT_SYMTAB);
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = t_load_mem(ctx, "rela.o", img, n);
    const char *needles[] = { ".rela.text", self ? "itself" : "a table", NULL };
    int ok = !u && t_check_error(ctx, "rela.o", needles, why, whylen);
    if (u) {
        snprintf(why, whylen, "loaded (its .text left unrelocated)");
        objrt_unload(u);
    }
    objrt_free(ctx);
    free(img);
    return ok;
}
static int case_rela_self(void *a, char *w, size_t n) { (void)a; return rela_to(1, w, n); }
static int case_rela_symtab(void *a, char *w, size_t n) { (void)a; return rela_to(0, w, n); }

#if defined(__x86_64__)
#define T_MACHINE EM_X86_64
#else
#define T_MACHINE EM_AARCH64
#endif

/* An object whose 8-byte .init_array (alignment 1) follows a 1-byte .data: placed at an odd
 * offset. Written to TMPDIR (layout reads files). */
static void write_misaligned(const char *path)
{
    static const char names[] = "\0.data\0.init_array\0.shstrtab";   /* 1, 7, 19 */
    struct {
        Elf64_Ehdr eh;
        char data[8], init[8], str[sizeof names];
        _Alignas(8) Elf64_Shdr sh[4];
    } f;
    memset(&f, 0, sizeof f);
    memcpy(f.eh.e_ident, ELFMAG, SELFMAG);
    f.eh.e_ident[EI_CLASS] = ELFCLASS64;
    f.eh.e_ident[EI_DATA] = ELFDATA2LSB;
    f.eh.e_ident[EI_VERSION] = EV_CURRENT;
    f.eh.e_type = ET_REL;
    f.eh.e_machine = T_MACHINE;
    f.eh.e_version = EV_CURRENT;
    f.eh.e_ehsize = sizeof f.eh;
    f.eh.e_shoff = offsetof(__typeof__(f), sh);
    f.eh.e_shentsize = sizeof(Elf64_Shdr);
    f.eh.e_shnum = 4;
    f.eh.e_shstrndx = 3;
    memcpy(f.str, names, sizeof names);
    f.sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_WRITE,
                            .sh_offset = offsetof(__typeof__(f), data), .sh_size = 1, .sh_addralign = 1 };
    f.sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_INIT_ARRAY, .sh_flags = SHF_ALLOC | SHF_WRITE,
                            .sh_offset = offsetof(__typeof__(f), init), .sh_size = 8, .sh_addralign = 1 };
    f.sh[3] = (Elf64_Shdr){ .sh_name = 19, .sh_type = SHT_STRTAB,
                            .sh_offset = offsetof(__typeof__(f), str), .sh_size = sizeof names,
                            .sh_addralign = 1 };
    t_write_file(path, &f, sizeof f);
}

static int case_layout(void *arg, char *why, size_t whylen)
{
    (void)arg;
    char misaligned_path[4200];
    snprintf(misaligned_path, sizeof misaligned_path, "%s/misaligned-%d.o", tmpdir, (int)getpid());
    write_misaligned(misaligned_path);
    objrt_ctx *ctx = objrt_new();
    const char *paths[] = { misaligned_path };
    objrt_unit *u = objrt_load(ctx, paths, 1);
    char load_err[1024];
    snprintf(load_err, sizeof load_err, "%s", objrt_error(ctx));
    FILE *out = fopen("/dev/null", "w");
    int rc = objrt_layout_report(ctx, paths, 1, out);
    fclose(out);
    int ok = 1;
    if (u) {
        snprintf(why, whylen, "the load was not refused (the fixture no longer shows the case)");
        objrt_unload(u);
        ok = 0;
    } else if (rc == 0) {
        snprintf(why, whylen, "layout accepted what the load refused: %s", load_err);
        ok = 0;
    } else if (!strstr(objrt_error(ctx), "array of pointers") || !strstr(load_err, "array of pointers")) {
        snprintf(why, whylen, "different reasons: load '%s', layout '%s'", load_err, objrt_error(ctx));
        ok = 0;
    }
    objrt_free(ctx);
    unlink(misaligned_path);
    return ok;
}

/* An ET_REL with only its section name table: a valid object that adds nothing. */
static int write_empty_object(const char *path)
{
    static const char names[16] = "\0.shstrtab";
    unsigned char img[sizeof(Elf64_Ehdr) + sizeof names + 2 * sizeof(Elf64_Shdr)];
    memset(img, 0, sizeof img);
    memcpy(img + sizeof(Elf64_Ehdr), names, sizeof names);
    t_rel_header(t_ehdr(img), sizeof(Elf64_Ehdr) + sizeof names, 2, 1);
    Elf64_Shdr *str = t_shdr(img, 1);
    str->sh_name = 1;
    str->sh_type = SHT_STRTAB;
    str->sh_offset = sizeof(Elf64_Ehdr);
    str->sh_size = sizeof names;
    str->sh_addralign = 1;
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(img, sizeof img, 1, f) == 1;
    if (f)
        fclose(f);
    return ok;
}

enum { NBATCH = 70 };

/* Descriptor limit 256 while a batch case runs: the loader then reads 64 files at a time,
 * so 70 files cross a batch boundary (at the usual limits all 70 are one batch). */
static struct rlimit batch_saved;

static int batch_limit_256(char *why, size_t whylen)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &batch_saved) != 0) {
        snprintf(why, whylen, "getrlimit: %s", strerror(errno));
        return 0;
    }
    r = batch_saved;
    r.rlim_cur = r.rlim_max != RLIM_INFINITY && r.rlim_max < 256 ? r.rlim_max : 256;
    if (setrlimit(RLIMIT_NOFILE, &r) != 0) {
        snprintf(why, whylen, "setrlimit: %s", strerror(errno));
        return 0;
    }
    return 1;
}

static void batch_limit_restore(void)
{
    setrlimit(RLIMIT_NOFILE, &batch_saved);
}
static char batch_names[NBATCH][4200];

/* paths[0..n-1]: empty objects, with basic.o in slot `basic` (or none when < 0). */
static int batch_paths(const char **paths, int n, int basic, char *why, size_t whylen)
{
    for (int i = 0; i < n; i++) {
        snprintf(batch_names[i], sizeof batch_names[i], "%s/batch-%d-%02d.o", tmpdir,
                 (int)getpid(), i);
        if (!write_empty_object(batch_names[i])) {
            snprintf(why, whylen, "cannot write %s", batch_names[i]);
            return 0;
        }
        paths[i] = i == basic ? basic_path : batch_names[i];
    }
    return 1;
}

static void batch_clean(int n)
{
    for (int i = 0; i < n; i++)
        unlink(batch_names[i]);
}

static int case_batch_load(void *arg, char *why, size_t whylen)
{
    (void)arg;
    const char *paths[NBATCH];
    if (!batch_paths(paths, NBATCH, NBATCH - 1, why, whylen) || !batch_limit_256(why, whylen))
        return 0;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load(ctx, paths, NBATCH);
    batch_limit_restore();
    int (*add)(int, int) = u ? (int (*)(int, int))(uintptr_t)objrt_unit_sym(u, "basic_add") : NULL;
    int ok = add && add(40, 2) == 42;
    objrt_stats st = { 0 };
    if (u)
        objrt_unit_stats(u, &st);
    if (ok && st.objects != NBATCH) {
        snprintf(why, whylen, "stats count %zu objects, want %d", st.objects, NBATCH);
        ok = 0;
    } else if (!ok) {
        snprintf(why, whylen, "load of %d files: %s", NBATCH, u ? "basic_add missing or wrong" :
                 objrt_error(ctx));
    }
    if (u)
        objrt_unload(u);
    objrt_free(ctx);
    batch_clean(NBATCH);
    return ok;
}

/* Load paths with slot `bad` corrupt and slot `missing` absent; the error must name want. */
static int batch_error_names(int bad, int missing, int want, char *why, size_t whylen)
{
    const char *paths[NBATCH];
    if (!batch_paths(paths, NBATCH, -1, why, whylen))
        return 0;
    if (bad >= 0) {
        FILE *f = fopen(batch_names[bad], "wb");
        if (!f || fputs("this is not an ELF object\n", f) < 0) {
            snprintf(why, whylen, "cannot write %s", batch_names[bad]);
            if (f)
                fclose(f);
            return 0;
        }
        fclose(f);
    }
    unlink(batch_names[missing]);
    if (!batch_limit_256(why, whylen))
        return 0;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load(ctx, paths, NBATCH);
    batch_limit_restore();
    const char *err = objrt_error(ctx);
    /* the file names differ only in their two-digit index: match "-NN.o" */
    char needle[16];
    snprintf(needle, sizeof needle, "-%02d.o", want);
    int other = want == bad ? missing : bad;
    char other_needle[16];
    snprintf(other_needle, sizeof other_needle, "-%02d.o", other);
    int ok = !u && strstr(err, needle) && (other < 0 || !strstr(err, other_needle));
    if (!ok)
        snprintf(why, whylen, "bad=%d missing=%d: %s (want the error to name file %d)", bad,
                 missing, u ? "loaded" : err, want);
    if (u)
        objrt_unload(u);
    objrt_free(ctx);
    batch_clean(NBATCH);
    return ok;
}

static int case_batch_first_bad(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return batch_error_names(3, 5, 3, why, whylen) &&       /* same batch */
           batch_error_names(60, 66, 60, why, whylen) &&    /* across the batch boundary */
           batch_error_names(66, 68, 66, why, whylen) &&    /* both in the second batch */
           batch_error_names(-1, 66, 66, why, whylen);      /* control: missing alone */
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: t_small basic.o TMPDIR\n"); return 2; }
    basic_path = argv[1];
    tmpdir = argv[2];
    t_case("small-fifo-input-does-not-block", case_fifo, NULL);
    t_case("small-contexts-3000-live", case_many_contexts, NULL);
    t_case("small-error-buffer-freed-with-ctx", case_buffer_freed, NULL);
    t_case("small-spin-us-huge-value", case_spin, NULL);
    t_case("small-empty-archive-member-named", case_empty_member, NULL);
    t_case("small-rela-applies-to-itself", case_rela_self, NULL);
    t_case("small-rela-applies-to-symtab", case_rela_symtab, NULL);
    t_case("small-layout-refuses-what-load-does", case_layout, NULL);
    t_case("small-batch-70-files-load", case_batch_load, NULL);
    t_case("small-batch-first-bad-input-named", case_batch_first_bad, NULL);
    return t_exit_status();
}

/*
 * t_wx.c - no mapping is ever writable and executable, during or after a load.
 *
 * usage: t_wx BIG.o ROUNDS [EXTRA.o...]
 *  - race: a second thread reads /proc/self/maps as fast as it can while the main thread
 *    loads and unloads BIG.o (and each EXTRA.o, e.g. one placed in a window below 2 GiB,
 *    one with constructors) ROUNDS times; no scan may see a w+x mapping.
 *  - after-load: code r-x, writable data rw-, rodata not writable, no w+x anywhere.
 * Controls: the checker flags an rwx and a -wx mapping made on purpose; the racing
 * poller catches an rwx window opened by the main thread.
 */
#include "t_wxpoll.h"

static unsigned char *g_img;
static size_t g_size;
static unsigned char *g_extra[8];
static size_t g_extra_size[8];
static int g_nextra;

static void control_static(void)
{
    char why[256];
    int base = t_wx_scan(why, sizeof why);
    t_harness("wx-no-wx-mapping-at-start", base == 0, "already present before any load: %s", why);
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int rwx = t_wx_scan(why, sizeof why);
    munmap(p, 4096);
    p = mmap(NULL, 4096, PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int wx = t_wx_scan(why, sizeof why);
    munmap(p, 4096);
    t_harness("wx-control-checker-flags-rwx", rwx == base + 1, "rwx mapping not flagged (%d)", rwx);
    t_harness("wx-control-checker-flags-wx", wx == base + 1, "-wx mapping not flagged (%d)", wx);
}

/* Control: the racing poller catches rwx windows opened by this thread. */
static void control_race(void)
{
    pthread_t t;
    t_wx_poll_start(&t);
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 20; i++) {
        mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
        t_wx_wait_scans();
        mprotect(p, 4096, PROT_READ | PROT_WRITE);
        t_wx_wait_scans();
    }
    t_wx_poll_stop(t);
    munmap(p, 4096);
    t_harness("wx-control-poller-catches-rwx-window", atomic_load(&t_wx_hits) > 0,
             "poller missed 20 rwx windows (%ld scans)", atomic_load(&t_wx_scans));
}

static void race(int rounds)
{
    objrt_ctx *ctx = objrt_new();
    pthread_t t;
    t_wx_poll_start(&t);
    int loaded = 0;
    const char *err = "";
    for (int i = 0; i < rounds; i++) {
        objrt_unit *u = t_load_mem(ctx, "big.o", g_img, g_size);
        if (!u) { err = objrt_error(ctx); break; }
        objrt_unit *x[8];
        int ok = 1;
        for (int e = 0; e < g_nextra; e++) {
            x[e] = t_load_mem(ctx, "extra.o", g_extra[e], g_extra_size[e]);
            if (!x[e]) { err = objrt_error(ctx); ok = 0; }
        }
        for (int e = g_nextra - 1; e >= 0; e--)
            if (x[e]) objrt_unload(x[e]);
        objrt_unload(u);
        if (!ok) break;
        loaded++;
    }
    t_wx_poll_stop(t);
    long hits = atomic_load(&t_wx_hits), scans = atomic_load(&t_wx_scans);
    fprintf(stderr, "t_wx: %ld maps scans during %d rounds\n", scans, loaded);
    if (loaded < rounds)
        t_report("wx-race-load-unload", 0, "load %d failed: %s", loaded + 1, err);
    else
        t_report("wx-race-load-unload", hits == 0 && scans > 0,
                 "%ld of %ld scans saw a w+x mapping during %d loads, first: %s", hits, scans, rounds, t_wx_first_hit);
    objrt_free(ctx);
}

/* Permissions of the mapping holding `sym` of `u`, or "none". */
static const char *perms_of(objrt_unit *u, const char *sym, char buf[8])
{
    void *p = objrt_unit_sym(u, sym);
    t_map m;
    if (!p || !t_maps_find((uintptr_t)p, &m)) return strcpy(buf, "none");
    return strcpy(buf, m.perms);
}

static void after_load(void)
{
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = t_load_mem(ctx, "big.o", g_img, g_size);
    if (!u) {
        t_report("wx-after-load", 0, "load failed: %s", objrt_error(ctx));
        objrt_free(ctx);
        return;
    }
    char why[256], b[8];
    int n = t_wx_scan(why, sizeof why);
    t_report("wx-after-load-no-wx-mapping", n == 0, "%d w+x mappings, first: %s", n, why);
    const char *code = perms_of(u, "big_entry", b);
    t_report("wx-after-load-code-r-x", strncmp(code, "r-x", 3) == 0, "big_entry is in a %s mapping", code);
    const char *data = perms_of(u, "big_rw", b);
    t_report("wx-after-load-data-rw-", strncmp(data, "rw-", 3) == 0, "big_rw is in a %s mapping", data);
    const char *fptrs = perms_of(u, "big_table_rw", b);
    t_report("wx-after-load-reloc-data-rw-", strncmp(fptrs, "rw-", 3) == 0, "big_table_rw is in a %s mapping", fptrs);
    const char *ro = perms_of(u, "big_ro", b);
    t_report("wx-after-load-rodata-not-writable", ro[0] == 'r' && ro[1] == '-', "big_ro is in a %s mapping", ro);
    const char *bss = perms_of(u, "big_bss", b);
    t_report("wx-after-load-bss-rw-", strncmp(bss, "rw-", 3) == 0, "big_bss is in a %s mapping", bss);
    int (*entry)(int) = (int (*)(int))objrt_unit_sym(u, "big_entry");
    int v = entry ? entry(1) : -1;
    /* Table entry i is big_f<(i + 100) % 1000> (big.c lists 100..999 first, then 000..099);
     * big_f<n>(1) = n + 1 + big_rw[n % 64] + big_ro[n * 7]; both tables, every 97th entry. */
    int expect = 0;
    for (int i = 0; i < 1000; i += 97) {
        int n = (i + 100) % 1000;
        expect += 2 * (n + 1 + (n % 64 == 0 ? 7 : 0) + (n == 0 ? 1 : 0));
    }
    t_report("wx-after-load-code-runs", v == expect, "big_entry(1) = %d, expected %d", v, expect);
    objrt_unload(u);
    objrt_free(ctx);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 3 + 8) { fprintf(stderr, "usage: %s BIG.o ROUNDS [EXTRA.o...]\n", argv[0]); return 2; }
    g_img = t_read_file(argv[1], &g_size);
    for (int i = 3; i < argc; i++, g_nextra++)
        g_extra[g_nextra] = t_read_file(argv[i], &g_extra_size[g_nextra]);
    static const char *const names[] = {
        "HARNESS wx-no-wx-mapping-at-start", "HARNESS wx-control-checker-flags-rwx",
        "HARNESS wx-control-checker-flags-wx", "HARNESS wx-control-poller-catches-rwx-window",
        "wx-after-load-no-wx-mapping", "wx-after-load-code-r-x", "wx-after-load-data-rw-",
        "wx-after-load-reloc-data-rw-", "wx-after-load-rodata-not-writable", "wx-after-load-bss-rw-",
        "wx-after-load-code-runs", "wx-race-load-unload", NULL,
    };
    t_declare(names);      /* main() itself does the work: list mode stops here */
    control_static();
    control_race();
    after_load();
    race(atoi(argv[2]));
    free(g_img);
    for (int i = 0; i < g_nextra; i++) free(g_extra[i]);
    return t_exit_status();
}

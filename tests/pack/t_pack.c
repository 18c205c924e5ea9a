/*
 * t_pack.c - small units share pages (objrt_options.pack_small), issue 8.
 *
 * usage: t_pack DIR PAGE_SIZE N     (DIR/u0.o .. u19.o: tests/pack/unit.c, variants 0..19)
 * (case names pack-4k-..., pack-16k-...; pack-4k-3000-... when N is not 1000)
 *
 * N units are loaded into one context at plan page PAGE_SIZE, unit i from variant i % 20.
 * Units 0..9 are roots (prev = a host function returning 0, prev_g = a host 0); unit
 * i >= 10 is bound to root i % 10 (prev = its f, prev_g = its g). The harness writes i + 1
 * into each unit's g, so every f_i(x) has one value, computed here from unit.c's formulas.
 * Cases (suffix: the page size in KiB):
 *   loads          every load succeeds and every unit is packed
 *   no-wx          a thread polls /proc/self/maps during the loads: no w+x mapping
 *   alias-closed   after loads, no writable shared mapping of the arena remains
 *   values         g starts at its initial value; every f_i(x) is right
 *   bytes          arena pages per unit <= 2 x the unit's content (printed)
 *   deps           a root with leaves bound to it is not unloaded
 *   guard          objrt_unit_extent / objrt_addr_info never give a unit a neighbour's
 *                  bytes on a shared page, nor another unit's bytes that lie between its
 *                  own chunks; objrt_unit_slot refuses past a symbol
 *   random-unload  leaves unloaded in random order; the rest still compute right
 *   returned       pages of unloaded units go back: arena pages and the memory file's
 *                  resident pages shrink; after the last unload no arena remains
 * 4 KiB run only: fork-isolation (child and parent load after a fork, each in turn: neither
 * sees the other's units or writes); controls: the bytes check fails with packing off; the
 * poller catches a w+x page planted during loads; the alias check flags a writable shared
 * mapping.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include "../robustness/t_wxpoll.h"
#include "finish/unit.h"

#define VARIANTS 20
#define ROOTS 10

static int ntab(int v) { return 4 + (v * 37) % 120; }
static int nstep(int v) { return 1 + (v * 5) % 24; }
static int tabv(int v, int k) { return (k * 7 + v) % 101; }

static unsigned char *g_obj[VARIANTS];
static size_t g_objsz[VARIANTS];
static int g_n;
static size_t g_page;
static char g_sfx[32];

static int host_zero_fn(int x) { (void)x; return 0; }
static int host_zero;

/* ---- names and notes ---- */
static char *nm(const char *base)
{
    static char buf[16][96];
    static int k;
    char *b = buf[k++ % 16];
    snprintf(b, sizeof buf[0], "pack-%s-%s", g_sfx, base);
    return b;
}

static void report_note(const char *name, int ok, const char *note, const char *why)
{
    if (!t_listing() && ok) {
        printf("PASS %s (%s)\n", name, note);
        fflush(stdout);
        return;
    }
    t_report(name, ok, "%s", why);
}

/* ---- W^X poller (t_wxpoll.h) and the alias check ---- */

/* Under qemu-user (T_NO_MAPS, AArch64) the guest's /proc/self/maps does not show
 * permissions faithfully (see 30-robustness): the cases that read the maps (no-wx,
 * alias-closed, the resident part of returned) and the controls are x86_64's. */
#ifdef T_NO_MAPS
static const int g_maps_ok = 0;
static void poll_start(pthread_t *t) { (void)t; }
static void poll_stop(pthread_t t) { (void)t; }
#else
static const int g_maps_ok = 1;
static void poll_start(pthread_t *t) { t_wx_poll_start(t); }
static void poll_stop(pthread_t t) { t_wx_poll_stop(t); }
#endif

/* Mappings of the arena's memory file; with `alias_only`, only those writable and shared
 * ("rw-s"): the write alias left open (RW pages of units are private, "rw-p", and do not
 * count). The first one counted is copied to `why`. */
static int arena_maps(int alias_only, char *why, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        char perms[8] = "";
        if (!strstr(line, "objrt-arena") || sscanf(line, "%*x-%*x %7s", perms) != 1)
            continue;
        if (alias_only && !(perms[1] == 'w' && perms[3] == 's'))
            continue;
        if (n++ == 0 && why)
            snprintf(why, len, "%s", line);
    }
    if (f)
        fclose(f);
    return n;
}

static int open_alias(char *why, size_t len) { return arena_maps(1, why, len); }

/* Resident bytes of the arena's memory-file mappings (both views), from smaps. */
static long arena_rss_kib(void)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    long kib = 0, v;
    int in = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && strchr(line, ' ')) {
            in = strstr(line, "objrt-arena") != NULL;
            continue;
        }
        if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
            kib += v;
    }
    if (f)
        fclose(f);
    return kib;
}

static int arena_mapped(void) { return arena_maps(0, NULL, 0); }

/* ---- the session ---- */
typedef struct unit {
    objrt_unit *u;
    int (*f)(int);
    int *g;
    int root;               /* -1 for a root */
} unit;

static unit *g_u;

static int expect_f(int i, int x)
{
    int v = i % VARIANTS, r = g_u[i].root;
    unsigned u = (unsigned)x;
    int acc = (i + 1) + (r >= 0 ? r + 1 : 0) + tabv(v, (int)(u % (unsigned)ntab(v))) * (v + 1);
    for (int s = 0; s < nstep(v); s++)
        acc += tabv(v, (int)((u + (unsigned)s) % (unsigned)ntab(v))) ^ s;
    return acc + (r >= 0 ? expect_f(r, x) : 0);
}

static objrt_ctx *new_ctx(int pack)
{
    objrt_ctx *ctx = objrt_new();
    objrt_options o = { .page_size = g_page, .pack_small = pack };
    if (ctx && objrt_set_options(ctx, &o)) {
        fprintf(stderr, "t_pack: %s\n", objrt_error(ctx));
        objrt_free(ctx);
        return NULL;
    }
    return ctx;
}

/* Load unit i bound to its root. 0, or -1 with the error in why. */
static int load_one(objrt_ctx *ctx, int i, char *why, size_t len)
{
    int r = i < ROOTS ? -1 : i % ROOTS;
    objrt_define(ctx, "prev", r < 0 ? (void *)host_zero_fn : (void *)g_u[r].f);
    objrt_define(ctx, "prev_g", r < 0 ? (void *)&host_zero : (void *)g_u[r].g);
    char name[32];
    snprintf(name, sizeof name, "u%d.o", i);
    objrt_unit *u = t_load_mem(ctx, name, g_obj[i % VARIANTS], g_objsz[i % VARIANTS]);
    if (!u) {
        snprintf(why, len, "load of unit %d failed: %s", i, objrt_error(ctx));
        return -1;
    }
    g_u[i] = (unit){ u, (int (*)(int))objrt_unit_sym(u, "f"), objrt_unit_sym(u, "g"), r };
    if (!g_u[i].f || !g_u[i].g) {
        snprintf(why, len, "unit %d: f or g missing", i);
        return -1;
    }
    return 0;
}

static size_t content_bytes(int n, size_t *mapped_unpacked, int *packed)
{
    size_t c = 0;
    *mapped_unpacked = 0;
    *packed = 0;
    for (int i = 0; i < n; i++) {
        objrt_stats s;
        if (!g_u[i].u || objrt_unit_stats(g_u[i].u, &s))
            continue;
        c += s.used_bytes;
        *packed += (int)s.packed;
        if (!s.packed)
            *mapped_unpacked += s.reserved_bytes;
    }
    return c;
}

/* Bytes mapped per unit over content: arena pages + the reservations of unpacked units. */
static double ratio(objrt_ctx *ctx, int n, char *note, size_t len)
{
    objrt_memory m;
    size_t unpacked;
    int packed;
    objrt_memory_usage(ctx, &m);
    size_t content = content_bytes(n, &unpacked, &packed);
    size_t mapped = m.arena_page_bytes + unpacked;
    double r = content ? (double)mapped / (double)content : 0;
    snprintf(note, len, "%d units, %d packed, %zu arena blocks: %.0f bytes mapped per unit for "
             "%.0f of content, ratio %.2f", n, packed, m.arena_blocks, (double)mapped / n,
             (double)content / n, r);
    return r;
}

static int check_values(int n, const char *phase, char *why, size_t len)
{
    static const int xs[] = { 0, 1, 5, 77, 1000 };
    for (int i = 0; i < n; i++) {
        if (!g_u[i].u)
            continue;
        for (size_t k = 0; k < sizeof xs / sizeof *xs; k++) {
            int got = g_u[i].f(xs[k]), want = expect_f(i, xs[k]);
            if (got != want) {
                snprintf(why, len, "%s: unit %d f(%d) = %d, expected %d", phase, i, xs[k], got,
                         want);
                return 0;
            }
        }
    }
    return 1;
}

/* Two units whose g share a page: the neighbour's bytes must not be the other's. */
static void guard(objrt_ctx *ctx)
{
    char why[512] = "no two units have g on the same page (nothing is packed)";
    int ok = 0;
    for (int i = ROOTS; i + 1 < g_n && !ok; i++) {
        unit *a = &g_u[i], *b = &g_u[i + 1];
        uintptr_t pa = (uintptr_t)a->g, pb = (uintptr_t)b->g;
        if (pa / g_page != pb / g_page)
            continue;
        size_t room_ab = objrt_unit_extent(a->u, b->g, true), room_ba = objrt_unit_extent(b->u, a->g, true);
        size_t room_a = objrt_unit_extent(a->u, a->g, true);
        objrt_location la, lb;
        int ia = objrt_addr_info(ctx, a->g, &la), ib = objrt_addr_info(ctx, b->g, &lb);
        void *p;
        char err[256];
        int slot_ok = objrt_unit_slot(a->u, "g", 4, true, &p, NULL, err, sizeof err);
        int slot_big = objrt_unit_slot(a->u, "g", 8, true, &p, NULL, err, sizeof err);
        uintptr_t end_a = pa + room_a;
        if (room_ab || room_ba)
            snprintf(why, sizeof why, "unit %d's room covers unit %d's g (%zu, %zu bytes)", i,
                     i + 1, room_ab, room_ba);
        else if (!room_a || (pb > pa && end_a > pb))
            snprintf(why, sizeof why, "unit %d's writable room from its g is %zu bytes: past "
                     "unit %d's g", i, room_a, i + 1);
        else if (ia || ib || la.unit != a->u || lb.unit != b->u)
            snprintf(why, sizeof why, "objrt_addr_info gives the wrong unit for a g");
        else if (slot_ok != 1 || slot_big != -1)
            snprintf(why, sizeof why, "objrt_unit_slot(g, 4) = %d, (g, 8) = %d", slot_ok, slot_big);
        else
            ok = 1;
        if (!ok)
            break;
    }
    /* b's g inside the span from a's code to a's data (other units' chunks interleave
     * there): still b's, never a's, for every lookup by address */
    int found = 0;
    for (int i = ROOTS; i < g_n && ok && !found; i++)
        for (int j = ROOTS; j < g_n && ok && !found; j++) {
            uintptr_t f = (uintptr_t)g_u[i].f, g = (uintptr_t)g_u[i].g, x = (uintptr_t)g_u[j].g;
            if (i == j || !(x > (f < g ? f : g) && x < (f < g ? g : f)))
                continue;
            found = 1;
            objrt_location l = { 0 };
            size_t r0 = objrt_unit_extent(g_u[i].u, g_u[j].g, false);
            size_t r1 = objrt_unit_extent(g_u[i].u, g_u[j].g, true);
            if (r0 || r1 || objrt_addr_info(ctx, g_u[j].g, &l) || l.unit != g_u[j].u) {
                ok = 0;
                snprintf(why, sizeof why, "unit %d's g lies between unit %d's f and g: room %zu/%zu "
                         "bytes in unit %d, objrt_addr_info names %s", j, i, r0, r1, i,
                         l.unit == g_u[i].u ? "the wrong unit" : "its unit");
            }
        }
    if (ok && !found) {
        ok = 0;
        snprintf(why, sizeof why, "no unit's g lies between another's f and g");
    }
    t_report(nm("guard"), ok, "%s", why);
}

static void session(void)
{
    char why[512] = "", note[256];
    objrt_ctx *ctx = new_ctx(1);
    if (!ctx) {
        t_report(nm("loads"), 0, "no context");
        return;
    }
    g_u = calloc((size_t)g_n, sizeof *g_u);
    pthread_t t;
    poll_start(&t);
    int loaded = 0, alias = 0, init_ok = 1;
    char alias_why[512] = "", init_why[128] = "";
    for (int i = 0; i < g_n; i++) {
        if (load_one(ctx, i, why, sizeof why))
            break;
        if (*g_u[i].g != 1000 + i % VARIANTS && init_ok) {
            init_ok = 0;
            snprintf(init_why, sizeof init_why, "unit %d's g starts at %d, not %d", i,
                     *g_u[i].g, 1000 + i % VARIANTS);
        }
        *g_u[i].g = i + 1;
        if (i % 10 == 0 && g_maps_ok)
            alias += open_alias(alias_why, sizeof alias_why);
        loaded++;
    }
    poll_stop(t);
    int packed;
    size_t unpacked;
    content_bytes(loaded, &unpacked, &packed);
    if (loaded == g_n && packed != g_n)
        snprintf(why, sizeof why, "%d of %d units packed", packed, g_n);
    t_report(nm("loads"), loaded == g_n && packed == g_n, "%s", why);
    long hits = atomic_load(&t_wx_hits), scans = atomic_load(&t_wx_scans);
    if (g_maps_ok) {
        t_report(nm("no-wx"), hits == 0 && scans > 0, "%ld of %ld scans saw a w+x mapping, "
                 "first: %s", hits, scans, t_wx_first_hit);
        alias += open_alias(alias_why, sizeof alias_why);
        t_report(nm("alias-closed"), alias == 0, "%d checks found the write alias open: %s",
                 alias, alias_why);
    }
    int vals = check_values(loaded, "after the loads", why, sizeof why);
    t_report(nm("values"), init_ok && vals, "%s", init_ok ? why : init_why);
    double r = ratio(ctx, loaded, note, sizeof note);
    report_note(nm("bytes"), loaded == g_n && r > 0 && r <= 2.0, note, note);
    int refused = g_n > ROOTS && objrt_unload(g_u[0].u) == -1 &&
                  strstr(objrt_error(ctx), "is bound to it");
    t_report(nm("deps"), refused, "root 0 with leaves bound to it: unload not refused (%s)",
             objrt_error(ctx));
    guard(ctx);

    /* leaves in random order, values checked every 100 unloads */
    objrt_memory full, leaves_gone, none;
    objrt_memory_usage(ctx, &full);
    long rss_full = arena_rss_kib();
    int *order = malloc((size_t)g_n * sizeof *order), nl = 0;
    for (int i = ROOTS; i < loaded; i++)
        order[nl++] = i;
    srand(12345);
    for (int i = nl - 1; i > 0; i--) {
        int j = rand() % (i + 1), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    int ok = loaded == g_n;
    snprintf(why, sizeof why, "not every unit loaded");
    for (int k = 0; k < nl && ok; k++) {
        if (objrt_unload(g_u[order[k]].u)) {
            snprintf(why, sizeof why, "unload of unit %d: %s", order[k], objrt_error(ctx));
            ok = 0;
        }
        g_u[order[k]].u = NULL;
        if (ok && (k % 100 == 99 || k == nl - 1))
            ok = check_values(loaded, "during the random unloads", why, sizeof why);
    }
    t_report(nm("random-unload"), ok, "%s", why);
    free(order);
    objrt_memory_usage(ctx, &leaves_gone);
    long rss_roots = arena_rss_kib();
    /* the roots need at most a page per group each */
    size_t roots_max = (size_t)ROOTS * 3 * g_page;
    for (int i = 0; i < ROOTS && i < loaded; i++)
        objrt_unload(g_u[i].u);
    objrt_memory_usage(ctx, &none);
    int mapped_after = arena_mapped();
    snprintf(note, sizeof note, "arena pages %zu KiB -> %zu KiB with the roots only -> %zu; "
             "memory file resident %ld KiB -> %ld KiB", full.arena_page_bytes >> 10,
             leaves_gone.arena_page_bytes >> 10, none.arena_page_bytes, rss_full, rss_roots);
    ok = ok && leaves_gone.arena_page_bytes <= roots_max &&
         leaves_gone.arena_page_bytes < full.arena_page_bytes &&
         none.arena_blocks == 0 && none.arena_page_bytes == 0 &&
         (!g_maps_ok || (rss_roots * 1024 <= (long)(2 * roots_max) && rss_roots < rss_full &&
                         mapped_after == 0));
    snprintf(why, sizeof why, "%s; %d arena mappings left after the last unload", note,
             mapped_after);
    report_note(nm("returned"), ok, note, why);
    objrt_free(ctx);
    free(g_u);
}

/* fork(): the child and the parent both load after the fork, one after the other, each
 * into the free space of the arena it inherited; the other's units must not change: code
 * and read-only data pages shared through the memory file are never reused after a fork,
 * and writable data are private to each process. */
static int fork_case_units(objrt_ctx *ctx, int from, int to, char *why, size_t len)
{
    for (int i = from; i < to; i++) {
        if (load_one(ctx, i, why, len))
            return 0;
        *g_u[i].g = i + 1;
    }
    return check_values(to, "after the fork", why, len);
}

static void fork_case(void)
{
    char why[512] = "";
    int n = 125, ok = 0;
    objrt_ctx *ctx = new_ctx(1);
    g_u = calloc((size_t)n, sizeof *g_u);
    int to_child[2], to_parent[2];
    if (!ctx || pipe(to_child) || pipe(to_parent) || !fork_case_units(ctx, 0, 40, why, sizeof why)) {
        t_report("pack-fork-isolation", 0, "setup: %s", why);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {             /* child: loads 40 units, then the parent loads 40 */
        char c = 0;
        int good = fork_case_units(ctx, 40, 80, why, sizeof why);
        for (int i = 0; i < 40; i++)
            *g_u[i].g = -1;     /* the parent must not see this */
        if (write(to_parent[1], "x", 1) != 1 || read(to_child[0], &c, 1) != 1)
            good = 0;
        for (int i = 0; i < 40; i++)
            *g_u[i].g = i + 1;
        good = good && check_values(80, "in the child after the parent's loads", why, sizeof why);
        if (!good)
            fprintf(stderr, "t_pack: fork child: %s\n", why);
        _exit(good ? 0 : 1);
    }
    char c = 0;
    if (pid > 0 && read(to_parent[0], &c, 1) == 1) {
        /* units 85.. are other variants than the child's 40.. (i % 20): were the parent to
         * reuse the chunks the child took, the bytes would differ */
        ok = check_values(40, "in the parent after the child's loads", why, sizeof why) &&
             fork_case_units(ctx, 85, 125, why, sizeof why);
        if (write(to_child[1], "x", 1) != 1)
            ok = 0;
    }
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (ok && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        ok = 0;
        snprintf(why, sizeof why, "the child's units went wrong (status 0x%x, see stderr)", status);
    }
    t_report("pack-fork-isolation", ok, "%s", why);
    objrt_free(ctx);
    free(g_u);
}

/* ---- controls ---- */

/* With packing off the bytes check fails (the same units and measure). */
static void control_unpacked(void)
{
    char note[256], why[256];
    objrt_ctx *ctx = new_ctx(0);
    int n = 200;
    g_u = calloc((size_t)n, sizeof *g_u);
    int loaded = 0;
    while (ctx && loaded < n && load_one(ctx, loaded, why, sizeof why) == 0)
        loaded++;
    double r = ctx ? ratio(ctx, loaded, note, sizeof note) : 0;
    if (!t_listing())
        fprintf(stderr, "t_pack: unpacked: %s\n", note);
    t_harness("pack-control-unpacked-fails-bytes-check", loaded == n && r > 2.0,
              "packing off: %s", note);
    objrt_free(ctx);
    free(g_u);
}

/* The poller catches a w+x page planted during packed loads. */
static void control_planted_wx(void)
{
    objrt_ctx *ctx = new_ctx(1);
    int n = 60;
    char why[256];
    g_u = calloc((size_t)n, sizeof *g_u);
    pthread_t t;
    poll_start(&t);
    void *bad = NULL;
    for (int i = 0; ctx && i < n && load_one(ctx, i, why, sizeof why) == 0; i++) {
        if (i == n / 2)
            bad = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (i >= n / 2)
            usleep(1000);
    }
    t_wx_wait_scans();
    poll_stop(t);
    if (bad && bad != MAP_FAILED)
        munmap(bad, 4096);
    t_harness("pack-control-planted-wx-caught", atomic_load(&t_wx_hits) > 0,
              "a planted rwx page was not seen (%ld scans)", atomic_load(&t_wx_scans));
    objrt_free(ctx);
    free(g_u);
}

/* The alias check flags a writable shared mapping of a file called like the arena's. */
static void control_alias_check(void)
{
    char why[512];
    int before = open_alias(why, sizeof why);
    int fd = memfd_create("objrt-arena", MFD_CLOEXEC);
    void *p = fd >= 0 && ftruncate(fd, 4096) == 0
                  ? mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    int after = open_alias(why, sizeof why);
    if (p != MAP_FAILED)
        munmap(p, 4096);
    if (fd >= 0)
        close(fd);
    t_harness("pack-control-alias-check-flags-rw-s", before == 0 && after == 1,
              "before %d, after %d", before, after);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 4, "DIR PAGE_SIZE N");
    g_page = (size_t)atol(argv[2]);
    g_n = atoi(argv[3]);
    if (g_n == 1000)
        snprintf(g_sfx, sizeof g_sfx, "%zuk", g_page >> 10);
    else                    /* another size of session: its own case names */
        snprintf(g_sfx, sizeof g_sfx, "%zuk-%d", g_page >> 10, g_n);
    const char *names[] = { nm("loads"), nm("values"), nm("bytes"), nm("deps"), nm("guard"),
                            nm("random-unload"), nm("returned"), nm("no-wx"), nm("alias-closed"),
                            NULL, NULL, NULL, NULL, NULL };
    int first = g_page == 4096 && g_n == 1000;     /* the once-per-suite cases */
    int controls = first && g_maps_ok;
    if (!g_maps_ok)
        names[7] = NULL;
    if (controls) {
        names[9] = "HARNESS pack-control-unpacked-fails-bytes-check";
        names[10] = "HARNESS pack-control-planted-wx-caught";
        names[11] = "HARNESS pack-control-alias-check-flags-rw-s";
    }
    if (first)
        names[12] = "pack-fork-isolation";
    t_declare(names);
    for (int v = 0; v < VARIANTS; v++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/u%d.o", argv[1], v);
        g_obj[v] = t_read_file(path, &g_objsz[v]);
    }
    unsetenv("OBJRT_PACK");     /* the options decide here */
    session();
    if (controls) {
        control_unpacked();
        control_planted_wx();
        control_alias_check();
    }
    if (first)
        fork_case();
    for (int v = 0; v < VARIANTS; v++)
        free(g_obj[v]);
    return t_exit_status();
}

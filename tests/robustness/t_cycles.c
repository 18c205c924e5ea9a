/*
 * t_cycles.c - many load/unload cycles keep memory and mappings flat.
 *
 * usage: t_cycles BASIC.o CYCLES [rss]
 * After a warm-up of 500 cycles, CYCLES more load/unload cycles of BASIC.o must leave
 * the /proc/self/maps line count unchanged and (with "rss") VmRSS within +1 MiB.
 * Controls: the RSS check notices 4 MiB leaked on purpose, and notices loads that are
 * never unloaded; the mapping check notices those too.
 */
#include "t_common.h"

#define TOLERANCE_KIB 1024
#define LEAK_LOADS 500

static unsigned char *g_img;
static size_t g_size;

static int cycle(objrt_ctx *ctx, int n, const char **err)
{
    for (int i = 0; i < n; i++) {
        objrt_unit *u = t_load_mem(ctx, "basic.o", g_img, g_size);
        if (!u) { *err = objrt_error(ctx); return i; }
        objrt_unload(u);
    }
    return n;
}

/* Control independent of objrt: leaking 4 MiB is seen by the RSS check. */
static void control_rss_check(void)
{
    long before = t_rss_kib();
    char *leak = malloc(4 << 20);
    memset(leak, 1, 4 << 20);
    __asm__ volatile("" : : "r"(leak) : "memory");    /* keep the compiler from eliding it */
    long grown = t_rss_kib() - before;
    t_harness("cycles-control-rss-check-sees-4mib-leak", grown > TOLERANCE_KIB,
             "RSS grew only %ld KiB after touching 4 MiB", grown);
    free(leak);
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: %s BASIC.o CYCLES [rss]\n", argv[0]); return 2; }
    g_img = t_read_file(argv[1], &g_size);
    int cycles = atoi(argv[2]);
    int check_rss = argc > 3 && strcmp(argv[3], "rss") == 0;
    const char *err = "";
    static const char *const names[] = {
        "cycles-mappings-flat", "HARNESS cycles-control-mapping-check-sees-kept-units",
        "cycles-unload-returns-mappings", NULL,
    };
    static const char *const rss_names[] = {
        "HARNESS cycles-control-rss-check-sees-4mib-leak", "cycles-rss-flat",
        "HARNESS cycles-control-rss-check-sees-kept-units", NULL,
    };
    if (t_listing() && check_rss)
        for (const char *const *n = rss_names; *n; n++) printf("EXPECT %s\n", *n);
    t_declare(names);      /* main() itself does the work: list mode stops here */
    objrt_ctx *ctx = objrt_new();

    if (check_rss) control_rss_check();

    if (cycle(ctx, 500, &err) != 500) {
        t_report("cycles-warm-up", 0, "load failed: %s", err);
        return t_exit_status();
    }
    long rss0 = t_rss_kib();
    int maps0 = t_maps_count();
    int done = cycle(ctx, cycles, &err);
    long rss1 = t_rss_kib();
    int maps1 = t_maps_count();
    if (done != cycles) {
        t_report("cycles-load-unload", 0, "load %d of %d failed: %s", done + 1, cycles, err);
    } else {
        t_report("cycles-mappings-flat", maps1 == maps0, "%d mappings after warm-up, %d after %d cycles",
                 maps0, maps1, cycles);
        if (check_rss)
            t_report("cycles-rss-flat", rss1 - rss0 <= TOLERANCE_KIB, "VmRSS %ld KiB after warm-up, %ld KiB after %d cycles",
                     rss0, rss1, cycles);
    }

    /* Control with objrt itself: loads never unloaded must show up in both checks. Run
     * twice: the first round also warms up allocator size classes (visible as mappings
     * under ASan); unloading in the second round must get back to the count after the first. */
    int maps_after[2] = { 0, 0 };
    for (int round = 0; round < 2; round++) {
        objrt_unit *kept[LEAK_LOADS];
        int n = 0;
        long rss2 = t_rss_kib();
        int maps2 = t_maps_count();
        size_t bytes2 = t_maps_bytes();
        for (; n < LEAK_LOADS; n++) {
            kept[n] = t_load_mem(ctx, "basic.o", g_img, g_size);
            if (!kept[n]) break;
            /* Touch the unit (run its code) so its pages count in RSS. */
            int (*answer)(void) = (int (*)(void))objrt_unit_sym(kept[n], "basic_answer");
            if (answer) answer();
        }
        long rss3 = t_rss_kib();
        int maps3 = t_maps_count();
        size_t bytes3 = t_maps_bytes();
        if (n != LEAK_LOADS) {
            t_harness("cycles-control-kept-units", 0, "load %d failed: %s", n + 1, objrt_error(ctx));
        } else if (round == 1) {
            t_harness("cycles-control-mapping-check-sees-kept-units", maps3 > maps2 || bytes3 > bytes2,
                     "%d units kept loaded but mappings unchanged (%d lines)", n, maps3);
            if (check_rss)
                t_harness("cycles-control-rss-check-sees-kept-units", rss3 - rss2 > TOLERANCE_KIB,
                         "%d units kept loaded but RSS grew only %ld KiB", n, rss3 - rss2);
        }
        while (n > 0) objrt_unload(kept[--n]);
        maps_after[round] = t_maps_count();
    }
    t_report("cycles-unload-returns-mappings", maps_after[1] == maps_after[0],
             "%d mappings after loading and unloading %d units, %d after doing it again",
             maps_after[0], LEAK_LOADS, maps_after[1]);
    objrt_free(ctx);
    free(g_img);
    return t_exit_status();
}

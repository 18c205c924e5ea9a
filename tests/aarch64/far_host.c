/*
 * far_host.c - a host function and a host data object more than 4 GiB from the unit.
 *
 * usage: far_host FAR_USE.o ADRP_NEAR.o ADRP_FAR.o ADRP_BOTH.o   (objects from tests/aarch64)
 * The test maps far_fn (code) and far_data in pages more than 9 GiB from every other
 * mapping and gives them to objrt with objrt_define. For each plan page size (4, 16, 64 KiB):
 *  - far-use: calls (CALL26, JUMP26) go through one veneer for the one (far_fn, 0) target,
 *    the GOT load reads far_data, and a call within reach stays direct;
 *  - adrp-near: control, a direct ADRP to the test's own near_data loads and reads it;
 *  - adrp-far: a direct ADRP to far_data alone: placed within reach (value read) or refused
 *    naming far_data, never a truncated page offset;
 *  - adrp-both: ADRP to near_data and far_data (> 8 GiB apart) is refused with an error
 *    naming one of them.
 * Reports through tests/report.h (T_LIST=1 lists the checks); exits 1 when a check failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "objrt.h"
#include "report.h"

#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)

int near_data = 0x1234;

static const size_t pages[] = { 4096, 16384, 65536 };
static const char *const checks[] = { "far-use", "adrp-near", "adrp-far", "adrp-both" };

/* One line per check and page: "aarch64 far-host NAME page PAGE". */
static void report(const char *name, size_t page, int ok, const char *why)
{
    char full[128];
    snprintf(full, sizeof full, "aarch64 far-host %s page %zu", name, page);
    t_report(full, ok, "%s", why);
}

/* Distance from [lo, hi) to the nearest other mapping of this process. */
static uint64_t isolation(uint64_t lo, uint64_t hi)
{
    FILE *f = fopen("/proc/self/maps", "re");
    unsigned long long a, b;
    char line[512];
    uint64_t best = UINT64_MAX;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%llx-%llx", &a, &b) != 2 || (a == lo && b == hi))
            continue;
        uint64_t d = b <= lo ? lo - b : a >= hi ? a - hi : 0;
        if (d < best)
            best = d;
    }
    if (f)
        fclose(f);
    return best;
}

static void *far_page(void)
{
    static const uint64_t hints[] = { 0x600000000000, 0x500000000000, 0x400000000000,
                                      0x300000000000, 0x200000000000, 0x680000000000 };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        void *p = mmap((void *)(uintptr_t)hints[i], 4096, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            continue;
        if (isolation((uintptr_t)p, (uintptr_t)p + 4096) > 9 * GIB)
            return p;
        munmap(p, 4096);
    }
    return NULL;
}

static uint64_t dist(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x > y ? x - y : y - x;
}

static objrt_ctx *context(size_t page, void *far_fn, int *far_data)
{
    objrt_ctx *ctx = objrt_new();
    objrt_options opt = { .page_size = page };
    if (!ctx || objrt_set_options(ctx, &opt) || objrt_define(ctx, "far_fn", far_fn) ||
        objrt_define(ctx, "far_data", far_data) || objrt_define(ctx, "near_data", &near_data)) {
        fprintf(stderr, "far_host: context setup failed\n");
        exit(2);
    }
    return ctx;
}

static objrt_unit *load(objrt_ctx *ctx, const char *path)
{
    return objrt_load(ctx, &path, 1);
}

static void far_use(size_t page, const char *obj, void *far_fn, int *far_data)
{
    objrt_ctx *ctx = context(page, far_fn, far_data);
    objrt_unit *u = load(ctx, obj);
    char why[512];
    if (!u) {
        snprintf(why, sizeof why, "load failed: %s", objrt_error(ctx));
        report("far-use", page, 0, why);
        objrt_free(ctx);
        return;
    }
    int (*call)(void) = (int (*)(void))(uintptr_t)objrt_unit_sym(u, "use_call");
    int (*tail)(void) = (int (*)(void))(uintptr_t)objrt_unit_sym(u, "use_tail");
    int (*got)(void) = (int (*)(void))(uintptr_t)objrt_unit_sym(u, "use_got");
    int (*near)(void) = (int (*)(void))(uintptr_t)objrt_unit_sym(u, "near_call");
    objrt_stats st;
    objrt_unit_stats(u, &st);
    uint64_t d = dist((void *)(uintptr_t)call, far_fn);
    int rc = call(), rt = tail(), rg = got(), rn = near();
    snprintf(why, sizeof why, "distance %#llx (must exceed 4 GiB), use_call %d (43), use_tail %d "
             "(42), use_got %#x (0x5eed), near_call %d (7), stubs %zu (1), calls through a stub "
             "%zu (2)", (unsigned long long)d, rc, rt, rg, rn, st.stubs, st.stubs_used);
    report("far-use", page, d > 4 * GIB && rc == 43 && rt == 42 && rg == 0x5eed && rn == 7 &&
           st.stubs == 1 && st.stubs_used == 2, why);
    objrt_unload(u);
    objrt_free(ctx);
}

static void adrp_near(size_t page, const char *obj, void *far_fn, int *far_data)
{
    objrt_ctx *ctx = context(page, far_fn, far_data);
    objrt_unit *u = load(ctx, obj);
    char why[512];
    snprintf(why, sizeof why, "load failed: %s", objrt_error(ctx));
    if (u) {
        int (*rd)(void) = (int (*)(void))(uintptr_t)objrt_unit_sym(u, "read_near");
        int v = rd();
        snprintf(why, sizeof why, "read_near %#x, expected 0x1234", v);
        report("adrp-near", page, v == 0x1234, why);
        objrt_unload(u);
    } else {
        report("adrp-near", page, 0, why);
    }
    objrt_free(ctx);
}

static void adrp_far(size_t page, const char *obj, void *far_fn, int *far_data)
{
    objrt_ctx *ctx = context(page, far_fn, far_data);
    objrt_unit *u = load(ctx, obj);
    char why[768];
    if (u) {
        int (*rd)(void) = (int (*)(void))(uintptr_t)objrt_unit_sym(u, "read_far");
        int v = rd();
        snprintf(why, sizeof why, "placed, read_far %#x, expected 0x5eed", v);
        report("adrp-far", page, v == 0x5eed && dist((void *)(uintptr_t)rd, far_data) < 4 * GIB,
               why);
        objrt_unload(u);
    } else {
        const char *e = objrt_error(ctx);
        snprintf(why, sizeof why, "refused without naming far_data: %s", e);
        report("adrp-far", page, strstr(e, "far_data") != NULL, why);
    }
    objrt_free(ctx);
}

static void adrp_both(size_t page, const char *obj, void *far_fn, int *far_data)
{
    objrt_ctx *ctx = context(page, far_fn, far_data);
    objrt_unit *u = load(ctx, obj);
    char why[768];
    if (u) {
        report("adrp-both", page, 0, "loaded, but no address reaches both near_data and far_data");
        objrt_unload(u);
    } else {
        const char *e = objrt_error(ctx);
        snprintf(why, sizeof why, "error does not name the data: %s", e);
        if (getenv("FAR_HOST_VERBOSE"))
            fprintf(stderr, "adrp-both: %s\n", e);
        report("adrp-both", page, strstr(e, "far_data") || strstr(e, "near_data"), why);
    }
    objrt_free(ctx);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: far_host FAR_USE.o ADRP_NEAR.o ADRP_FAR.o ADRP_BOTH.o\n");
        return 2;
    }
    if (t_listing()) {
        t_harness("aarch64 far-host setup far_data beyond 8 GiB of near_data", 1, " ");
        for (size_t i = 0; i < 3; i++)
            for (size_t c = 0; c < 4; c++)
                report(checks[c], pages[i], 1, "");
        return 0;
    }
    /* far_fn: mov w0, #42; ret */
    uint32_t *code = far_page();
    int *data = far_page();
    if (!code || !data) {
        t_harness("aarch64 far-host setup far_data beyond 8 GiB of near_data", 0,
                  "no page more than 9 GiB from every mapping");
        return 1;
    }
    code[0] = 0x52800540;
    code[1] = 0xd65f03c0;
    __builtin___clear_cache((char *)code, (char *)(code + 2));
    if (mprotect(code, 4096, PROT_READ | PROT_EXEC)) {
        perror("mprotect");
        return 2;
    }
    *data = 0x5eed;
    t_harness("aarch64 far-host setup far_data beyond 8 GiB of near_data", dist(data, &near_data) > 8 * GIB,
              "far page too close");
    for (size_t i = 0; i < 3; i++) {
        far_use(pages[i], argv[1], code, data);
        adrp_near(pages[i], argv[2], code, data);
        adrp_far(pages[i], argv[3], code, data);
        adrp_both(pages[i], argv[4], code, data);
    }
    return t_exit_status();
}

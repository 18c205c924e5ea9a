/*
 * t_reach.c - 32-bit PC-relative references to far targets: placed in reach, or refused
 * when no placement can reach them all.
 * (x86_64 only: the fixtures are -fno-pic x86_64 objects with R_X86_64_PC32.)
 *
 * usage: t_reach REACH_DATA.o REACH_TWO.o REACH_CALL.o ABS32.o
 *  - far-data: reach_far_value lives in a page mapped > 4 GiB from every other mapping.
 *    objrt must place the unit within reach (and reach_get() reads the value), never
 *    with a silently truncated displacement.
 *  - control near-data: reach_far_value is an ordinary global of this test: must load.
 *  - two-far: reach_far_a and reach_far_b > 4 GiB apart: no placement reaches both, the
 *    error must name one of them.
 *  - far-call: reach_far_fn is code in a far page; the PLT32 call must work (stub).
 *  - abs32: -fno-pic array indexing (R_X86_64_32S): placed below 2 GiB and correct.
 */
#include "t_common.h"

#define GIB ((uintptr_t)1 << 30)

static const char *g_data_o, *g_two_o, *g_call_o, *g_abs32_o;
int reach_near_value = 0x7717;

/* Distance from [lo,hi) to the nearest other mapping. */
static uintptr_t isolation(uintptr_t lo, uintptr_t hi)
{
    static t_map maps[8192];
    int n = t_maps_read(maps, 8192);
    uintptr_t best = UINTPTR_MAX;
    for (int i = 0; i < n && i < 8192; i++) {
        if (maps[i].lo == lo && maps[i].hi == hi) continue;      /* itself */
        uintptr_t d = maps[i].hi <= lo ? lo - maps[i].hi : maps[i].lo >= hi ? maps[i].lo - hi : 0;
        if (d < best) best = d;
    }
    return best;
}

/* Map one page that lies more than 4 GiB (+ margin) from every other mapping. */
static void *far_page(void)
{
    static const uintptr_t hints[] = { 0x600000000000, 0x500000000000, 0x400000000000, 0x300000000000,
                                       0x200000000000, 0x680000000000, 0x700000000000, 0x180000000000 };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        void *p = mmap((void *)hints[i], 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) continue;
        uintptr_t a = (uintptr_t)p;
        if (isolation(a, a + 4096) > 5 * GIB) return p;
        munmap(p, 4096);
    }
    return NULL;
}

static objrt_unit *load1(objrt_ctx *ctx, const char *path)
{
    const char *paths[1] = { path };
    return objrt_load(ctx, paths, 1);
}

/* far-data: a host variable in a page 5 GiB from everything; the unit must be placed
 * within a PC32's reach of it (2 GiB) and read it correctly. */
static int run_far_data(void *arg, char *why, size_t whylen)
{
    (void)arg;
    int *far = far_page();
    if (!far) { snprintf(why, whylen, "setup: could not map a page 5 GiB from everything"); return 0; }
    *far = 0x5eed1234;
    objrt_ctx *ctx = objrt_new();
    objrt_define(ctx, "reach_far_value", far);
    objrt_unit *u = load1(ctx, g_data_o);
    uintptr_t code = u ? (uintptr_t)objrt_unit_sym(u, "reach_get") : 0;
    uintptr_t dist = code > (uintptr_t)far ? code - (uintptr_t)far : (uintptr_t)far - code;
    if (u && dist >= 2 * GIB) {
        snprintf(why, whylen, "loaded with reach_get at %#lx, %lu MiB from reach_far_value %p: a PC32 cannot reach",
                 (unsigned long)code, (unsigned long)(dist >> 20), (void *)far);
        return 0;
    }
    return t_call_unload(ctx, u, "reach_get", 0x5eed1234, why, whylen);
}

static int run_near_data(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_define(ctx, "reach_far_value", &reach_near_value);
    return t_call_unload(ctx, load1(ctx, g_data_o), "reach_get", 0x7717, why, whylen);
}

static int load_two(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_unit *u = load1(ctx, g_two_o);
    if (u) {
        snprintf(why, whylen, "loaded although no placement reaches both symbols");
        objrt_unload(u);
        return 0;
    }
    if (!t_check_error(ctx, NULL, NULL, why, whylen)) return 0;
    const char *err = objrt_error(ctx);
    if (!strstr(err, "reach_far_a") && !strstr(err, "reach_far_b")) {
        snprintf(why, whylen, "error names neither reach_far_a nor reach_far_b: %s", err);
        return 0;
    }
    return 1;
}

static int run_two_far(void *arg, char *why, size_t whylen)
{
    (void)arg;
    int *a = far_page(), *b = far_page();
    if (!a || !b) { snprintf(why, whylen, "setup: could not map two isolated far pages"); return 0; }
    uintptr_t d = (uintptr_t)a > (uintptr_t)b ? (uintptr_t)a - (uintptr_t)b : (uintptr_t)b - (uintptr_t)a;
    if (d < 4 * GIB) { snprintf(why, whylen, "setup: far pages only %lu MiB apart", (unsigned long)(d >> 20)); return 0; }
    *a = 1; *b = 2;
    objrt_ctx *ctx = objrt_new();
    objrt_define(ctx, "reach_far_a", a);
    objrt_define(ctx, "reach_far_b", b);
    int ok = t_fails_cleanly(ctx, load_two, NULL, why, whylen);
    objrt_free(ctx);
    return ok;
}

/* far-call: a host function in an isolated page, called through PLT32. */
static int run_far_call(void *arg, char *why, size_t whylen)
{
    (void)arg;
    unsigned char *code = far_page();
    if (!code) { snprintf(why, whylen, "setup: could not map a far page"); return 0; }
    static const unsigned char fn[] = { 0xb8, 0x2a, 0x2a, 0x00, 0x00, 0xc3 };   /* mov $0x2a2a,%eax; ret */
    memcpy(code, fn, sizeof fn);
    if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0) { snprintf(why, whylen, "mprotect: %s", strerror(errno)); return 0; }
    objrt_ctx *ctx = objrt_new();
    objrt_define(ctx, "reach_far_fn", code);
    objrt_unit *u = load1(ctx, g_call_o);
    if (!u) { snprintf(why, whylen, "PLT32 call to a far function did not load: %s", objrt_error(ctx)); return 0; }
    int (*call)(void) = (int (*)(void))objrt_unit_sym(u, "reach_call");
    int v = call ? call() : -1;
    objrt_stats st;
    memset(&st, 0, sizeof st);
    objrt_unit_stats(u, &st);
    objrt_unload(u);
    objrt_free(ctx);
    if (v != 0x2a2b) { snprintf(why, whylen, "reach_call() returned 0x%x, expected 0x2a2b", v); return 0; }
    fprintf(stderr, "t_reach: far-call stubs=%zu stubs_used=%zu\n", st.stubs, st.stubs_used);
    return 1;
}

/* abs32: R_X86_64_32S needs the unit within +-2 GiB of 0: it must be placed there. */
static int run_abs32(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = load1(ctx, g_abs32_o);
    uintptr_t table = u ? (uintptr_t)objrt_unit_sym(u, "abs32_table") : 0;
    if (table >= ((uintptr_t)1 << 31)) {
        snprintf(why, whylen, "loaded with abs32_table at %#lx, beyond what a 32S can hold", (unsigned long)table);
        return 0;
    }
    int (*get)(long) = u ? (int (*)(long))objrt_unit_sym(u, "abs32_get") : NULL;
    int v = get ? get(3) : -1;
    if (!t_call_unload(ctx, u, NULL, 0, why, whylen)) return 0;
    if (v != 13) { snprintf(why, whylen, "abs32_get(3) = %d, expected 13", v); return 0; }
    return 1;
}

/* Negative control of the setup: the far page really is isolated, a normal one is not. */
static int run_isolation_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    void *far = far_page();
    void *near = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!far) { snprintf(why, whylen, "no isolated far page"); return 0; }
    if (isolation((uintptr_t)near, (uintptr_t)near + 4096) > 4 * GIB) {
        snprintf(why, whylen, "isolation check says an ordinary mmap is > 4 GiB from everything");
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 5, "REACH_DATA.o REACH_TWO.o REACH_CALL.o ABS32.o");
    g_data_o = argv[1]; g_two_o = argv[2]; g_call_o = argv[3]; g_abs32_o = argv[4];
    t_harness_case("reach-control-isolation-check", run_isolation_control, NULL);
    static const t_entry cases[] = {
        { "reach-control-near-data-loads", run_near_data, NULL },
        { "reach-far-data-placed-within-reach", run_far_data, NULL },
        { "reach-two-far-data-refused", run_two_far, NULL }, { "reach-far-call-through-stub", run_far_call, NULL },
        { "reach-abs32s-placed-below-2gib", run_abs32, NULL },
    };
    t_cases(cases, sizeof cases / sizeof cases[0]);
    return t_exit_status();
}

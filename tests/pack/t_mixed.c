/*
 * t_mixed.c - t_mixed DIR: in a pack_small context, small units (DIR/u<v>.o) interleaved
 * with units that must not share pages or may only where their references allow
 * (DIR/mixed-{big,tls,far,near}.o, tests/pack/mixed.c). Cases:
 *   pack-mixed-big, pack-mixed-tls   placed on their own pages, and right
 *   pack-mixed-far-data              a PC-relative reference to host data far from the
 *                                    arena: on its own pages in reach, and right
 *   pack-mixed-near-data             the same reference to a packed unit's data: packed
 *   pack-mixed-neighbours            the small units around them are packed and right;
 *                                    after unloading everything no arena is left
 */
#include "../robustness/t_common.h"

static int zero_fn(int x) { (void)x; return 0; }
static int zero;
static int far_data = 40;               /* in the executable: far from the arena's mappings */

static objrt_unit *load(objrt_ctx *ctx, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const char *p = path;
    objrt_unit *u = objrt_load(ctx, &p, 1);
    if (!u)
        fprintf(stderr, "t_mixed: %s: %s\n", name, objrt_error(ctx));
    return u;
}

static int packed(objrt_unit *u)
{
    objrt_stats s;
    return u && objrt_unit_stats(u, &s) == 0 ? (int)s.packed : -1;
}

static int call(objrt_unit *u, const char *fn, int x)
{
    int (*f)(int) = u ? (int (*)(int))objrt_unit_sym(u, fn) : NULL;
    return f ? f(x) : -12345;
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 2, "DIR");
    static const char *const names[] = { "pack-mixed-big", "pack-mixed-tls", "pack-mixed-far-data",
                                         "pack-mixed-near-data", "pack-mixed-neighbours", NULL };
    t_declare(names);
    unsetenv("OBJRT_PACK");
    objrt_ctx *ctx = objrt_new();
    objrt_options o = { .pack_small = 1 };
    objrt_set_options(ctx, &o);
    objrt_define(ctx, "prev", (void *)zero_fn);
    objrt_define(ctx, "prev_g", &zero);
    objrt_unit *small[5];
    small[0] = load(ctx, argv[1], "u1.o");
    objrt_unit *big = load(ctx, argv[1], "mixed-big.o");
    small[1] = load(ctx, argv[1], "u2.o");
    objrt_unit *tls = load(ctx, argv[1], "mixed-tls.o");
    small[2] = load(ctx, argv[1], "u3.o");
    objrt_define(ctx, "near", &far_data);
    objrt_unit *far = load(ctx, argv[1], "mixed-far.o");
    small[3] = load(ctx, argv[1], "u4.o");
    int *g4 = small[3] ? objrt_unit_sym(small[3], "g") : NULL;
    objrt_define(ctx, "near", g4 ? (void *)g4 : (void *)&zero);
    objrt_unit *near = load(ctx, argv[1], "mixed-near.o");
    small[4] = load(ctx, argv[1], "u5.o");

    t_report("pack-mixed-big", big && packed(big) == 0 && call(big, "m", 1) == 6 &&
             call(big, "m", 0) == 3, "packed %d, m(1) %d", packed(big), call(big, "m", 1));
    int t1 = call(tls, "m", 1), t2 = call(tls, "m", 2);
    t_report("pack-mixed-tls", tls && packed(tls) == 0 && t1 == 8 && t2 == 10,
             "packed %d, m(1) %d m(2) %d", packed(tls), t1, t2);
    t_report("pack-mixed-far-data", far && packed(far) == 0 && call(far, "m", 2) == 42,
             "packed %d, m(2) %d (expected 42)", packed(far), call(far, "m", 2));
    int want_near = g4 ? *g4 + 2 : -1;
    t_report("pack-mixed-near-data", near && packed(near) == 1 && call(near, "m", 2) == want_near,
             "packed %d, m(2) %d (expected %d)", packed(near), call(near, "m", 2), want_near);
    int ok = 1;
    for (int i = 0; i < 5; i++) {
        int v = i + 1;      /* unit.c variant v with g untouched (1000 + v), prev 0 */
        int want = 1000 + v + ((3 * 7 + v) % 101) * (v + 1);
        for (int s = 0; s < 1 + (v * 5) % 24; s++)
            want += ((((3 + s) % (4 + (v * 37) % 120)) * 7 + v) % 101) ^ s;
        if (packed(small[i]) != 1 || call(small[i], "f", 3) != want)
            ok = 0;
    }
    objrt_unit *all[] = { small[4], near, small[3], far, small[2], tls, small[1], big, small[0] };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (all[i] && objrt_unload(all[i]))
            ok = 0;
    objrt_memory m;
    objrt_memory_usage(ctx, &m);
    t_report("pack-mixed-neighbours", ok && m.arena_blocks == 0,
             "a small unit not packed or wrong, an unload refused, or %zu arena blocks left",
             m.arena_blocks);
    objrt_free(ctx);
    return t_exit_status();
}

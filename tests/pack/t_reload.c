/*
 * t_reload.c - code loaded where other code ran before must be the code that runs
 * (issue 23 item 3). Units u1.o .. u3.o and k.o (reload.c -DVAL=1..3 and 9,
 * compiled by 34-pack) define the same function, value(), returning VAL. Each case loads
 * k (kept loaded: its chunk keeps the page and the arena block alive), then loads u1,
 * calls it, unloads it, loads u2 into the same context, then u3, checking that each load
 * took the address the previous unit ran at (else the case proves nothing: it fails) and
 * returns its own value, and that k still returns 9.
 *   packed:    pack_small=1, the arena chunk freed by the unload is taken again; the
 *              bytes are written through the write alias, never through the view that runs.
 *   unpacked:  pack_small=0, the reservation the unload kept (place.c) is taken again.
 * Under qemu-user the packed case returned 1, 1, 1 before arena.c mapped the code page
 * again after the write (qemu keeps its translation of the page and ignores the cache
 * flush). Each case runs 50 rounds. Usage: t_reload DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <objrt.h>
#include "../robustness/t_common.h"

#define ROUNDS 50

static unsigned char *g_obj[4];        /* u1, u2, u3, k */
static size_t g_size[4];

static int reload(int pack, char *why, size_t len)
{
    objrt_ctx *ctx = objrt_new();
    objrt_options o = { .pack_small = pack };
    if (!ctx || objrt_set_options(ctx, &o)) {
        snprintf(why, len, "context: %s", ctx ? objrt_error(ctx) : "objrt_new failed");
        objrt_free(ctx);
        return 0;
    }
    objrt_unit *keep = t_load_mem(ctx, "k.o", g_obj[3], g_size[3]);
    int (*kv)(void) = keep ? (int (*)(void))(uintptr_t)objrt_unit_sym(keep, "value") : NULL;
    int ok = kv && kv() == 9;
    if (!ok)
        snprintf(why, len, "k.o: %s", kv ? "value() is not 9" : objrt_error(ctx));
    void *at = NULL;
    for (int round = 0; ok && round < ROUNDS; round++)
        for (int v = 0; ok && v < 3; v++) {
            char name[16];
            snprintf(name, sizeof name, "u%d.o", v + 1);
            objrt_unit *u = t_load_mem(ctx, name, g_obj[v], g_size[v]);
            int (*value)(void) = u ? (int (*)(void))(uintptr_t)objrt_unit_sym(u, "value") : NULL;
            objrt_stats s;
            if (!value || objrt_unit_stats(u, &s)) {
                snprintf(why, len, "round %d: load of %s: %s", round, name, objrt_error(ctx));
                ok = 0;
            } else if (s.packed != (size_t)pack) {
                snprintf(why, len, "round %d: %s packed=%zu, expected %d", round, name, s.packed, pack);
                ok = 0;
            } else if (at && (void *)value != at) {
                snprintf(why, len, "round %d: %s at %p, not where the previous unit ran (%p)",
                         round, name, (void *)value, at);
                ok = 0;
            } else if (value() != v + 1) {
                snprintf(why, len, "round %d: %s returned %d, expected %d (the previous unit's code ran)",
                         round, name, value(), v + 1);
                ok = 0;
            }
            at = (void *)value;
            if (u)
                objrt_unload(u);
        }
    if (ok && kv() != 9) {
        snprintf(why, len, "k.o's value() is %d after the reloads, not 9", kv());
        ok = 0;
    }
    objrt_free(ctx);
    return ok;
}

int main(int argc, char **argv)
{
    static const char *const names[] = { "reload-packed-same-chunk-new-code",
                                         "reload-unpacked-same-reservation-new-code", NULL };
    t_declare(names);
    if (argc != 2) {
        fprintf(stderr, "usage: t_reload DIR\n");
        return 2;
    }
    for (int v = 0; v < 4; v++) {
        char path[4096];
        if (v < 3)
            snprintf(path, sizeof path, "%s/u%d.o", argv[1], v + 1);
        else
            snprintf(path, sizeof path, "%s/k.o", argv[1]);
        g_obj[v] = t_read_file(path, &g_size[v]);
    }
    char why[512] = "";
    t_report(names[0], reload(1, why, sizeof why), "%s", why);
    why[0] = '\0';
    t_report(names[1], reload(0, why, sizeof why), "%s", why);
    return t_exit_status();
}

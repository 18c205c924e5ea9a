/*
 * t_walkpaths.c - the fast and the full path over relocations (src/sites/sites.h) write
 * the same image.
 *
 * usage: t_walkpaths NAME FILE...
 * The files are loaded as one unit (constructors off, pages of its own), copied and
 * unloaded; the same files are loaded again with OBJRT_FULL_WALK=1, which takes the
 * unloaded unit's reservation (reuse, place.c), so every address is the same and the two
 * images must match byte for byte: code, read-only data with the GOT and stubs, writable
 * data. Cases:
 *   NAME same-base              the second load took the first's reservation
 *   NAME fast-equals-full       every group identical (the first difference is named:
 *                               group, offset, and the section and symbol objrt_addr_info
 *                               finds there)
 *   HARNESS NAME control-planted-byte   the comparison finds one byte changed in the copy
 * Needs the objrt_unit layout (white box: base/context.h).
 */
#include <objrt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/context.h"
#include "report.h"

static const char *group_name[GRP_COUNT] = { "RX", "R", "RW" };

typedef struct image {
    uint8_t *base;
    uint8_t *bytes[GRP_COUNT];
    uint64_t off[GRP_COUNT], size[GRP_COUNT];
} image;

static objrt_unit *load(objrt_ctx *ctx, char **files, int n, const char *full)
{
    setenv("OBJRT_FULL_WALK", full, 1);
    objrt_unit *u = objrt_load(ctx, (const char *const *)files, (size_t)n);
    unsetenv("OBJRT_FULL_WALK");
    return u;
}

static int copy_image(const objrt_unit *u, image *im)
{
    im->base = u->base;
    for (int g = 0; g < GRP_COUNT; g++) {
        im->off[g] = u->group_off[g];
        im->size[g] = u->group_size[g];
        im->bytes[g] = malloc(im->size[g] ? im->size[g] : 1);
        if (!im->bytes[g])
            return -1;
        memcpy(im->bytes[g], u->base + u->group_off[g], u->group_size[g]);
    }
    return 0;
}

/* 0 when u's groups hold exactly im's bytes; else the first difference, described. */
static int compare(objrt_ctx *ctx, const objrt_unit *u, const image *im, char *why, size_t len)
{
    for (int g = 0; g < GRP_COUNT; g++) {
        if (u->group_off[g] != im->off[g] || u->group_size[g] != im->size[g]) {
            snprintf(why, len, "group %s laid out differently", group_name[g]);
            return 1;
        }
        const uint8_t *now = u->base + u->group_off[g];
        for (uint64_t i = 0; i < im->size[g]; i++) {
            if (now[i] == im->bytes[g][i])
                continue;
            objrt_location loc;
            memset(&loc, 0, sizeof loc);
            objrt_addr_info(ctx, now + i, &loc);
            snprintf(why, len, "group %s offset 0x%llx (%s %s+0x%zx): fast 0x%02x, full 0x%02x",
                     group_name[g], (unsigned long long)i, loc.section ? loc.section : "-",
                     loc.symbol ? loc.symbol : "-", loc.offset, im->bytes[g][i], now[i]);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: t_walkpaths NAME FILE...\n");
        return 2;
    }
    const char *name = argv[1];
    char c_same[160], c_equal[160], c_control[160], h_control[170];
    snprintf(c_same, sizeof c_same, "%s same-base", name);
    snprintf(c_equal, sizeof c_equal, "%s fast-equals-full", name);
    snprintf(c_control, sizeof c_control, "%s control-planted-byte", name);
    snprintf(h_control, sizeof h_control, "HARNESS %s", c_control);
    t_declare((const char *const[]){ c_same, c_equal, h_control, NULL });

    objrt_ctx *ctx = objrt_new();
    objrt_options opt = { .no_constructors = 1 };
    if (!ctx || objrt_set_options(ctx, &opt) || objrt_add_library(ctx, "m")) {
        t_report(c_same, 0, "context: %s", ctx ? objrt_error(ctx) : "objrt_new failed");
        return 1;
    }
    setenv("OBJRT_PACK", "0", 1);           /* pages of its own: the reservation is reused */
    setenv("OBJRT_REUSE", "1", 1);
    image im = { 0 };
    objrt_unit *u = load(ctx, argv + 2, argc - 2, "0");
    if (!u || copy_image(u, &im)) {
        t_report(c_same, 0, "fast load: %s", u ? "out of memory" : objrt_error(ctx));
        return 1;
    }
    objrt_unload(u);
    objrt_memory m = { 0 };
    objrt_memory_usage(ctx, &m);
    u = load(ctx, argv + 2, argc - 2, "1");
    if (!u) {
        t_report(c_same, 0, "full load: %s", objrt_error(ctx));
        return 1;
    }
    t_report(c_same, u->base == im.base, "the full load is at %p, the fast one was at %p "
             "(%zu bytes, unloaded: %zu spare reservations of %zu bytes): nothing to compare",
             (void *)u->base, (void *)im.base, (size_t)u->size, m.spare_reservations,
             m.spare_bytes);
    if (u->base != im.base)
        return 1;
    char why[512];
    t_report(c_equal, !compare(ctx, u, &im, why, sizeof why), "%s", why);
    /* The control: one byte of the copy changed in the middle of the code is found. */
    uint64_t at = im.size[GRP_RX] / 2;
    im.bytes[GRP_RX][at] ^= 0x5a;
    int found = compare(ctx, u, &im, why, sizeof why) && strstr(why, "group RX");
    t_harness(c_control, found, "a changed byte at RX+0x%llx went unnoticed",
              (unsigned long long)at);
    objrt_unload(u);
    for (int g = 0; g < GRP_COUNT; g++)
        free(im.bytes[g]);
    objrt_free(ctx);
    return t_exit_status();
}

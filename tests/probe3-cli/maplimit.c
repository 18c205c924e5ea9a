/*
 * maplimit.c UNIT.o fill|nofill [N] - the kernel's limit on a process's memory mappings
 * (vm.max_map_count) met by loading one small unit again and again into one context, each
 * unit unpacked (its own reservation: a few mappings each), as 25,000 tiny units met it.
 *
 * With "fill" the process first takes its mappings to within MARGIN of the limit (pages of
 * one reservation made PROT_NONE one in two, each a mapping of its own), so the limit is
 * met after a few hundred loads whatever it is. At most N loads (default 20000). Prints
 * one line per event:
 *   loaded N               the loads that succeeded before the first failure (or all N)
 *   error TEXT             objrt_error() of the load that failed
 *   after-unload OK|TEXT   after 100 units are unloaded, a load again
 * and "limit M maps C" first (the limit and the mappings at start).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "objrt.h"

#define MARGIN 600
#define MAX_UNITS 20000

static long read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f && fscanf(f, "%ld", &v) != 1)
        v = -1;
    if (f)
        fclose(f);
    return v;
}

static long count_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    while (f && (c = getc(f)) != EOF)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

/* Take the process to `target` mappings: each page made PROT_NONE in a readable run splits
 * it, one mapping more for the page and one for the rest. */
static int fill(long target)
{
    long have = count_maps(), k = (target - have) / 2;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (k <= 0)
        return 0;
    char *r = mmap(NULL, (size_t)(2 * k + 1) * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
                   MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return -1;
    for (long i = 0; i < k; i++)
        if (mprotect(r + (size_t)(2 * i + 1) * page, page, PROT_NONE) != 0)
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    static objrt_unit *units[MAX_UNITS];
    const char *path = argv[1];
    long limit = read_long("/proc/sys/vm/max_map_count");
    int n = 0, max = argc > 3 ? atoi(argv[3]) : MAX_UNITS;
    if (argc < 3 || max < 1 || max > MAX_UNITS) {
        fprintf(stderr, "usage: maplimit UNIT.o fill|nofill [N]\n");
        return 2;
    }
    printf("limit %ld maps %ld\n", limit, count_maps());
    if (strcmp(argv[2], "fill") == 0 && (limit < MARGIN || fill(limit - MARGIN) != 0)) {
        printf("fill failed\n");
        return 1;
    }
    objrt_ctx *ctx = objrt_new();
    for (; n < max && (units[n] = objrt_load(ctx, &path, 1)); n++)
        ;
    printf("loaded %d\n", n);
    if (n == max) {
        objrt_free(ctx);
        return 0;
    }
    printf("error %s\n", objrt_error(ctx));
    for (int i = 0; i < 100 && i < n; i++)
        objrt_unload(units[n - 1 - i]);
    objrt_unit *u = objrt_load(ctx, &path, 1);
    printf("after-unload %s\n", u ? "OK" : objrt_error(ctx));
    objrt_free(ctx);
    return 0;
}

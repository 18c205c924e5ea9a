/*
 * maps.c - why a mapping call failed. mmap and mprotect fail with ENOMEM, "Cannot allocate
 * memory", when the process already has as many mappings as the kernel allows
 * (vm.max_map_count, 65530 by default; an mprotect of part of a mapping splits it), with
 * gigabytes free: every unpacked unit takes a few mappings, so about 21,800 tiny units
 * reach it. The error then says that, and what to do; the files are read only on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

/* A failing call may need up to two mappings more than there are (a split run), and the
 * listing has a line the limit does not count ([vsyscall]). */
#define MAPS_SLACK 8

static long read_limit(void)
{
    FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
    long v = -1;
    if (f && fscanf(f, "%ld", &v) != 1)
        v = -1;
    if (f)
        fclose(f);
    return v;
}

/* Lines of /proc/self/maps: the process's mappings (about 60 bytes each). */
static long count_maps(void)
{
    char buf[65536];
    long n = 0;
    ssize_t got;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while ((got = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < got; i++)
            n += buf[i] == '\n';
    close(fd);
    return got < 0 ? -1 : n;
}

int objrt_fail_mapping(objrt_ctx *ctx, const char *unit, const char *what, int err)
{
    long limit = err == ENOMEM ? read_limit() : -1;
    long maps = limit > 0 ? count_maps() : -1;
    if (maps < 0 || maps + MAPS_SLACK < limit)
        return objrt_fail(ctx, "unit %s: %s: %s", unit, what, strerror(err));
    return objrt_fail(ctx, "unit %s: %s: %s: the process is at the kernel's limit on memory "
                      "mappings (vm.max_map_count = %ld; /proc/self/maps lists %ld), and each "
                      "unit that does not share pages takes a few: raise the limit (sysctl -w "
                      "vm.max_map_count=N), or let small units share pages "
                      "(objrt_options.pack_small = 1, or OBJRT_PACK=1); docs/limits.md",
                      unit, what, strerror(err), limit, maps);
}

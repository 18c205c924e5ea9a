/*
 * floor.c - what a new process pays for memory it has never touched, measured on this
 * machine in the same run as the loaders: the floor under the first link's page faults.
 *
 * usage: floor PAGES
 *
 * PAGES pages of fresh anonymous memory are made present (MADV_POPULATE_WRITE: one call,
 * the cheapest way objrt knows; the writes fault them in where it is missing) and written,
 * timed as a whole. A first link takes every page it writes fresh (a new process has none
 * from before), so its page faults (objrt_link reports them) times this price is what the
 * machine charges for them whatever the loader does with them.
 * Output: "floor pages=... pages_us=... page_ns=...".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    long pages = argc == 2 ? atol(argv[1]) : 0;
    if (pages < 1) {
        fprintf(stderr, "usage: %s PAGES\n", argv[0]);
        return 2;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE), size = (size_t)pages * page;
    double t0 = now_us();
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    madvise(p, size, MADV_POPULATE_WRITE);          /* advice: the writes fault it otherwise */
    for (size_t off = 0; off < size; off += page)
        p[off] = 1;
    double us = now_us() - t0;
    munmap(p, size);
    printf("floor pages=%ld pages_us=%.1f page_ns=%.0f\n", pages, us, us * 1e3 / (double)pages);
    return 0;
}

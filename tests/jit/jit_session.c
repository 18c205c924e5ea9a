/*
 * jit_session.c - a JIT session as a C host sees it: DIR/m0.o .. m<N-1>.o (gen_session.py)
 * loaded one by one as units of one context, each bound to earlier units; every FAR-th
 * unit a 5 GiB hole is reserved first, so later units land more than 4 GiB away from the
 * units they reference. Then f_i(5) of every loaded unit is checked against DIR/expected.
 *     jit_session DIR N PAGE_SIZE FAR
 * Prints one line: "loaded=<n> checked=<n> wrong=<n> max_distance=<bytes> refused=<message>"
 * and exits 0 when no loaded unit computes a wrong value (a refused load is not an error:
 * references that cannot reach must be refused, never linked wrong).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <objrt.h>

static uint64_t distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: jit_session DIR N PAGE_SIZE FAR\n");
        return 2;
    }
    const char *dir = argv[1];
    int n = atoi(argv[2]), far = atoi(argv[4]);
    objrt_ctx *ctx = objrt_new();
    objrt_options opt = { .page_size = (size_t)atol(argv[3]) };
    if (!ctx || objrt_set_options(ctx, &opt)) {
        fprintf(stderr, "jit_session: %s\n", ctx ? objrt_error(ctx) : "out of memory");
        return 2;
    }
    uint64_t (**fn)(uint64_t) = calloc((size_t)n, sizeof *fn);
    uint64_t *addr = calloc((size_t)n, sizeof *addr);
    char refused[600] = "none", path[4096], name[32];
    int loaded = 0;
    uint64_t maxd = 0;
    for (int i = 0; i < n; i++) {
        if (far > 0 && i > 0 && i % far == 0)   /* kept for the whole session */
            (void)mmap(NULL, (size_t)5 << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        snprintf(path, sizeof path, "%s/m%d.o", dir, i);
        const char *p = path;
        objrt_unit *u = objrt_load(ctx, &p, 1);
        if (!u) {
            snprintf(refused, sizeof refused, "%s", objrt_error(ctx));
            break;
        }
        snprintf(name, sizeof name, "f_%d", i);
        *(void **)&fn[i] = objrt_unit_sym(u, name);
        addr[i] = (uint64_t)(uintptr_t)fn[i];
        if (i > 0) {
            uint64_t d = distance(addr[i], addr[i / 2]);
            if (distance(addr[i], addr[i - 1]) > d)
                d = distance(addr[i], addr[i - 1]);
            if (d > maxd)
                maxd = d;
        }
        loaded++;
    }
    FILE *f = fopen(argv[1] ? strcat(strcpy(path, dir), "/expected") : "", "r");
    int checked = 0, wrong = 0;
    for (int i = 0; f && i < loaded; i++) {
        uint64_t want;
        if (fscanf(f, "%" SCNu64, &want) != 1)
            break;
        uint64_t got = fn[i] ? fn[i](5) : 0;
        checked++;
        if (got != want && wrong++ < 3)
            fprintf(stderr, "f_%d(5) = %" PRIu64 ", expected %" PRIu64 "\n", i, got, want);
    }
    printf("loaded=%d checked=%d wrong=%d max_distance=%" PRIu64 " refused=%s\n", loaded, checked,
           wrong, maxd, refused);
    return wrong || checked != loaded || !f ? 1 : 0;
}

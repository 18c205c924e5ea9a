/*
 * t_reuse.c - an unloaded unit's reservation is kept for the context's next load
 * (place.c), and the unit placed in it sees exactly what fresh pages would give it.
 *
 * usage: t_reuse DIR    (DIR: the shapes of tests/reuse/unit.c that 35-reuse.sh compiles)
 *
 * Each case runs in a fresh context (and, where fork works, a child of its own):
 *   same-size-taken    big.o unloaded: one spare, kept PROT_NONE at its address (maps);
 *                      small.o (same size) is placed there and the spare is gone
 *   no-stale-bytes     big.o, its writable page filled with 0xa5, unloaded; small.o in its
 *                      pages reads zero in every padding, .bss and COMMON byte (each byte
 *                      classified by objrt_addr_info), its data and read-only data intact;
 *                      also at 64 KiB plan pages (-64k-pages: longer tails to clear)
 *   larger-spare       a 4-page spare taken by a 3-page plan: the tail page is given back
 *   bigger-plan        a 4-page plan does not take a 3-page spare; the load releases it
 *   window (x86_64)    a unit whose R_X86_64_32S need the base below 2 GiB does not take
 *                      a spare above; a spare below 2 GiB is taken by the next such unit
 *   alignment          a plan whose base must be 1 MiB-aligned takes a spare iff its base is
 *   zero-run-given-back  a 2 MiB .bss written by the previous unit reads zero and is given
 *                      back (RSS drops), not cleared by a memset (x86_64: RSS is qemu's
 *                      under qemu-user)
 *   spare-pages-lazily-freed  a kept spare's written pages are LazyFree in smaps (x86_64)
 *   switch-env, switch-option   OBJRT_REUSE=0 / objrt_options.no_reuse: nothing kept;
 *                      OBJRT_REUSE=1 overrides no_reuse
 *   bounded-count      6 unloads keep the last 4; objrt_free returns them, and the pages
 *                      of a unit it unloads itself
 *   bounded-bytes      a 65 MiB reservation is not kept; 30 MiB ones: at most 64 MiB kept
 *   released-by-next-load  a failed load still returns the spare it did not take
 *   no-wx (threads)    a thread polls /proc/self/maps while 300 reuse cycles run
 *   fork (fork)        a spare inherited by a child: child and parent each reuse their copy
 *   fresh-unit-mapping (maps)  a fresh unit of 1.3 MB of .rodata, and one of 3.5 MB (a
 *                      whole 2 MiB block, which gets a huge page and puts the unit on a
 *                      2 MiB boundary, and a partial one, which stays in small pages): its
 *                      content is right and nothing is mapped past its plan; x86_64: also
 *                      compiled -fno-pic (R_X86_64_32: a window below 4 GiB, placed from
 *                      the process's map), which must also land below 4 GiB
 * Controls (HARNESS): the stale-byte check sees a byte planted in .bss and in padding, and
 * the previous unit had nonzero bytes under the bytes it checks; the poller catches an
 * rwx window; the past-the-end check sees a reservation that was not cut back. Under qemu-user (T_NO_MAPS) the cases that read
 * /proc/self/maps or RSS are left out.
 */
#include <sys/resource.h>

#include "t_wxpoll.h"

#define MIB ((size_t)1 << 20)

static const char *g_dir;

static objrt_unit *load(objrt_ctx *ctx, const char *shape)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.o", g_dir, shape);
    const char *p = path;
    return objrt_load(ctx, &p, 1);
}

/* load(), and on failure the reason ("SHAPE.o: error") in why. */
static objrt_unit *load_why(objrt_ctx *ctx, const char *shape, char *why, size_t whylen)
{
    objrt_unit *u = load(ctx, shape);
    if (!u)
        snprintf(why, whylen, "%s.o: %s", shape, objrt_error(ctx));
    return u;
}

static uintptr_t base_of(objrt_unit *u)
{
    void *(*f)(void) = (void *(*)(void))objrt_unit_sym(u, "reuse_base");
    return f ? (uintptr_t)f() : 0;
}

static size_t size_of(const objrt_unit *u)
{
    objrt_stats s;
    return objrt_unit_stats(u, &s) ? 0 : s.reserved_bytes;
}

static objrt_memory mem(objrt_ctx *ctx)
{
    objrt_memory m;
    memset(&m, 0xff, sizeof m);
    objrt_memory_usage(ctx, &m);
    return m;
}

/* Is [lo, lo + size) inside one inaccessible mapping (a kept spare)? */
static int kept(uintptr_t lo, size_t size)
{
#ifdef T_NO_MAPS
    (void)lo, (void)size;
    return -1;                  /* unknown: callers do not check it here */
#else
    t_map m;
    return t_maps_find(lo, &m) && m.hi >= lo + size && strncmp(m.perms, "---", 3) == 0;
#endif
}

static int kept_is(uintptr_t lo, size_t size, int want)
{
    int k = kept(lo, size);
    return k < 0 || k == want;
}

/* Bytes of the unit at [base, base + size) that must read zero (padding, .bss, COMMON)
 * and do not; the first one in *first. With `prev` (the bytes the previous unit had
 * there), *under counts the checked bytes where it had a nonzero byte. */
static size_t stale_bytes(objrt_ctx *ctx, uintptr_t base, size_t size, const unsigned char *prev,
                          size_t *under, uintptr_t *first)
{
    size_t n = 0;
    *first = 0;
    if (under)
        *under = 0;
    for (uintptr_t a = base; a < base + size; a++) {
        objrt_location loc;
        if (objrt_addr_info(ctx, (const void *)a, &loc)) {
            n++;                /* every byte of the reservation belongs to the unit */
            if (!*first)
                *first = a;
            continue;
        }
        if (loc.section && strncmp(loc.section, ".bss", 4) && strcmp(loc.section, "COMMON"))
            continue;           /* content: the unit's own bytes */
        if (under && prev[a - base])
            (*under)++;
        if (*(volatile const unsigned char *)a) {
            if (!n)
                *first = a;
            n++;
        }
    }
    return n;
}

/* The unit's writable page(s): the group holding reuse_data, up to the reservation's end. */
static void writable_range(objrt_unit *u, unsigned char **lo, unsigned char **hi)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t d = (uintptr_t)objrt_unit_sym(u, "reuse_data");
    *lo = (unsigned char *)(d & ~(uintptr_t)(page - 1));
    *hi = (unsigned char *)(base_of(u) + size_of(u));
}

/* ---- cases ---- */

static int same_size_taken(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load_why(ctx, "big", why, whylen);
    if (!a)
        return t_ctx_done(ctx, 0, why, whylen);
    uintptr_t x = base_of(a);
    size_t size = size_of(a);
    objrt_unload(a);
    objrt_memory m = mem(ctx);
    int ok = 0;
    if (m.spare_reservations != 1 || m.spare_bytes != size)
        snprintf(why, whylen, "after the unload: %zu spares of %zu bytes, expected 1 of %zu",
                 m.spare_reservations, m.spare_bytes, size);
    else if (!kept_is(x, size, 1))
        snprintf(why, whylen, "the spare at %#lx is not an inaccessible mapping", (unsigned long)x);
    else {
        objrt_unit *b = load(ctx, "small");
        m = mem(ctx);
        if (!b)
            snprintf(why, whylen, "small.o: %s", objrt_error(ctx));
        else if (size_of(b) != size)
            snprintf(why, whylen, "fixture: small.o reserves %zu bytes, big.o %zu", size_of(b), size);
        else if (base_of(b) != x)   /* x was mapped until the load: only a reuse lands there */
            snprintf(why, whylen, "small.o at %#lx, the spare at %#lx", (unsigned long)base_of(b),
                     (unsigned long)x);
        else if (m.spare_reservations || m.spare_bytes)
            snprintf(why, whylen, "%zu spares left after the load", m.spare_reservations);
        else
            ok = 1;
    }
    return t_ctx_done(ctx, ok, why, whylen);
}

struct stale_case { int control; size_t page; };

/* big.o with its writable page(s) filled, unloaded; small.o loaded: the stale-byte check,
 * and (control) the same check seeing planted bytes. At a plan page of `page` bytes. */
static int no_stale_bytes(void *arg, char *why, size_t whylen)
{
    const struct stale_case *c = arg;
    int control = c->control;
    objrt_ctx *ctx = objrt_new();
    objrt_options o = { 0 };
    o.page_size = c->page;
    objrt_set_options(ctx, &o);
    objrt_unit *a = load_why(ctx, "big", why, whylen);
    if (!a)
        return t_ctx_done(ctx, 0, why, whylen);
    uintptr_t x = base_of(a);
    size_t size = size_of(a);
    unsigned char *lo, *hi;
    writable_range(a, &lo, &hi);
    memset(lo, 0xa5, (size_t)(hi - lo));       /* data, .bss, COMMON and padding */
    unsigned char *prev = malloc(size);
    memcpy(prev, (const void *)x, size);
    objrt_unload(a);
    objrt_unit *b = load(ctx, "small");
    int ok = 0;
    uintptr_t first;
    size_t under, n;
    if (!b) {
        snprintf(why, whylen, "small.o: %s", objrt_error(ctx));
    } else if (base_of(b) != x) {
        snprintf(why, whylen, "small.o not placed in big.o's spare (%#lx, %#lx)",
                 (unsigned long)base_of(b), (unsigned long)x);
    } else if (!control) {
        int (*content_ok)(void) = (int (*)(void))objrt_unit_sym(b, "reuse_content_ok");
        size_t (*nonzero)(void) = (size_t (*)(void))objrt_unit_sym(b, "reuse_nonzero_bss");
        if ((n = stale_bytes(ctx, x, size, prev, &under, &first)))
            snprintf(why, whylen, "%zu bytes of padding, .bss or COMMON are not zero, the first "
                     "at offset %#lx", n, (unsigned long)(first - x));
        else if (nonzero())
            snprintf(why, whylen, "the unit sees %zu nonzero bytes in its .bss and COMMON", nonzero());
        else if (!content_ok())
            snprintf(why, whylen, "the unit's .data or .rodata do not hold their bytes");
        else
            ok = 1;
    } else {
        /* the check covers bytes big.o had written, and sees one planted in .bss, and one in
         * the padding after it */
        n = stale_bytes(ctx, x, size, prev, &under, &first);
        unsigned char *bss = objrt_unit_sym(b, "reuse_bss");
        bss[7] = 0x77;
        size_t planted_bss = stale_bytes(ctx, x, size, NULL, NULL, &first);
        bss[7] = 0;
        hi[-1] = 0x77;                          /* the last byte: padding after COMMON */
        size_t planted_pad = stale_bytes(ctx, x, size, NULL, NULL, &first);
        hi[-1] = 0;
        if (n)
            snprintf(why, whylen, "stale bytes before planting: %zu", n);
        else if (under < 2048)
            snprintf(why, whylen, "only %zu of the checked bytes were nonzero in big.o", under);
        else if (planted_bss != 1 || planted_pad != 1)
            snprintf(why, whylen, "planted bytes seen: %zu in .bss, %zu in padding", planted_bss,
                     planted_pad);
        else
            ok = 1;
    }
    free(prev);
    return t_ctx_done(ctx, ok, why, whylen);
}

/* Load `first`, unload it, load `second`: its base, the spare's, and both sizes. */
static objrt_unit *after_spare(objrt_ctx *ctx, const char *first, const char *second,
                               uintptr_t *x, size_t *xsize, char *why, size_t whylen)
{
    objrt_unit *a = load(ctx, first);
    if (!a) { snprintf(why, whylen, "%s.o: %s", first, objrt_error(ctx)); return NULL; }
    *x = base_of(a);
    *xsize = size_of(a);
    objrt_unload(a);
    if (mem(ctx).spare_reservations != 1) {
        snprintf(why, whylen, "%s.o was not kept", first);
        return NULL;
    }
    objrt_unit *b = load(ctx, second);
    if (!b)
        snprintf(why, whylen, "%s.o: %s", second, objrt_error(ctx));
    return b;
}

static int larger_spare(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    uintptr_t x, first;
    size_t xsize, n;
    objrt_unit *b = after_spare(ctx, "wide", "small", &x, &xsize, why, whylen);
    int ok = 0;
    if (b) {
        size_t size = size_of(b);
        if (xsize <= size)
            snprintf(why, whylen, "fixture: wide.o reserves %zu bytes, small.o %zu", xsize, size);
        else if (base_of(b) != x)
            snprintf(why, whylen, "small.o at %#lx, not in the larger spare at %#lx",
                     (unsigned long)base_of(b), (unsigned long)x);
        else if (!kept_is(x + size, xsize - size, 0))
            snprintf(why, whylen, "the spare's tail beyond the plan is still mapped");
        else if (mem(ctx).spare_reservations)
            snprintf(why, whylen, "a spare is left after the load");
        else if ((n = stale_bytes(ctx, x, size, NULL, NULL, &first)))
            snprintf(why, whylen, "%zu stale bytes, the first at offset %#lx", n,
                     (unsigned long)(first - x));
        else
            ok = 1;
    }
    return t_ctx_done(ctx, ok, why, whylen);
}

static int bigger_plan(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    uintptr_t x;
    size_t xsize;
    objrt_unit *b = after_spare(ctx, "small", "wide", &x, &xsize, why, whylen);
    int ok = 0;
    if (b) {
        if (size_of(b) <= xsize)
            snprintf(why, whylen, "fixture: wide.o reserves %zu bytes, small.o %zu", size_of(b), xsize);
        else if (base_of(b) == x)
            snprintf(why, whylen, "wide.o placed at the smaller spare's address %#lx", (unsigned long)x);
        else if (mem(ctx).spare_reservations || !kept_is(x, xsize, 0))
            snprintf(why, whylen, "the spare no load took is still kept after the load");
        else
            ok = 1;
    }
    return t_ctx_done(ctx, ok, why, whylen);
}

#ifdef __x86_64__
#define LOW_LIMIT ((uintptr_t)1 << 31)
static int window(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    uintptr_t x;
    size_t xsize;
    objrt_unit *b = after_spare(ctx, "small", "abs32", &x, &xsize, why, whylen);
    int ok = 0;
    if (b) {
        uintptr_t y = (uintptr_t)objrt_unit_sym(b, "abs32_get");
        size_t ysize = size_of(b);
        if (x < LOW_LIMIT || ysize > xsize)
            snprintf(why, whylen, "fixture: the spare (%#lx, %zu bytes) fits abs32.o (%zu bytes) "
                     "by address or not by size", (unsigned long)x, xsize, ysize);
        else if (y >= LOW_LIMIT || (y >= x && y < x + xsize))
            snprintf(why, whylen, "abs32.o at %#lx: in the spare above its window", (unsigned long)y);
        else if (mem(ctx).spare_reservations || !kept_is(x, xsize, 0))
            snprintf(why, whylen, "the spare no load took is still kept after the load");
        else {
            /* a spare inside the window is taken by the next such unit */
            uintptr_t page = y & ~(uintptr_t)4095;
            objrt_unload(b);
            objrt_unit *c = load(ctx, "abs32");
            uintptr_t z = c ? (uintptr_t)objrt_unit_sym(c, "abs32_get") : 0;
            if (!c)
                snprintf(why, whylen, "abs32.o again: %s", objrt_error(ctx));
            else if ((z & ~(uintptr_t)4095) != page)
                snprintf(why, whylen, "abs32.o again at %#lx, its spare held %#lx", (unsigned long)z,
                         (unsigned long)y);
            else
                ok = 1;
        }
    }
    return t_ctx_done(ctx, ok, why, whylen);
}
#endif

static int alignment(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    uintptr_t x;
    size_t xsize;
    objrt_unit *b = after_spare(ctx, "hugebss", "aligned", &x, &xsize, why, whylen);
    int ok = 0;
    if (b) {
        uintptr_t y = base_of(b);
        int aligned_spare = x % MIB == 0;
        if (size_of(b) > xsize)
            snprintf(why, whylen, "fixture: aligned.o (%zu bytes) is bigger than the spare (%zu)",
                     size_of(b), xsize);
        else if ((uintptr_t)objrt_unit_sym(b, "reuse_data") % MIB)
            snprintf(why, whylen, "reuse_data is not 1 MiB-aligned (base %#lx)", (unsigned long)y);
        else if ((y == x) != aligned_spare)
            snprintf(why, whylen, "the spare at %#lx (%s 1 MiB-aligned) %s", (unsigned long)x,
                     aligned_spare ? "" : "not", y == x ? "was taken" : "was not taken");
        else
            ok = 1;
        if (ok && !aligned_spare)
            fprintf(stderr, "t_reuse: alignment: the spare was misaligned and declined\n");
    }
    return t_ctx_done(ctx, ok, why, whylen);
}

#if !defined(T_NO_MAPS) && defined(__x86_64__)
/* LazyFree kB of the mapping holding addr (/proc/self/smaps), -1 when not found. */
static long lazyfree_kib(uintptr_t addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in = 0;
    long kib = -1;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)     /* a mapping's line, not a field */
            in = addr >= lo && addr < hi;
        else if (in && sscanf(line, "LazyFree: %ld kB", &kib) == 1)
            break;
    }
    if (f)
        fclose(f);
    return kib;
}

/* The pages of a kept spare are the kernel's to take back (MADV_FREE): smaps counts them as
 * LazyFree. */
static int lazily_freed(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load_why(ctx, "hugebss", why, whylen);
    int ok = 0;
    if (!a)
        return t_ctx_done(ctx, 0, why, whylen);
    uintptr_t x = base_of(a);
    ((void (*)(unsigned char))objrt_unit_sym(a, "reuse_fill_bss"))(0xa5);
    long before = lazyfree_kib(x);
    objrt_unload(a);
    long after = lazyfree_kib(x);
    if (kept(x, 4096) != 1)
        snprintf(why, whylen, "hugebss.o was not kept");
    else if (before != 0 || after < 1536)   /* most of it: the count is the kernel's */
        snprintf(why, whylen, "LazyFree %ld kB while loaded, %ld kB once kept (2 MiB .bss written)",
                 before, after);
    else
        ok = 1;
    return t_ctx_done(ctx, ok, why, whylen);
}

static int zero_run_given_back(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load_why(ctx, "hugebss", why, whylen);
    int ok = 0;
    if (!a)
        return t_ctx_done(ctx, 0, why, whylen);
    uintptr_t x = base_of(a);
    ((void (*)(unsigned char))objrt_unit_sym(a, "reuse_fill_bss"))(0xa5);
    long rss0 = t_rss_kib();
    objrt_unload(a);
    objrt_unit *b = load(ctx, "hugebss");
    long rss1 = t_rss_kib();
    if (!b)
        snprintf(why, whylen, "hugebss.o again: %s", objrt_error(ctx));
    else if (base_of(b) != x)
        snprintf(why, whylen, "hugebss.o again not placed in its spare");
    else if (((size_t (*)(void))objrt_unit_sym(b, "reuse_nonzero_bss"))())
        snprintf(why, whylen, "the 2 MiB .bss has stale bytes");
    else if (rss1 > rss0 - 1024)
        snprintf(why, whylen, "VmRSS %ld KiB with the filled .bss, %ld KiB after the next load: "
                 "the zero run was written, not given back", rss0, rss1);
    else
        ok = 1;
    return t_ctx_done(ctx, ok, why, whylen);
}
#endif

#ifndef T_NO_MAPS
#define HUGE_BLOCK ((uintptr_t)2 << 20)

/* Is anything of the reservation at `lo` mapped past lo + size: the mapping holding its
 * last byte goes on (a cut-off tail with the same permissions merges with it), or one
 * starts right at its end (a tail with other permissions)? A neighbour the kernel placed
 * later starts at the top of the free gap, not at its bottom. */
static int mapped_past(uintptr_t lo, size_t size, char *why, size_t whylen)
{
    t_map m;
    if (!t_maps_find(lo + size - 1, &m)) {
        snprintf(why, whylen, "the unit's last byte %#lx is not mapped", (unsigned long)(lo + size - 1));
        return 1;
    }
    if (m.hi != lo + size) {
        snprintf(why, whylen, "the mapping %#lx-%#lx holding the unit's last byte goes past its "
                 "end %#lx", (unsigned long)m.lo, (unsigned long)m.hi, (unsigned long)(lo + size));
        return 1;
    }
    if (t_maps_find(lo + size, &m) && m.lo == lo + size) {
        snprintf(why, whylen, "a mapping %#lx-%#lx %s starts at the unit's end", (unsigned long)m.lo,
                 (unsigned long)m.hi, m.perms);
        return 1;
    }
    return 0;
}

/* A fresh unit (shape in arg) is mapped exactly to its plan, on a 2 MiB boundary when it
 * spans a whole block (place.c, reservation_align). */
static int fresh_unit_mapping(void *arg, char *why, size_t whylen)
{
    const char *shape = arg;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load_why(ctx, shape, why, whylen);
    int ok = 0;
    if (!a)
        return t_ctx_done(ctx, 0, why, whylen);
    uintptr_t x = base_of(a);
    size_t size = size_of(a);
    if (size >= HUGE_BLOCK && x % HUGE_BLOCK)
        snprintf(why, whylen, "%s.o reserves %zu bytes at %#lx, not on a 2 MiB boundary", shape,
                 size, (unsigned long)x);
    else if (!((int (*)(void))objrt_unit_sym(a, "reuse_content_ok"))() ||
             ((size_t (*)(void))objrt_unit_sym(a, "reuse_nonzero_bss"))())
        snprintf(why, whylen, "%s.o: wrong .data/.rodata bytes or nonzero .bss", shape);
    else if (strstr(shape, "low") && x + size > (uintptr_t)1 << 32)
        snprintf(why, whylen, "%s.o at %#lx: its absolute 32-bit references need it below 4 GiB",
                 shape, (unsigned long)x);
    else if (!mapped_past(x, size, why, whylen))
        ok = 1;
    return t_ctx_done(ctx, ok, why, whylen);
}

/* Control: a 2 MiB reservation left whole, taken for a unit of 1.3 MB, is seen. */
static int huge_tail_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    uint8_t *raw = mmap(NULL, 2 * HUGE_BLOCK, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        snprintf(why, whylen, "mmap: %s", strerror(errno));
        return 0;
    }
    uintptr_t lo = ((uintptr_t)raw + HUGE_BLOCK - 1) & ~(HUGE_BLOCK - 1);
    int seen = mapped_past(lo, 1363968, why, whylen);
    munmap(raw, 2 * HUGE_BLOCK);
    if (!seen)
        snprintf(why, whylen, "a whole 2 MiB mapping at %#lx passed for a 1.3 MB reservation",
                 (unsigned long)lo);
    return seen;
}
#endif

/* OBJRT_REUSE / no_reuse: mode 0 env off, 1 option off, 2 option off but env on. */
static int switch_off(void *arg, char *why, size_t whylen)
{
    int mode = (int)(intptr_t)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_options o = { 0 };
    o.no_reuse = mode >= 1;
    objrt_set_options(ctx, &o);
    if (mode == 0)
        setenv("OBJRT_REUSE", "0", 1);
    if (mode == 2)
        setenv("OBJRT_REUSE", "1", 1);
    objrt_unit *a = load(ctx, "small");
    int ok = 0, want = mode == 2;
    if (!a) {
        snprintf(why, whylen, "small.o: %s", objrt_error(ctx));
    } else {
        uintptr_t x = base_of(a);
        size_t size = size_of(a);
        objrt_unload(a);
        objrt_memory m = mem(ctx);
        if (m.spare_reservations != (size_t)want || !kept_is(x, size, want))
            snprintf(why, whylen, "%zu spares after the unload (%s), expected %d", m.spare_reservations,
                     kept(x, size) == 1 ? "still mapped" : "unmapped", want);
        else
            ok = 1;
    }
    unsetenv("OBJRT_REUSE");
    return t_ctx_done(ctx, ok, why, whylen);
}

static int bounded_count(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u[6];
    uintptr_t at[6];
    size_t size[6];
    for (int i = 0; i < 6; i++) {
        if (!(u[i] = load(ctx, "small"))) {
            snprintf(why, whylen, "load %d: %s", i, objrt_error(ctx));
            return t_ctx_done(ctx, 0, why, whylen);
        }
        at[i] = base_of(u[i]);
        size[i] = size_of(u[i]);
    }
    for (int i = 5; i >= 0; i--)
        objrt_unload(u[i]);
    objrt_memory m = mem(ctx);
    int ok = 0, nkept = 0, oldest_kept = 0;
    for (int i = 0; i < 6; i++)
        if (kept(at[i], size[i]) == 1) {
            nkept++;
            oldest_kept |= i >= 4;      /* u[5] and u[4] went first: they are the ones dropped */
        }
    if (m.spare_reservations != 4 || m.spare_bytes != 4 * size[0])
        snprintf(why, whylen, "%zu spares of %zu bytes after 6 unloads, expected 4 of %zu",
                 m.spare_reservations, m.spare_bytes, 4 * size[0]);
#ifndef T_NO_MAPS
    else if (nkept != 4 || oldest_kept)
        snprintf(why, whylen, "%d of the 6 reservations are still mapped (%s)", nkept,
                 oldest_kept ? "one of the first unloaded among them" : "expected the last 4");
#endif
    else
        ok = 1;
    /* objrt_free returns the spares, and the pages of what it unloads itself */
    objrt_unit *last = load(ctx, "wide");
    uintptr_t last_at = last ? base_of(last) : 0;
    size_t last_size = last ? size_of(last) : 0;
    objrt_free(ctx);
    if (ok && !last) {
        snprintf(why, whylen, "wide.o: load failed");
        ok = 0;
    }
    for (int i = 0; ok && i < 6; i++)
        if (kept(at[i], size[i]) == 1) {
            snprintf(why, whylen, "reservation %d still mapped after objrt_free", i);
            ok = 0;
        }
    if (ok && kept(last_at, last_size) == 1) {
        snprintf(why, whylen, "the unit objrt_free unloaded is still mapped");
        ok = 0;
    }
    if (ok && t_leaks_now()) {
        snprintf(why, whylen, "leaked heap memory (LeakSanitizer report on stderr)");
        ok = 0;
    }
    return ok;
}

static int bounded_bytes(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *h = load_why(ctx, "bss65m", why, whylen);
    int ok = 0;
    if (!h)
        return t_ctx_done(ctx, 0, why, whylen);
    uintptr_t x = base_of(h);
    size_t xsize = size_of(h);
    objrt_unload(h);
    objrt_memory m = mem(ctx);
    if (m.spare_reservations || !kept_is(x, xsize, 0)) {
        snprintf(why, whylen, "a %zu-byte reservation was kept", xsize);
        return t_ctx_done(ctx, 0, why, whylen);
    }
    objrt_unit *u[3];
    for (int i = 0; i < 3; i++)
        if (!(u[i] = load_why(ctx, "bss30m", why, whylen)))
            return t_ctx_done(ctx, 0, why, whylen);
    size_t each = size_of(u[0]);
    for (int i = 2; i >= 0; i--)
        objrt_unload(u[i]);
    m = mem(ctx);
    if (m.spare_bytes > 64 * MIB || m.spare_reservations != (64 * MIB) / each)
        snprintf(why, whylen, "%zu spares of %zu bytes kept (each %zu), the bound is 64 MiB",
                 m.spare_reservations, m.spare_bytes, each);
    else
        ok = 1;
    return t_ctx_done(ctx, ok, why, whylen);
}

static int released_by_next_load(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load_why(ctx, "small", why, whylen);
    int ok = 0;
    if (!a)
        return t_ctx_done(ctx, 0, why, whylen);
    uintptr_t x = base_of(a);
    size_t size = size_of(a);
    objrt_unload(a);
    static const unsigned char junk[64] = "not an object";
    objrt_unit *bad = t_load_mem(ctx, "junk.o", junk, sizeof junk);
    objrt_memory m = mem(ctx);
    if (bad)
        snprintf(why, whylen, "junk loaded");
    else if (m.spare_reservations || !kept_is(x, size, 0))
        snprintf(why, whylen, "a failed load left the spare kept");
    else
        ok = 1;
    return t_ctx_done(ctx, ok, why, whylen);
}

#ifndef T_NO_MAPS          /* the poller reads /proc/self/maps */
/* Reuse cycles with a thread polling for w+x mappings; `arg`: a control that opens an rwx
 * window itself instead. */
static int no_wx(void *arg, char *why, size_t whylen)
{
    objrt_ctx *ctx = objrt_new();
    pthread_t t;
    t_wx_poll_start(&t);
    int reused = 0, rounds = 300, done = 0;
    uintptr_t prev = 0;
    if (arg) {
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        for (int i = 0; i < 20; i++) {
            mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
            t_wx_wait_scans();
            mprotect(p, 4096, PROT_READ | PROT_WRITE);
        }
        munmap(p, 4096);
    } else {
        for (; done < rounds; done++) {
            objrt_unit *u = load(ctx, done % 2 ? "small" : "big");
            if (!u)
                break;
            reused += base_of(u) == prev;
            prev = base_of(u);
            objrt_unload(u);
        }
    }
    t_wx_poll_stop(t);
    long hits = atomic_load(&t_wx_hits), scans = atomic_load(&t_wx_scans);
    int ok = 0;
    if (arg)
        ok = hits > 0;
    else if (done < rounds)
        snprintf(why, whylen, "load %d failed: %s", done + 1, objrt_error(ctx));
    else if (hits)
        snprintf(why, whylen, "%ld of %ld scans saw a w+x mapping, first %s", hits, scans, t_wx_first_hit);
    else if (reused < rounds - 1)
        snprintf(why, whylen, "only %d of %d loads reused the previous reservation", reused, rounds - 1);
    else
        ok = 1;
    if (arg && !ok)
        snprintf(why, whylen, "the poller missed 20 rwx windows (%ld scans)", scans);
    return t_ctx_done(ctx, ok, why, whylen);
}
#endif

/* A spare inherited through fork(): the child reuses (and dirties) its copy, then the
 * parent reuses its own; neither sees the other's bytes. */
static int fork_copies(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *a = load_why(ctx, "big", why, whylen);
    int ok = 0;
    if (!a)
        return t_ctx_done(ctx, 0, why, whylen);
    uintptr_t x = base_of(a), first;
    size_t size = size_of(a);
    unsigned char *lo, *hi;
    writable_range(a, &lo, &hi);
    memset(lo, 0xa5, (size_t)(hi - lo));
    objrt_unload(a);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        objrt_unit *b = load(ctx, "small");
        int good = b && base_of(b) == x && !stale_bytes(ctx, x, size, NULL, NULL, &first);
        if (b) {
            writable_range(b, &lo, &hi);
            memset(lo, 0xee, (size_t)(hi - lo));
        }
        _exit(good ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    objrt_unit *b = load(ctx, "small");
    size_t n = b ? stale_bytes(ctx, x, size, NULL, NULL, &first) : 0;
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        snprintf(why, whylen, "the child's reuse failed (status %#x)", st);
    else if (!b || base_of(b) != x)
        snprintf(why, whylen, "the parent did not reuse its spare: %s", b ? "other address" : objrt_error(ctx));
    else if (n)
        snprintf(why, whylen, "%zu stale bytes in the parent, the first at offset %#lx", n,
                 (unsigned long)(first - x));
    else
        ok = 1;
    return t_ctx_done(ctx, ok, why, whylen);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 2, "DIR");
    g_dir = argv[1];
    unsetenv("OBJRT_REUSE");
    t_case("reuse-same-size-taken", same_size_taken, NULL);
    static const struct stale_case stale = { 0, 0 }, planted = { 1, 0 }, stale64k = { 0, 65536 };
    t_case("reuse-no-stale-bytes", no_stale_bytes, (void *)&stale);
    t_harness_case("reuse-control-stale-check-sees-planted-bytes", no_stale_bytes, (void *)&planted);
    t_case("reuse-no-stale-bytes-64k-pages", no_stale_bytes, (void *)&stale64k);
    t_case("reuse-larger-spare-trimmed", larger_spare, NULL);
    t_case("reuse-bigger-plan-not-taken", bigger_plan, NULL);
#ifdef __x86_64__
    t_case("reuse-window-not-satisfied-not-taken", window, NULL);
#endif
    t_case("reuse-alignment-decides", alignment, NULL);
#if !defined(T_NO_MAPS) && defined(__x86_64__)
    t_case("reuse-zero-run-given-back", zero_run_given_back, NULL);
    t_case("reuse-spare-pages-lazily-freed", lazily_freed, NULL);
#endif
    t_case("reuse-switch-env-off", switch_off, (void *)0);
    t_case("reuse-switch-option-off", switch_off, (void *)1);
    t_case("reuse-switch-env-overrides-option", switch_off, (void *)2);
    t_case("reuse-bounded-count", bounded_count, NULL);
    t_case("reuse-bounded-bytes", bounded_bytes, NULL);
    t_case("reuse-released-by-next-load", released_by_next_load, NULL);
    t_case("reuse-fork-each-own-copy", fork_copies, NULL);
#ifndef T_NO_MAPS
    t_case("reuse-no-wx-window", no_wx, NULL);
    t_harness_case("reuse-control-poller-catches-rwx", no_wx, (void *)1);
    t_case("fresh-unit-mapping-1.3mb", fresh_unit_mapping, (void *)"ro1m3");
    t_case("fresh-unit-mapping-3.5mb", fresh_unit_mapping, (void *)"ro3m3");
#ifdef __x86_64__
    t_case("fresh-unit-mapping-window", fresh_unit_mapping, (void *)"ro1m3low");
#endif
    t_harness_case("mapped-past-control-whole-block-seen", huge_tail_control, NULL);
#endif
    return t_exit_status();
}

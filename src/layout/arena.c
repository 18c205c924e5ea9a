/*
 * arena.c - pages that small units share: a memory module the plan, place and protect
 * stages use (not a stage itself).
 *
 * A block is a memfd mapped twice. The execution view is where units run: each of its
 * plan pages is free (PROT_NONE) or handed to one permission kind, RX or R (the file's
 * page, read-only or read+execute there, never writable) or RW (a private anonymous page
 * mapped over it, so fork() copies it as it copies any data). The write alias is a second
 * shared mapping of the same file, never executable, and PROT_NONE except for the chunks
 * a load is writing (objrt_arena_open .. objrt_arena_close): RX and R bytes are written
 * there and appear in the execution view without a page ever being writable and
 * executable. Chunks are 64-byte granules (a cache line: no two units share one);
 * a page whose last chunk is freed goes back to the system (hole punched in the file, or
 * the anonymous page replaced) and to the free pool, for any kind.
 *
 * fork(): the child maps the same file. Every block that existed at a fork is frozen in
 * both processes from then on: nothing more is allocated in it, no page of it is punched
 * or reused (the other process may still run those bytes); it is unmapped when its last
 * chunk is freed, and the kernel frees the file when no process maps it any more.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"

#define GRANULE 64u
#define BLOCK_PAGES 256u                /* 1 MiB of 4 KiB pages, 16 MiB of 64 KiB pages */
#define PACK_MAX ((uint64_t)16 << 10)   /* a group up to this (or one page) is packed */

#ifndef MFD_EXEC
#define MFD_EXEC 0x10u                  /* Linux 6.3: the file may be mapped executable */
#endif

enum { K_FREE = 0xff };                 /* page kinds: GRP_RX, GRP_R, GRP_RW or free */
enum { K_ROOM_FREE = GRP_COUNT };       /* arena_block.room's row of free pages */

typedef struct objrt_arena_block {
    struct objrt_arena_block *next, **pprev;        /* every block of the arena */
    struct objrt_arena_block *open_next, **open_pprev;  /* the open list; NULL: not on it */
    uint8_t *exec, *alias;
    size_t page, npages, bytes;
    int fd;
    unsigned gen;                       /* fork generation it was made in */
    uint8_t *kind;                      /* per page */
    uint32_t *used;                     /* granules in use, per page */
    uint64_t *bits;                     /* one bit per granule: in use */
    size_t in_use;                      /* granules in use, whole block */
    /* one bit per page: of kind k with a granule free (room[k]), free (room[K_ROOM_FREE]);
     * a search skips the other pages 64 at a time */
    uint64_t room[GRP_COUNT + 1][BLOCK_PAGES / 64];
} arena_block;

/* Where a load looks for room: the open list, blocks that may have some. A block leaves
 * it when it cannot hold a unit asked of it (or is frozen, or of another plan page size),
 * and comes back, at the head, when a chunk of it is freed; a new block starts there. So
 * each block a load tries and fails was opened by a free or made since it last failed:
 * a load costs the same whatever the number of blocks (a walk of every block cost one
 * search per block once the newest was full: issue 40, item 8). */
typedef struct objrt_arena {
    arena_block *blocks;                /* all of them, newest first */
    arena_block *open;
    bool unusable;                      /* a fresh block failed: the system refuses (an
                                           executable memfd, most likely); stop trying */
} objrt_arena;

/* ---- fork: a generation counter both sides of a fork advance ---- */
static unsigned fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void fork_bump(void) { __atomic_add_fetch(&fork_gen, 1, __ATOMIC_SEQ_CST); }
static void fork_hook(void) { pthread_atfork(NULL, fork_bump, fork_bump); }
static bool frozen(const arena_block *b)
{
    return b->gen != __atomic_load_n(&fork_gen, __ATOMIC_SEQ_CST);
}

/* ---- granule bitmap ---- */
static void set_bits(uint64_t *v, size_t from, size_t n, bool on)
{
    for (size_t i = from; i < from + n; i++)
        v[i / 64] = on ? v[i / 64] | (uint64_t)1 << (i % 64) : v[i / 64] & ~((uint64_t)1 << (i % 64));
}

/* First index in [from, to) whose bit equals `want`, or `to`. */
static size_t scan(const uint64_t *v, size_t from, size_t to, bool want)
{
    size_t i = from;
    while (i < to) {
        uint64_t w = want ? v[i / 64] : ~v[i / 64];
        w >>= i % 64;
        if (w)
            return i + (size_t)__builtin_ctzll(w) < to ? i + (size_t)__builtin_ctzll(w) : to;
        i = (i / 64 + 1) * 64;
    }
    return to;
}

/* ---- which pages have room ---- */

/* Page pg's bits in b->room, after its kind or use changed. */
static void room_mark(arena_block *b, size_t pg)
{
    uint64_t bit = (uint64_t)1 << (pg % 64);
    for (int r = 0; r <= K_ROOM_FREE; r++)
        b->room[r][pg / 64] &= ~bit;
    if (b->kind[pg] == K_FREE)
        b->room[K_ROOM_FREE][pg / 64] |= bit;
    else if (b->used[pg] < b->page / GRANULE)
        b->room[b->kind[pg]][pg / 64] |= bit;
}

/* The first page from pg on that a run of kind k may use (page_fits), or b->npages. */
static size_t room_next(const arena_block *b, size_t pg, int k, int pass)
{
    for (; pg < b->npages; pg = (pg / 64 + 1) * 64) {
        uint64_t w = b->room[k][pg / 64] | (pass ? b->room[K_ROOM_FREE][pg / 64] : 0);
        w >>= pg % 64;
        if (w)
            return pg + (size_t)__builtin_ctzll(w);
    }
    return b->npages;
}

/* ---- blocks ---- */
static void block_destroy(arena_block *b)
{
    munmap(b->exec, b->bytes);
    munmap(b->alias, b->bytes);
    close(b->fd);
    free(b->kind);
    free(b->used);
    free(b->bits);
    free(b);
}

static int memfd(void)
{
    int fd = memfd_create("objrt-arena", MFD_CLOEXEC | MFD_EXEC);
    return fd >= 0 || errno != EINVAL ? fd : memfd_create("objrt-arena", MFD_CLOEXEC);
}

/* The execution view, aligned to the plan page (which may exceed the system's). */
static uint8_t *map_exec(int fd, size_t bytes, size_t page)
{
    size_t sys = (size_t)sysconf(_SC_PAGESIZE), slack = page > sys ? page - sys : 0;
    uint8_t *r = mmap(NULL, bytes + slack, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED)
        return NULL;
    uint8_t *at = (uint8_t *)objrt_align_up((uintptr_t)r, page);
    void *v = mmap(at, bytes, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (v == MAP_FAILED) {
        munmap(r, bytes + slack);
        return NULL;
    }
    if (at > r)
        munmap(r, (size_t)(at - r));
    if (r + slack > at)
        munmap(at + bytes, (size_t)(r + slack - at));
    return at;
}

static arena_block *block_new(size_t page)
{
    arena_block *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->page = page;
    b->npages = BLOCK_PAGES;
    b->bytes = page * BLOCK_PAGES;
    b->gen = __atomic_load_n(&fork_gen, __ATOMIC_SEQ_CST);
    size_t granules = b->bytes / GRANULE;
    b->kind = malloc(b->npages);
    b->used = calloc(b->npages, sizeof *b->used);
    b->bits = calloc(granules / 64, sizeof *b->bits);
    b->fd = memfd();
    if (!b->kind || !b->used || !b->bits || b->fd < 0 || ftruncate(b->fd, (off_t)b->bytes) ||
        !(b->exec = map_exec(b->fd, b->bytes, page)) ||
        (b->alias = mmap(NULL, b->bytes, PROT_NONE, MAP_SHARED, b->fd, 0)) == MAP_FAILED) {
        if (b->exec)
            munmap(b->exec, b->bytes);
        if (b->fd >= 0)
            close(b->fd);
        free(b->kind);
        free(b->used);
        free(b->bits);
        free(b);
        return NULL;
    }
    memset(b->kind, K_FREE, b->npages);
    for (size_t pg = 0; pg < b->npages; pg++)
        room_mark(b, pg);
    return b;
}

/* A free page becomes of kind k. RX and R: the file's page with those permissions (the
 * memfd may refuse PROT_EXEC: vm.memfd_noexec); RW: private anonymous memory over it. */
static int page_take(arena_block *b, size_t pg, int k)
{
    uint8_t *at = b->exec + pg * b->page;
    if (k == GRP_RW) {
        if (mmap(at, b->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                 -1, 0) == MAP_FAILED)
            return -1;
    } else if (mprotect(at, b->page, k == GRP_RX ? PROT_READ | PROT_EXEC : PROT_READ)) {
        return -1;
    }
    b->kind[pg] = (uint8_t)k;
    room_mark(b, pg);
    return 0;
}

/* The page's memory goes back to the system; the page back to the free pool. An RW page
 * whose file mapping cannot be restored stays an RW page (its memory dropped all the same):
 * never may code written through the alias land on a page the execution view does not
 * take from the file. */
static void page_return(arena_block *b, size_t pg)
{
    uint8_t *at = b->exec + pg * b->page;
    off_t off = (off_t)(pg * b->page);
    if (b->kind[pg] == GRP_RW &&
        mmap(at, b->page, PROT_NONE, MAP_SHARED | MAP_FIXED, b->fd, off) == MAP_FAILED) {
        madvise(at, b->page, MADV_DONTNEED);
        return;
    }
    if (b->kind[pg] != GRP_RW)
        mprotect(at, b->page, PROT_NONE);
    fallocate(b->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, (off_t)b->page);
    b->kind[pg] = K_FREE;
    room_mark(b, pg);
}

/* May a run of kind k use page pg? Pass 0 fills pages of that kind first; pass 1 may also
 * take free pages. */
static bool page_fits(const arena_block *b, size_t pg, int k, int pass)
{
    size_t per = b->page / GRANULE;
    return (b->kind[pg] == k && b->used[pg] < per) || (pass && b->kind[pg] == K_FREE);
}

/* First run of n granules aligned to a granules on pages usable for kind k, or SIZE_MAX. */
static size_t find_run(const arena_block *b, size_t n, size_t a, int k, int pass)
{
    size_t per = b->page / GRANULE, total = b->npages * per;
    for (size_t g = room_next(b, 0, k, pass) * per;;) {
        g = (g + a - 1) / a * a;
        if (g + n > total)
            return SIZE_MAX;
        size_t bad = SIZE_MAX;
        for (size_t pg = g / per; pg <= (g + n - 1) / per && bad == SIZE_MAX; pg++)
            if (!page_fits(b, pg, k, pass))
                bad = pg;
        if (bad != SIZE_MAX) {
            g = room_next(b, bad + 1, k, pass) * per;
            continue;
        }
        size_t busy = scan(b->bits, g, g + n, true);
        if (busy == g + n)
            return g;
        g = scan(b->bits, busy, total, false);
    }
}

static int run_take(arena_block *b, size_t g, size_t n, int k)
{
    size_t per = b->page / GRANULE;
    for (size_t pg = g / per; pg <= (g + n - 1) / per; pg++)
        if (b->kind[pg] == K_FREE && page_take(b, pg, k)) {
            while (pg-- > g / per)          /* the pages this run took, back */
                if (b->used[pg] == 0)
                    page_return(b, pg);
            return -1;
        }
    set_bits(b->bits, g, n, true);
    for (size_t i = g; i < g + n; i = (i / per + 1) * per) {
        size_t end = (i / per + 1) * per < g + n ? (i / per + 1) * per : g + n;
        b->used[i / per] += (uint32_t)(end - i);
        room_mark(b, i / per);
    }
    b->in_use += n;
    return 0;
}

static void run_free(arena_block *b, size_t g, size_t n)
{
    size_t per = b->page / GRANULE;
    set_bits(b->bits, g, n, false);
    for (size_t i = g; i < g + n; i = (i / per + 1) * per) {
        size_t end = (i / per + 1) * per < g + n ? (i / per + 1) * per : g + n;
        size_t pg = i / per;
        b->used[pg] -= (uint32_t)(end - i);
        room_mark(b, pg);
        if (b->used[pg] == 0 && !frozen(b))
            page_return(b, pg);
    }
    b->in_use -= n;
}

/* ---- the lists ---- */
static void open_join(objrt_arena *a, arena_block *b)
{
    if (b->open_pprev)
        return;
    b->open_next = a->open;
    if (b->open_next)
        b->open_next->open_pprev = &b->open_next;
    b->open_pprev = &a->open;
    a->open = b;
}

static void open_leave(arena_block *b)
{
    if (!b->open_pprev)
        return;
    *b->open_pprev = b->open_next;
    if (b->open_next)
        b->open_next->open_pprev = b->open_pprev;
    b->open_pprev = NULL;
    b->open_next = NULL;
}

static void block_join(objrt_arena *a, arena_block *b)
{
    b->next = a->blocks;
    if (b->next)
        b->next->pprev = &b->next;
    b->pprev = &a->blocks;
    a->blocks = b;
    open_join(a, b);
}

static void block_leave(arena_block *b)
{
    open_leave(b);
    *b->pprev = b->next;
    if (b->next)
        b->next->pprev = b->pprev;
}

/* ---- the interface (internal.h) ---- */

static uint64_t chunk_bytes(uint64_t size)
{
    /* one byte more than the group: an address one past its end still names this unit */
    return size ? (size + GRANULE) / GRANULE * GRANULE : 0;
}

bool objrt_arena_fits(size_t page, const uint64_t size[GRP_COUNT], const uint64_t align[GRP_COUNT])
{
    uint64_t max = page > PACK_MAX ? page : PACK_MAX;
    uint64_t any = 0;
    for (int g = 0; g < GRP_COUNT; g++) {
        if (size[g] > max || align[g] > page)
            return false;
        any |= size[g];
    }
    return any != 0;
}

/* Every group's chunk in block b, or nothing (0 / -1). */
static int alloc_in(arena_block *b, const uint64_t size[GRP_COUNT],
                    const uint64_t align[GRP_COUNT], objrt_chunk out[GRP_COUNT])
{
    size_t got[GRP_COUNT] = { 0 }, cnt[GRP_COUNT] = { 0 };
    int g;
    for (g = 0; g < GRP_COUNT; g++) {
        if (!size[g])
            continue;
        size_t n = chunk_bytes(size[g]) / GRANULE;
        size_t a = align[g] > GRANULE ? align[g] / GRANULE : 1;
        size_t at = find_run(b, n, a, g, 0);
        if (at == SIZE_MAX)
            at = find_run(b, n, a, g, 1);
        if (at == SIZE_MAX || run_take(b, at, n, g))
            break;
        got[g] = at;
        cnt[g] = n;
    }
    if (g < GRP_COUNT) {
        for (int h = 0; h < g; h++)
            if (cnt[h])
                run_free(b, got[h], cnt[h]);
        return -1;
    }
    for (g = 0; g < GRP_COUNT; g++)
        out[g] = (objrt_chunk){ cnt[g] ? (uintptr_t)b->exec + got[g] * GRANULE : 0,
                                cnt[g] * GRANULE, (int64_t)(b->alias - b->exec),
                                cnt[g] ? b : NULL };
    return 0;
}

/* Is a debugger tracing the process? ptrace cannot write to a shared mapping that is not
 * writable (the kernel refuses FOLL_FORCE there), so its breakpoints would not stick in
 * packed code: a process run under gdb does not pack. */
static bool traced(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[128];
    long pid = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "TracerPid: %ld", &pid) == 1)
            break;
    if (f)
        fclose(f);
    return pid != 0;
}

int objrt_arena_alloc(objrt_ctx *ctx, size_t page, const uint64_t size[GRP_COUNT],
                      const uint64_t align[GRP_COUNT], objrt_chunk out[GRP_COUNT])
{
    pthread_once(&fork_once, fork_hook);
    if (!ctx->arena) {                      /* once per context */
        if (!(ctx->arena = calloc(1, sizeof *ctx->arena)))
            return -1;
        ctx->arena->unusable = traced();
    }
    if (ctx->arena->unusable)
        return -1;
    for (arena_block *b = ctx->arena->open, *next; b; b = next) {
        next = b->open_next;
        if (b->page == page && !frozen(b) && alloc_in(b, size, align, out) == 0)
            return 0;
        open_leave(b);
    }
    arena_block *b = block_new(page);
    if (!b)
        return -1;
    if (alloc_in(b, size, align, out)) {    /* e.g. a memfd that may not be executable */
        block_destroy(b);
        ctx->arena->unusable = true;
        return -1;
    }
    block_join(ctx->arena, b);
    return 0;
}

/* The alias pages under the RX and R chunks: writable only while a load writes them. */
static int alias_prot(const objrt_chunk c[GRP_COUNT], int prot)
{
    size_t sys = (size_t)sysconf(_SC_PAGESIZE);
    for (int g = 0; g < GRP_COUNT; g++) {
        if (g == GRP_RW || !c[g].size)
            continue;
        uint64_t at = c[g].addr + (uint64_t)c[g].alias_delta;
        uint64_t lo = objrt_page_down(at, sys), hi = objrt_align_up(at + c[g].size, sys);
        if (mprotect((void *)(uintptr_t)lo, hi - lo, prot))
            return -1;
    }
    return 0;
}

int objrt_arena_open(const objrt_chunk c[GRP_COUNT])
{
    return alias_prot(c, PROT_READ | PROT_WRITE);
}

void objrt_arena_close(const objrt_chunk c[GRP_COUNT])
{
    alias_prot(c, PROT_NONE);
}

/* Where the host's backend asks (objrt_arch.remap_written_code: AArch64), the execution
 * view's pages under the new RX chunk mapped again from the file. Hardware sees bytes
 * written through the alias once the caches are flushed (protect.c), but qemu-user keeps
 * its translation of a page it ran before, ignores the flush and does not see writes to
 * the other mapping: it drops a translation when the guest maps the page again. Mapping
 * the same file page over it changes nothing else (same bytes, same permissions), and a
 * thread running a neighbour's code there never finds it unmapped. */
static int remap_code(const objrt_chunk *c)
{
    arena_block *b = c->size ? c->block : NULL;
    if (!b || !objrt_host_arch()->remap_written_code)
        return 0;
    size_t sys = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t lo = objrt_page_down(c->addr, sys), hi = objrt_align_up(c->addr + c->size, sys);
    if (mmap((void *)(uintptr_t)lo, hi - lo, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_FIXED,
             b->fd, (off_t)(lo - (uintptr_t)b->exec)) == MAP_FAILED)
        return -1;
    return 0;
}

int objrt_arena_publish(objrt_ctx *ctx, const objrt_chunk c[GRP_COUNT])
{
    alias_prot(c, PROT_NONE);
    return ctx->arena ? remap_code(&c[GRP_RX]) : 0;
}

void objrt_arena_free(objrt_ctx *ctx, const objrt_chunk c[GRP_COUNT])
{
    objrt_arena *a = ctx->arena;
    objrt_arena_close(c);
    for (int g = 0; a && g < GRP_COUNT; g++) {
        arena_block *b = c[g].size ? c[g].block : NULL;
        if (!b)
            continue;
        run_free(b, (c[g].addr - (uintptr_t)b->exec) / GRANULE, c[g].size / GRANULE);
        if (b->in_use) {
            if (!frozen(b))
                open_join(a, b);
            continue;
        }
        block_leave(b);
        block_destroy(b);
    }
}

void objrt_arena_release(objrt_ctx *ctx)
{
    if (!ctx->arena)
        return;
    for (arena_block *b = ctx->arena->blocks, *next; b; b = next) {
        next = b->next;
        block_destroy(b);
    }
    free(ctx->arena);
    ctx->arena = NULL;
}

void objrt_arena_usage(const objrt_ctx *ctx, objrt_memory *m)
{
    for (const arena_block *b = ctx->arena ? ctx->arena->blocks : NULL; b; b = b->next) {
        m->arena_blocks++;
        m->arena_reserved_bytes += b->bytes;
        for (size_t pg = 0; pg < b->npages; pg++)
            m->arena_page_bytes += b->kind[pg] != K_FREE ? b->page : 0;
        m->arena_chunk_bytes += b->in_use * GRANULE;
    }
}

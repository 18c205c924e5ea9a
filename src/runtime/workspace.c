/* workspace.c - TVMBackendAllocWorkspace / TVMBackendFreeWorkspace.
 *
 * Every thread has its own pool, so workers never contend. A pool caches freed blocks in
 * power-of-two size classes (128 B << c) and keeps its live blocks on a stack: a LIFO free
 * pops the top, any other order searches down from it. Blocks come from posix_memalign
 * (small) or mmap (large), both at least OBJRT_WS_ALIGN aligned, and go back to the system
 * when the thread exits or calls objrt_ws_trim(). */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "rt_internal.h"

#define MIN_SHIFT 7                 /* 128 B: the smallest class, and the alignment */
#define MAX_CLASS 39                /* 128 B << 39 = 64 TiB: more fails as out of memory */
#define MMAP_CLASS 9                /* 64 KiB and up come from mmap */

typedef struct free_block { struct free_block *next; } free_block;
typedef struct live_block { void *ptr; int cls; } live_block;

typedef struct ws_pool {
    free_block *free[MAX_CLASS + 1];
    live_block *live;
    size_t nlive, cap;
    int check_align;
} ws_pool;

static __thread ws_pool *tl_pool;
static pthread_key_t pool_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static atomic_size_t reserved_bytes;

static size_t class_size(int cls) { return (size_t)1 << (cls + MIN_SHIFT); }

static int size_class(uint64_t n)
{
    int cls;
    if (n <= (1u << MIN_SHIFT))
        return 0;
    cls = 64 - __builtin_clzll(n - 1) - MIN_SHIFT;
    return cls > MAX_CLASS ? -1 : cls;
}

static void *sys_alloc(int cls)
{
    size_t size = class_size(cls);
    void *p;
    if (cls < MMAP_CLASS) {
        if (posix_memalign(&p, OBJRT_WS_ALIGN, size) != 0)
            return NULL;
    } else {
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
    }
    atomic_fetch_add_explicit(&reserved_bytes, size, memory_order_relaxed);
    return p;
}

static void sys_free(void *p, int cls)
{
    size_t size = class_size(cls);
    if (cls < MMAP_CLASS)
        free(p);
    else
        munmap(p, size);
    atomic_fetch_sub_explicit(&reserved_bytes, size, memory_order_relaxed);
}

static void trim(ws_pool *p)
{
    for (int c = 0; c <= MAX_CLASS; c++) {
        while (p->free[c]) {
            free_block *b = p->free[c];
            p->free[c] = b->next;
            sys_free(b, c);
        }
    }
}

/* Thread exit: everything goes back, including blocks the thread never freed. */
static void pool_destroy(void *arg)
{
    ws_pool *p = arg;
    trim(p);
    for (size_t i = 0; i < p->nlive; i++)
        sys_free(p->live[i].ptr, p->live[i].cls);
    free(p->live);
    free(p);
    tl_pool = NULL;
}

static void make_key(void) { pthread_key_create(&pool_key, pool_destroy); }

static ws_pool *pool_get(void)
{
    ws_pool *p = tl_pool;
    if (p)
        return p;
    pthread_once(&key_once, make_key);
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->check_align = rt_config_get()->check_align;
    pthread_setspecific(pool_key, p);
    return tl_pool = p;
}

static int grow_live(ws_pool *p)
{
    size_t cap = p->cap ? p->cap * 2 : 64;
    live_block *n = realloc(p->live, cap * sizeof *n);
    if (!n)
        return -1;
    p->live = n;
    p->cap = cap;
    return 0;
}

void *objrt_ws_alloc(size_t nbytes)
{
    ws_pool *p = pool_get();
    int cls = size_class(nbytes);
    void *b;

    if (!p || cls < 0 || (p->nlive == p->cap && grow_live(p) != 0))
        goto oom;
    b = p->free[cls];
    if (b)
        p->free[cls] = ((free_block *)b)->next;
    else if (!(b = sys_alloc(cls)))
        goto oom;
    p->live[p->nlive++] = (live_block){b, cls};
    if (p->check_align && rt_check_workspace(b, nbytes) != 0)
        return NULL;
    return b;
oom:
    objrt_set_last_error("TVMBackendAllocWorkspace: out of memory allocating %zu bytes", nbytes);
    return NULL;
}

static int is_cached(const ws_pool *p, const void *ptr)
{
    for (int c = 0; c <= MAX_CLASS; c++)
        for (const free_block *b = p->free[c]; b; b = b->next)
            if (b == ptr)
                return 1;
    return 0;
}

int objrt_ws_free(void *ptr)
{
    ws_pool *p = tl_pool;
    size_t i;
    int cls;

    if (!p || p->nlive == 0)
        goto unknown;
    i = p->nlive - 1;
    while (p->live[i].ptr != ptr) {          /* LIFO: found at once */
        if (i == 0)
            goto unknown;
        i--;
    }
    cls = p->live[i].cls;
    memmove(&p->live[i], &p->live[i + 1], (p->nlive - i - 1) * sizeof p->live[0]);
    p->nlive--;
    ((free_block *)ptr)->next = p->free[cls];
    p->free[cls] = ptr;
    return 0;
unknown:
    if (p && ptr && is_cached(p, ptr))
        objrt_set_last_error("TVMBackendFreeWorkspace: workspace %p was already freed", ptr);
    else
        objrt_set_last_error("TVMBackendFreeWorkspace: %p is not a live workspace of this "
                             "thread (unknown pointer, or allocated by another thread)", ptr);
    return -1;
}

void objrt_ws_trim(void)
{
    if (tl_pool)
        trim(tl_pool);
}

size_t objrt_ws_reserved_bytes(void)
{
    return atomic_load_explicit(&reserved_bytes, memory_order_relaxed);
}

void *TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint)
{
    (void)dtype_code_hint;
    (void)dtype_bits_hint;
    if (device_type != kDLCPU) {
        objrt_set_last_error("TVMBackendAllocWorkspace: device type %d (id %d) is not the CPU",
                             device_type, device_id);
        return NULL;
    }
    if (nbytes > SIZE_MAX) {
        objrt_set_last_error("TVMBackendAllocWorkspace: out of memory allocating %" PRIu64
                             " bytes", nbytes);
        return NULL;
    }
    return objrt_ws_alloc((size_t)nbytes);
}

int TVMBackendFreeWorkspace(int device_type, int device_id, void *ptr)
{
    (void)device_type;
    (void)device_id;
    return objrt_ws_free(ptr);
}

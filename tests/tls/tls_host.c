/* Host for TLS units: threads that exist before the load and threads created after it
 * each probe the unit's thread-locals (tls_probe.c) and must see the initial values and
 * then their own copies. Built -DNATIVE with the unit's objects linked in, it is the
 * reference run; otherwise it loads the unit's objects (argv) with objrt.
 *   tls_host OBJ...              probe run (stdout compared with the native build)
 *   tls_host --exit OBJ...       thread exit releases dynamic TLS blocks (objrt only)
 *   tls_host --cycles N OBJ...   load/probe/unload N times; prints how many succeeded
 *   tls_host --hold N OBJ...     load N copies at once; prints how many loaded (static TLS
 *                                surplus capacity for initial-exec units), then unloads */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <objrt.h>

typedef void (*probe_fn)(int, char *, size_t);
typedef int (*touch_fn)(int);
#ifdef NATIVE
void tls_probe(int id, char *out, size_t n);
int touch_big(int i) __attribute__((weak));
#endif

#define EARLY 3
#define LATE 3
static probe_fn probe;
static touch_fn touch;
static pthread_barrier_t go;
static char results[1 + EARLY + LATE][160];

static void *early(void *arg)
{
    int id = (int)(long)arg;
    pthread_barrier_wait(&go);          /* released once the unit is loaded */
    probe(id, results[id], sizeof results[id]);
    return NULL;
}

static void *late(void *arg)
{
    int id = (int)(long)arg;
    probe(id, results[id], sizeof results[id]);
    return NULL;
}

static objrt_unit *load(objrt_ctx *ctx, char **files, int n)
{
#ifdef NATIVE
    (void)ctx, (void)files, (void)n;
    probe = tls_probe;
    touch = touch_big;
    return (objrt_unit *)1;
#else
    objrt_unit *u = objrt_load(ctx, (const char *const *)files, (size_t)n);
    if (!u) {
        fprintf(stderr, "load: %s\n", objrt_error(ctx));
        return NULL;
    }
    probe = (probe_fn)objrt_unit_sym(u, "tls_probe");
    touch = (touch_fn)objrt_unit_sym(u, "touch_big");
    return u;
#endif
}

static void unload(objrt_unit *u)
{
#ifndef NATIVE
    objrt_unload(u);
#else
    (void)u;
#endif
}

static int probe_run(objrt_ctx *ctx, char **files, int n)
{
    pthread_t t[1 + EARLY + LATE];
    pthread_barrier_init(&go, NULL, EARLY + 1);
    for (long i = 1; i <= EARLY; i++)
        pthread_create(&t[i], NULL, early, (void *)i);
    objrt_unit *u = load(ctx, files, n);
    if (!u || !probe)
        return 125;
    pthread_barrier_wait(&go);
    for (int i = 1; i <= EARLY; i++)
        pthread_join(t[i], NULL);
    for (long i = EARLY + 1; i <= EARLY + LATE; i++)
        pthread_create(&t[i], NULL, late, (void *)i);
    for (int i = EARLY + 1; i <= EARLY + LATE; i++)
        pthread_join(t[i], NULL);
    char mine[160];
    probe(9, mine, sizeof mine);
    for (int i = 1; i <= EARLY + LATE; i++)
        printf("%s %s\n", i <= EARLY ? "early" : "late", results[i]);
    printf("main %s\n", mine);
    unload(u);
    return 0;
}

/* 32 threads each touch a 1 MiB thread-local block (dynamic TLS: malloc'ed by glibc on
 * first use; with a fixed mmap threshold each is its own mapping, counted in hblkhd for
 * every arena). While they live, malloc holds at least 32 blocks; after they exit, none. */
#define NBIG 32
static pthread_barrier_t hold;
static void *toucher(void *arg)
{
    touch((int)(long)arg);
    pthread_barrier_wait(&hold);        /* measured alive here */
    pthread_barrier_wait(&hold);        /* then exit */
    return NULL;
}

static int exit_run(objrt_ctx *ctx, char **files, int n)
{
    objrt_unit *u = load(ctx, files, n);
    if (!u || !touch)
        return 125;
    pthread_t t[NBIG];
    pthread_barrier_init(&hold, NULL, NBIG + 1);
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    size_t base = mallinfo2().hblkhd;
    pthread_attr_t a;                   /* stacks larger than glibc's 40 MiB stack cache: */
    pthread_attr_init(&a);              /* a cached stack would keep its TLS for reuse */
    pthread_attr_setstacksize(&a, (size_t)64 << 20);
    for (long i = 0; i < NBIG; i++)
        pthread_create(&t[i], &a, toucher, (void *)i);
    pthread_barrier_wait(&hold);
    size_t alive = mallinfo2().hblkhd;
    pthread_barrier_wait(&hold);
    for (int i = 0; i < NBIG; i++)
        pthread_join(t[i], NULL);
    size_t after = mallinfo2().hblkhd;
    long grow_alive = (long)(alive - base), grow_after = (long)(after - base);
    printf("alive: +%ld bytes, after exit: %+ld bytes\n", grow_alive, grow_after);
    unload(u);
    if (grow_alive < (long)NBIG << 20)
        return printf("FAILED: blocks not visible while threads live\n"), 1;
    if (grow_after >= 1 << 20)
        return printf("FAILED: blocks not released at thread exit\n"), 1;
    return 0;
}

static int cycles_run(objrt_ctx *ctx, int cycles, char **files, int n)
{
    int ok = 0;
    for (int c = 0; c < cycles; c++) {
        objrt_unit *u = load(ctx, files, n);
        if (!u)
            break;
        char out[160];
        probe(1, out, sizeof out);
        unload(u);
        ok++;
    }
    printf("cycles: %d of %d\n", ok, cycles);
    return ok == cycles ? 0 : 1;
}

static int hold_run(objrt_ctx *ctx, int n, char **files, int nf)
{
    objrt_unit **u = calloc((size_t)n, sizeof *u);
    int ok = 0;
    while (ok < n && (u[ok] = load(ctx, files, nf)))
        ok++;
    printf("held: %d of %d\n", ok, n);
    while (ok > 0)
        unload(u[--ok]);
    free(u);
    return 0;
}

int main(int argc, char **argv)
{
    objrt_ctx *ctx = objrt_new();
    int rc;
    if (argc > 1 && strcmp(argv[1], "--exit") == 0)
        rc = exit_run(ctx, argv + 2, argc - 2);
    else if (argc > 2 && strcmp(argv[1], "--cycles") == 0)
        rc = cycles_run(ctx, atoi(argv[2]), argv + 3, argc - 3);
    else if (argc > 2 && strcmp(argv[1], "--hold") == 0)
        rc = hold_run(ctx, atoi(argv[2]), argv + 3, argc - 3);
    else
        rc = probe_run(ctx, argv + 1, argc - 1);
    objrt_free(ctx);
    return rc;
}

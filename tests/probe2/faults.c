/*
 * faults.c - fail objrt's Nth allocation or mapping, for every N of a real link (issue 27,
 * item 5). Built with -Wl,--wrap for malloc, calloc, realloc, strdup, posix_memalign and
 * mmap: only objrt's own calls (the objects of libobjrt.a) come through the wrappers, libc
 * and the sanitizer keep theirs. For N = 1, 2, ... until a load makes fewer than N calls:
 * the Nth call fails; the load must then fail with a message (or succeed, where objrt
 * has a fallback), and the same context must load, run and unload the inputs again. Run
 * under ASan with detect_leaks=1, a block a failed load leaves behind fails the run.
 *     faults NAME FILE...      (one result line: PASS NAME (...) or FAIL NAME: ...)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "objrt.h"

static long calls, fail_at;            /* fail_at 0: nothing fails */

static int failing(void) { return fail_at && ++calls == fail_at; }

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
int __real_posix_memalign(void **p, size_t a, size_t n);
void *__real_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off);

void *__wrap_malloc(size_t n) { return failing() ? (errno = ENOMEM, NULL) : __real_malloc(n); }
void *__wrap_calloc(size_t k, size_t n) { return failing() ? (errno = ENOMEM, NULL) : __real_calloc(k, n); }
void *__wrap_realloc(void *p, size_t n) { return failing() ? (errno = ENOMEM, NULL) : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return failing() ? (errno = ENOMEM, NULL) : __real_strdup(s); }
int __wrap_posix_memalign(void **p, size_t a, size_t n)
{
    return failing() ? ENOMEM : __real_posix_memalign(p, a, n);
}
void *__wrap_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
    if (failing()) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return __real_mmap(a, n, prot, flags, fd, off);
}

/* Load, call `entry` (must return 42), unload. 0, or why not in why. */
static int load_run(objrt_ctx *ctx, const char *const *paths, size_t n, char *why, size_t len)
{
    objrt_unit *u = objrt_load(ctx, paths, n);
    if (!u) {
        snprintf(why, len, "load failed: %s", objrt_error(ctx));
        return -1;
    }
    int (*entry)(void) = (int (*)(void))objrt_unit_sym(u, "entry");
    int v = entry ? entry() : -1;
    objrt_unload(u);
    if (v != 42) {
        snprintf(why, len, "entry() returned %d, want 42", v);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *name = argv[1];
    const char *const *paths = (const char *const *)argv + 2;
    size_t n = (size_t)argc - 2;
    char why[1024];
    objrt_ctx *ctx = objrt_new();
    if (!ctx || load_run(ctx, paths, n, why, sizeof why)) {     /* the inputs work */
        printf("FAIL %s: without a fault: %s\n", name, ctx ? why : "objrt_new failed");
        return 1;
    }
    long total = 0, refused = 0, survived = 0;
    for (long k = 1;; k++) {
        calls = 0;
        fail_at = k;
        objrt_unit *u = objrt_load(ctx, paths, n);
        long made = calls;
        fail_at = 0;
        if (made < k) {                 /* no Nth call: every call had its turn */
            total = made;
            if (u)
                objrt_unload(u);
            break;
        }
        if (u) {
            survived++;
            objrt_unload(u);
        } else if (!objrt_error(ctx)[0]) {
            printf("FAIL %s: call %ld failed and the load failed with no message\n", name, k);
            return 1;
        } else {
            refused++;
        }
        if (load_run(ctx, paths, n, why, sizeof why)) {
            printf("FAIL %s: after call %ld failed, the context no longer loads: %s\n", name, k,
                   why);
            return 1;
        }
    }
    objrt_free(ctx);
    printf("PASS %s (each of the %ld allocations and mappings of the load failed in turn: "
           "%ld loads refused with a message, %ld fell back and loaded)\n", name, total,
           refused, survived);
    return 0;
}

/* check.h - shared post-link sanity check of the link benchmark harnesses (see check.c). */
#ifndef BENCH_LINK_CHECK_H
#define BENCH_LINK_CHECK_H

#ifdef __cplusplus
extern "C" {
#endif

/* what: "sqlite", "lua", "jit", "crypto" or "none". lookup returns a linked symbol's address or NULL.
 * Prints one "check=ok ..." or "check=FAILED ..." line; returns 0 when the code works. */
int bench_check(const char *what, void *(*lookup)(void *cookie, const char *name), void *cookie);

#ifdef __cplusplus
}
#endif
#endif

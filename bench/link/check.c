/*
 * check.c - prove a benchmarked link produced working code, the same way for every linker.
 *
 * Looks functions up through the harness's lookup callback and calls them: for sqlite it
 * prints sqlite3_libversion() and runs one query in an in-memory database; for Lua it
 * opens a state with the base, string and math libraries and runs a chunk, then (in a
 * child process, since it may crash) opens all standard libraries, which touches libc's
 * stdin/stdout/stderr: Debian's liolib.o reaches `stdout` with R_X86_64_PC32, so a linker
 * that places the code out of 32-bit reach of libc data must handle or reject that.
 * For the generated LLVM-JIT-style set it compares jit_selftest() with jit_expected. For
 * OpenSSL's libcrypto it hashes "abc" with SHA256() (which goes through libcrypto's
 * provider and CPU-dispatch machinery, not just one function) and compares the digest.
 * Every check runs in a child process so a crash of linked code is reported, not fatal.
 * Prints one "check=..." line.
 */
#include "check.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef void *(*lookup_fn)(void *cookie, const char *name);

/* Function types called through looked-up pointers (prototypes as in sqlite3.h / lua.h). */
typedef const char *(*str_fn)(void);
typedef int (*sq_open_fn)(const char *, void **);
typedef int (*sq_cb)(void *, int, char **, char **);
typedef int (*sq_exec_fn)(void *, const char *, sq_cb, void *, char **);
typedef int (*ptr_int_fn)(void *);
typedef void *(*newstate_fn)(void);
typedef void (*ptr_void_fn)(void *);
typedef int (*loadstring_fn)(void *, const char *);
typedef int (*pcallk_fn)(void *, int, int, int, long, void *);
typedef const char *(*tolstring_fn)(void *, int, size_t *);
typedef double (*version_fn)(void *);
typedef int (*cfunction)(void *);
typedef void (*requiref_fn)(void *, const char *, cfunction, int);
typedef void (*settop_fn)(void *, int);

/* Declare VAR of TYPE bound to symbol NAME, or report and fail the check. */
#define LOOK(var, type, name)                                             \
    type var = (type)lookup(cookie, name);                                \
    if (!var) {                                                           \
        printf("check=FAILED symbol %s not found\n", name);              \
        return -1;                                                        \
    }

static int row_cb(void *arg, int n, char **val, char **col)
{
    (void)col;
    char *out = arg;
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), 128 - strlen(out), "%s%s", i ? "," : "", val[i] ? val[i] : "NULL");
    return 0;
}

static int check_sqlite(lookup_fn lookup, void *cookie)
{
    LOOK(version, str_fn, "sqlite3_libversion");
    LOOK(open_db, sq_open_fn, "sqlite3_open");
    LOOK(exec, sq_exec_fn, "sqlite3_exec");
    LOOK(close_db, ptr_int_fn, "sqlite3_close");
    void *db = NULL;
    char row[128] = "";
    int rc = open_db(":memory:", &db);
    if (rc == 0)
        rc = exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(3),(4),(5);"
                      "SELECT sum(x*x), printf('%.4f', sqrt(2)) FROM t", row_cb, row, NULL);
    if (db)
        close_db(db);
    int ok = rc == 0 && strcmp(row, "50,1.4142") == 0;
    printf("check=%s sqlite3_libversion()=%s query=%s\n", ok ? "ok" : "FAILED", version(), row);
    return ok ? 0 : -1;
}

/* Run fn(arg) in a child process; returns its status, or 128 + signal when it crashed. */
static int in_child(int (*fn)(void *), void *arg)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return fn(arg);
    if (pid == 0) {
        int rc = fn(arg);
        fflush(stdout);
        _exit(rc & 0x7f);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

struct lookup_args {
    lookup_fn lookup;
    void *cookie;
};

static int lua_openlibs_child(void *p)
{
    struct lookup_args *a = p;
    newstate_fn newstate = (newstate_fn)a->lookup(a->cookie, "luaL_newstate");
    ptr_void_fn openlibs = (ptr_void_fn)a->lookup(a->cookie, "luaL_openlibs");
    ptr_void_fn close_state = (ptr_void_fn)a->lookup(a->cookie, "lua_close");
    if (!newstate || !openlibs || !close_state)
        return 2;
    void *L = newstate();
    openlibs(L);
    close_state(L);
    return 0;
}

static int check_lua(lookup_fn lookup, void *cookie)
{
    LOOK(newstate, newstate_fn, "luaL_newstate");
    LOOK(requiref, requiref_fn, "luaL_requiref");
    LOOK(settop, settop_fn, "lua_settop");
    LOOK(open_base, cfunction, "luaopen_base");
    LOOK(open_string, cfunction, "luaopen_string");
    LOOK(open_math, cfunction, "luaopen_math");
    LOOK(loadstring, loadstring_fn, "luaL_loadstring");
    LOOK(pcallk, pcallk_fn, "lua_pcallk");
    LOOK(tolstring, tolstring_fn, "lua_tolstring");
    LOOK(version, version_fn, "lua_version");
    LOOK(close_state, ptr_void_fn, "lua_close");
    void *L = newstate();
    if (!L) {
        printf("check=FAILED luaL_newstate returned NULL\n");
        return -1;
    }
    requiref(L, "_G", open_base, 1);
    requiref(L, "string", open_string, 1);
    requiref(L, "math", open_math, 1);
    settop(L, -4);                               /* pop the three modules */
    int rc = loadstring(L, "local t = {} for i = 1, 10 do t[i] = i * i end "
                           "return string.format('%d %.3f', #t + t[10], math.sqrt(2))");
    if (rc == 0)
        rc = pcallk(L, 0, 1, 0, 0, NULL);
    const char *s = tolstring(L, -1, NULL);
    char out[64];
    snprintf(out, sizeof out, "%s", s ? s : "(null)");
    int ok = rc == 0 && strcmp(out, "110 1.414") == 0;
    double v = version(L);
    close_state(L);
    struct lookup_args a = {lookup, cookie};
    int io = in_child(lua_openlibs_child, &a);
    char io_s[32];
    snprintf(io_s, sizeof io_s, io == 0 ? "ok" : io > 128 ? "crashed(signal %d)" : "failed(%d)",
             io > 128 ? io - 128 : io);
    printf("check=%s lua_version()=%.0f result=%s luaL_openlibs=%s\n", ok ? "ok" : "FAILED", v, out, io_s);
    return ok ? 0 : -1;
}

typedef long long (*selftest_fn)(void);

/* LLVM-JIT-style set (gen_jit_set.py): the generated code's sum must equal Python's. */
static int check_jit(lookup_fn lookup, void *cookie)
{
    LOOK(selftest, selftest_fn, "jit_selftest");
    const long long *expected = lookup(cookie, "jit_expected");
    if (!expected) {
        printf("check=FAILED symbol jit_expected not found\n");
        return -1;
    }
    long long got = selftest();
    printf("check=%s jit_selftest()=%lld expected=%lld\n", got == *expected ? "ok" : "FAILED", got, *expected);
    return got == *expected ? 0 : -1;
}

typedef unsigned char *(*sha256_fn)(const unsigned char *, size_t, unsigned char *);

/* OpenSSL libcrypto: SHA-256 of "abc" (FIPS 180-2 test vector). */
static int check_crypto(lookup_fn lookup, void *cookie)
{
    static const char want[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    LOOK(sha256, sha256_fn, "SHA256");
    unsigned char md[32];
    char hex[65];
    if (!sha256((const unsigned char *)"abc", 3, md)) {
        printf("check=FAILED SHA256() returned NULL\n");
        return -1;
    }
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    int ok = strcmp(hex, want) == 0;
    printf("check=%s SHA256(\"abc\")=%.16s...\n", ok ? "ok" : "FAILED", hex);
    return ok ? 0 : -1;
}

struct check_args {
    const char *what;
    lookup_fn lookup;
    void *cookie;
};

static int check_child(void *p)
{
    struct check_args *a = p;
    if (strcmp(a->what, "sqlite") == 0)
        return check_sqlite(a->lookup, a->cookie) ? 1 : 0;
    if (strcmp(a->what, "lua") == 0)
        return check_lua(a->lookup, a->cookie) ? 1 : 0;
    if (strcmp(a->what, "jit") == 0)
        return check_jit(a->lookup, a->cookie) ? 1 : 0;
    if (strcmp(a->what, "crypto") == 0)
        return check_crypto(a->lookup, a->cookie) ? 1 : 0;
    printf("check=FAILED unknown check '%s'\n", a->what);
    return 1;
}

int bench_check(const char *what, lookup_fn lookup, void *cookie)
{
    if (strcmp(what, "none") == 0) {
        printf("check=skipped\n");
        return 0;
    }
    struct check_args a = {what, lookup, cookie};
    int rc = in_child(check_child, &a);
    if (rc > 128)
        printf("check=CRASHED signal %d while calling the linked code\n", rc - 128);
    fflush(stdout);
    return rc == 0 ? 0 : -1;
}

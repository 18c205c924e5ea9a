/*
 * libsearch.c - find a shared library as `cc -l` would, for objrt_add_library().
 *
 * "m" -> libm.so when dlopen can load it. When libm.so is a GNU ld script (glibc's libm.so,
 * libc.so, ncurses' libncurses.so), dlopen cannot read it, so the script's own choice is
 * used: the first shared library its GROUP or INPUT names outside AS_NEEDED that dlopen
 * loads, as ld would link it (libm.so.6). Only without a usable script (no -dev package
 * installed) are the usual directories scanned for the newest libm.so.N: a scan of a system
 * library directory reads its thousands of entries, paid by every context that adds the
 * library.
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbols/symbols.h"
#include "symbols/lookup.h"
#include "symbols/libsearch.h"

/* ---- GNU ld scripts ---- */

/* Longest script read: glibc's are ~300 bytes; anything bigger is not the kind of script
 * that just names a library, and the directory scan decides instead. */
#define SCRIPT_MAX 4096

/* Comments turned into spaces (an unterminated one runs to the end). */
static void strip_comments(char *s)
{
    for (char *p = s; (p = strstr(p, "/*"));) {
        char *end = strstr(p + 2, "*/");
        size_t n = end ? (size_t)(end + 2 - p) : strlen(p);
        memset(p, ' ', n);
        p += n;
    }
}

/* Next token of p into tok ("" at the end): a word, or "(" or ")" on its own; blanks and
 * commas separate. A word longer than tok is cut (and then names no library we load). */
static const char *next_token(const char *p, char *tok, size_t toksz)
{
    while (*p && (isspace((unsigned char)*p) || *p == ','))
        p++;
    size_t n = 0;
    if (*p == '(' || *p == ')')
        tok[n++] = *p++;
    else
        while (*p && !isspace((unsigned char)*p) && *p != ',' && *p != '(' && *p != ')') {
            if (n + 1 < toksz)
                tok[n++] = *p;
            p++;
        }
    tok[n] = '\0';
    return p;
}

bool objrt_ld_script_lib(const char *script, size_t nth, char *out, size_t outsz)
{
    char text[SCRIPT_MAX + 1], tok[512];
    size_t len = strnlen(script, SCRIPT_MAX + 1);
    if (len > SCRIPT_MAX)
        return false;
    memcpy(text, script, len);
    text[len] = '\0';
    strip_comments(text);
    /* depth: parentheses open inside a GROUP/INPUT list; needed: the depth of an open
     * AS_NEEDED list in it (0: none); the flags: the keyword just seen awaits its "(". */
    int depth = 0, needed = 0;
    bool list_next = false, needed_next = false;
    for (const char *p = next_token(text, tok, sizeof tok); tok[0];
         p = next_token(p, tok, sizeof tok)) {
        if (strcmp(tok, "(") == 0) {
            if (depth > 0 || list_next)
                depth++;
            if (needed_next && !needed)
                needed = depth;
            list_next = needed_next = false;
        } else if (strcmp(tok, ")") == 0) {
            if (depth > 0 && depth-- == needed)
                needed = 0;
        } else if (depth == 0) {
            list_next = strcmp(tok, "GROUP") == 0 || strcmp(tok, "INPUT") == 0;
        } else if (strcmp(tok, "AS_NEEDED") == 0) {
            needed_next = true;
        } else if (!needed && tok[0] != '-' && strstr(tok, ".so") && strlen(tok) < outsz &&
                   nth-- == 0) {
            strcpy(out, tok);           /* a shared library: not an archive, not -lNAME */
            return true;
        }
    }
    return false;
}

/* path read as a GNU ld script: the first library it names that dlopen loads, or NULL. */
static void *open_by_script(const char *path)
{
    char script[SCRIPT_MAX + 1], lib[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, script, sizeof script);
    close(fd);
    if (n <= 0 || n > SCRIPT_MAX || memchr(script, '\0', (size_t)n))
        return NULL;            /* none, too long for a script, or binary (an ELF file) */
    script[n] = '\0';
    void *h = NULL;
    for (size_t i = 0; !h && objrt_ld_script_lib(script, i, lib, sizeof lib); i++)
        h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    return h;
}

/* ---- the search ---- */

static void *open_short_name(const char *name, const char *multiarch)
{
    char dirs[2][64], want[256], best[512] = "", path[512];
    snprintf(dirs[0], sizeof dirs[0], "/lib/%s", multiarch);
    snprintf(dirs[1], sizeof dirs[1], "/usr/lib/%s", multiarch);
    const char *order[] = { dirs[0], dirs[1], "/lib", "/usr/lib", "/usr/local/lib" };
    snprintf(want, sizeof want, "lib%s.so", name);
    void *h = dlopen(want, RTLD_NOW | RTLD_GLOBAL);
    if (h)
        return h;
    for (size_t d = 0; d < sizeof order / sizeof order[0]; d++) {
        snprintf(path, sizeof path, "%s/%s", order[d], want);
        if ((h = open_by_script(path)))
            return h;
    }
    size_t wl = strlen(want);
    for (size_t d = 0; d < sizeof order / sizeof order[0] && !best[0]; d++) {
        DIR *dir = opendir(order[d]);
        struct dirent *e;
        while (dir && (e = readdir(dir)))
            if (strncmp(e->d_name, want, wl) == 0 && e->d_name[wl] == '.' &&
                (!best[0] || strverscmp(e->d_name, strrchr(best, '/') + 1) > 0))
                snprintf(best, sizeof best, "%s/%s", order[d], e->d_name);
        if (dir)
            closedir(dir);
    }
    return best[0] ? dlopen(best, RTLD_NOW | RTLD_GLOBAL) : NULL;
}

void *objrt_lib_open(const char *name)
{
    if (strchr(name, '/') || strstr(name, ".so"))
        return dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    return open_short_name(name, objrt_host_arch()->multiarch);
}

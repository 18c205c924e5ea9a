/*
 * tar.c - TVM's export_library("x.tar"): its objects packed in a tar file. Every input API
 * (objrt_load, objrt_load_memory, the CLI, the Python package) reaches this through
 * input.c, so a tar is one more input form like an ar archive. Unlike an archive's, a
 * tar's objects are the unit itself: every *.o member is linked, as TVM's own loader
 * links the whole export; other members (sources, notes) are not linked, and a tar of C
 * source only (export_library of a "c" target) is refused with what to do. Nothing is
 * written to disk: member names (which may say "../../x.o") only ever name a member in a
 * message.
 *
 * Format (POSIX ustar, GNU's extensions): 512-byte headers; name at 0 (100 bytes), the
 * ustar prefix at 345 (155), size at 124 (12, octal), type at 156, "ustar" at 257; a
 * GNU 'L' member holds the next member's long name. Two zero blocks (or the file's end)
 * end it. Every size is checked against the bytes left before it is used.
 */
#include <stdio.h>
#include <string.h>

#include "input/input.h"

#define TAR_BLOCK 512
#define TAR_NAME_MAX 1024

bool objrt_input_is_tar(const uint8_t *data, size_t size)
{
    return size >= TAR_BLOCK && memcmp(data + 257, "ustar", 5) == 0;
}

/* An octal header field: digits after optional spaces, ending in space or NUL. */
static int tar_octal(const char *p, size_t n, uint64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && p[i] == ' ')
        i++;
    if (i == n || p[i] < '0' || p[i] > '7')
        return -1;
    for (; i < n && p[i] >= '0' && p[i] <= '7'; i++) {
        if (v >> 60)
            return -1;
        v = v * 8 + (uint64_t)(p[i] - '0');
    }
    for (; i < n; i++)
        if (p[i] != ' ' && p[i] != '\0')
            return -1;
    *out = v;
    return 0;
}

/* The member's name: a preceding GNU long name, else prefix "/" name. */
static void tar_member_name(const char *h, const char *longname, char *out)
{
    if (longname[0])
        snprintf(out, TAR_NAME_MAX, "%s", longname);
    else if (memcmp(h + 257, "ustar", 5) == 0 && h[345])
        snprintf(out, TAR_NAME_MAX, "%.155s/%.100s", h + 345, h);
    else
        snprintf(out, TAR_NAME_MAX, "%.100s", h);
}

static bool ends_with(const char *s, const char *sfx)
{
    size_t n = strlen(s), k = strlen(sfx);
    return n > k && strcmp(s + n - k, sfx) == 0;
}

int objrt_input_add_tar(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                        objrt_member_fn add, void *arg)
{
    static const char zero[TAR_BLOCK];
    char longname[TAR_NAME_MAX] = "", mname[TAR_NAME_MAX], full[2 * TAR_NAME_MAX + 4];
    char csource[TAR_NAME_MAX] = "";
    size_t at = 0, count = 0;
    while (size - at >= TAR_BLOCK && memcmp(data + at, zero, TAR_BLOCK) != 0) {
        const char *h = (const char *)data + at;
        uint64_t len;
        if (tar_octal(h + 124, 12, &len) != 0)
            return objrt_fail(l->ctx, "%s: the tar header at offset 0x%zx has a malformed size",
                              name, at);
        if (len > size - at - TAR_BLOCK)
            return objrt_fail(l->ctx, "%s: the tar member at offset 0x%zx claims %llu bytes, "
                              "only %zu remain", name, at, (unsigned long long)len,
                              size - at - TAR_BLOCK);
        const uint8_t *m = data + at + TAR_BLOCK;
        char type = h[156];
        at += TAR_BLOCK + (size_t)(len + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
        if (at > size)
            at = size;                  /* the last member's padding may be cut off */
        if (type == 'L') {
            size_t n = len < TAR_NAME_MAX - 1 ? (size_t)len : TAR_NAME_MAX - 1;
            memcpy(longname, m, n);
            longname[n] = '\0';
            continue;
        }
        tar_member_name(h, longname, mname);
        longname[0] = '\0';
        if (type != '0' && type != '\0')
            continue;                   /* directories, links, devices: never objects */
        snprintf(full, sizeof full, "%s(%s)", name, mname);
        if (!csource[0] && (ends_with(mname, ".c") || ends_with(mname, ".cc")))
            snprintf(csource, sizeof csource, "%s", mname);
        if (!ends_with(mname, ".o"))
            continue;                   /* sources, notes: beside the objects, not linked */
        if (len == 0)
            return objrt_fail(l->ctx, "%s: empty tar member", full);
        if (add(l, full, m, (size_t)len, arg) != 0)
            return -1;
        count++;
    }
    if (count)
        return 0;
    if (csource[0])                     /* what export_library of a "c" target writes */
        return objrt_fail(l->ctx, "%s: %s is C source (export_library of a \"c\" target): "
                          "compile it, cc -c -fPIC -I/usr/local/include/objrt, and load the "
                          "object", name, csource);
    return objrt_fail(l->ctx, "%s: the tar holds no object (.o) member", name);
}

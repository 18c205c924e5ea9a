/* unpack.c - static archives (TVM's cc.create_staticlib) for `objrt call`. An archive given
 * to `objrt call` is the unit to call, so every object member is linked, as ld's
 * --whole-archive would (`objrt run` and the C API keep ld's pull-what-is-needed rule).
 * Everything else, export_library's tars included, is handed to the loader as it is (the
 * input layer reads tars for every API: input/tar.c).
 *
 * The archive is parsed with every size and offset checked against the file: a member
 * is never read past its end or the file's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/regular.h"
#include "cli.h"
#include "unpack.h"

#define MAX_FILE (1L << 30)

static int unpack_err(const char *file, const char *fmt, const char *detail)
{
    fprintf(stderr, "objrt: %s: ", file);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return -1;
}

static int is_elf(const char *p, size_t n)
{
    return n >= 4 && memcmp(p, "\177ELF", 4) == 0;
}

static int push(call_inputs *ci, const char *name, const void *data, size_t size)
{
    if (ci->n == ci->cap) {
        size_t cap = ci->cap ? 2 * ci->cap : 16;
        objrt_input *in = realloc(ci->in, cap * sizeof *in);
        char **names = realloc(ci->names, cap * sizeof *names);
        if (in)
            ci->in = in;
        if (names)
            ci->names = names;
        if (!in || !names)
            return -1;
        ci->cap = cap;
    }
    if (!(ci->names[ci->n] = strdup(name)))
        return -1;
    ci->in[ci->n] = (objrt_input){ ci->names[ci->n], data, size };
    ci->n++;
    return 0;
}

static char *read_file(const char *path, size_t *size)
{
    const char *why;
    FILE *f = objrt_fopen_regular(path, &why);     /* a FIFO would block forever */
    struct stat st;
    char *buf = NULL;
    if (!f) {
        unpack_err(path, "%s", why);
        return NULL;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        unpack_err(path, "%s", "not a regular file");
    else if (st.st_size > MAX_FILE)
        unpack_err(path, "%s", "larger than 1 GiB");
    else if (!(buf = malloc((size_t)st.st_size + 1)) ||
             fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        unpack_err(path, "%s", "cannot read it");
        free(buf);
        buf = NULL;
    } else {
        *size = (size_t)st.st_size;
    }
    fclose(f);
    return buf;
}

/* A decimal or octal header field of `len` bytes (space or NUL padded). */
static int field(const char *p, size_t len, int base, size_t *out)
{
    char tmp[24], *end;
    if (len >= sizeof tmp)
        return -1;
    memcpy(tmp, p, len);
    tmp[len] = '\0';
    size_t skip = strspn(tmp, " ");
    unsigned long long v = strtoull(tmp + skip, &end, base);
    if (end == tmp + skip || (*end && *end != ' '))
        return -1;
    *out = (size_t)v;
    return 0;
}

/* ar: "!<arch>\n", then 60-byte headers (name 16, size at 48 width 10, "`\n"), data padded
 * to an even offset. GNU long names "/N" index the "//" member; BSD "#1/N" follow the
 * header. Every ELF member is an input "FILE(member)". */
static int unpack_ar(call_inputs *ci, const char *file, const char *buf, size_t size)
{
    const char *longnames = NULL;
    size_t nlong = 0, at = 8, count = 0;
    while (at < size) {
        size_t len, namelen = 0;
        char name[256];
        const char *h = buf + at;
        if (size - at < 60 || memcmp(h + 58, "`\n", 2) != 0 || field(h + 48, 10, 10, &len) != 0) {
            char off[32];
            snprintf(off, sizeof off, "%zu", at);
            return unpack_err(file, "the archive member header at offset %s is malformed", off);
        }
        const char *data = h + 60;
        if (len > size - at - 60)
            return unpack_err(file, "%s", "an archive member runs past the end of the file");
        if (memcmp(h, "//", 2) == 0 && h[2] == ' ') {
            longnames = data, nlong = len;
        } else if (h[0] == '/' && h[1] >= '0' && h[1] <= '9') {
            size_t off;
            if (field(h + 1, 15, 10, &off) != 0 || !longnames || off >= nlong)
                return unpack_err(file, "%s", "an archive long name is out of range");
            const char *end = memchr(longnames + off, '/', nlong - off);
            namelen = end ? (size_t)(end - longnames - off) : 0;
            snprintf(name, sizeof name, "%.*s", (int)namelen, longnames + off);
        } else if (memcmp(h, "#1/", 3) == 0) {
            if (field(h + 3, 13, 10, &namelen) != 0 || namelen > len)
                return unpack_err(file, "%s", "a BSD archive name is out of range");
            snprintf(name, sizeof name, "%.*s", (int)namelen, data);
            data += namelen, len -= namelen;
        } else if (h[0] != '/') {
            size_t n = 0;
            while (n < 16 && h[n] != '/' && h[n] != ' ')
                n++;
            snprintf(name, sizeof name, "%.*s", (int)n, h);
            namelen = n;
        }
        if (namelen && is_elf(data, len)) {
            char full[600];
            snprintf(full, sizeof full, "%s(%s)", file, name);
            if (push(ci, full, data, len) != 0)
                return unpack_err(file, "%s", "out of memory");
            count++;
        }
        at += 60 + (size_t)(data - h - 60) + len;
        at += at & 1;
    }
    return count ? 0 : unpack_err(file, "%s", "the archive holds no ELF object");
}

static int ends_with(const char *s, const char *sfx)
{
    size_t n = strlen(s), k = strlen(sfx);
    return n > k && strcmp(s + n - k, sfx) == 0;
}

int call_inputs_needed(const char *const *files, int n)
{
    for (int i = 0; i < n; i++)
        if (ends_with(files[i], ".a"))
            return 1;
    return 0;
}

int call_inputs_read(const char *const *files, int n, call_inputs *ci)
{
    if (!(ci->bufs = calloc((size_t)n + 1, sizeof *ci->bufs)))
        return unpack_err("objrt call", "%s", "out of memory");
    for (int i = 0; i < n; i++) {
        size_t size = 0;
        char *buf = ci->bufs[i] = read_file(files[i], &size);
        int rc;
        ci->nbufs = (size_t)i + 1;
        if (!buf)
            return -1;
        if (size >= 8 && memcmp(buf, "!<arch>\n", 8) == 0)
            rc = unpack_ar(ci, files[i], buf, size);
        else
            rc = push(ci, files[i], buf, size);   /* a tar, an object: the loader reads it */
        if (rc != 0)
            return -1;
    }
    return 0;
}

void call_inputs_free(call_inputs *ci)
{
    if (!ci->bufs)
        return;
    for (size_t i = 0; i < ci->n; i++)
        free(ci->names[i]);
    for (size_t i = 0; i < ci->nbufs; i++)
        free(ci->bufs[i]);
    free(ci->names);
    free(ci->in);
    free(ci->bufs);
}

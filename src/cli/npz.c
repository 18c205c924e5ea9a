/* npz.c - .npz read and write. The zip structure (APPNOTE: end of central directory,
 * central directory entries, local headers) is parsed with every offset and size checked
 * against the file; deflated members are inflated by zlib; each member's CRC-32 and size
 * must match the directory's before its bytes are parsed as .npy (npy.c). ZIP64 sizes are
 * read from the directory's extra field (numpy writes every member with force_zip64). A
 * member's name is bytes from the file: messages show it escaped (base/escape.h). The file
 * and each member's tensor are capped at 1 GiB (docs/limits.md): an inflated member is
 * allocated at the size the directory states, before a byte of it is checked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/escape.h"
#include "base/regular.h"
#include "fail.h"
#include "npz.h"

#define MAX_NPZ (1ULL << 30)

static uint32_t le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const unsigned char *p) { return le16(p) | le16(p + 2) << 16; }
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static unsigned char *slurp(const char *path, size_t *size, char *err, size_t errlen)
{
    const char *why;
    FILE *f = objrt_fopen_regular(path, &why);     /* a FIFO would block forever */
    struct stat st;
    unsigned char *buf = NULL;
    if (!f) {
        fail(err, errlen, "%s", why);
        return NULL;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        fail(err, errlen, "not a regular file");
    else if ((uint64_t)st.st_size > MAX_NPZ)
        fail(err, errlen, "larger than 1 GiB");
    else if (!(buf = malloc((size_t)st.st_size + 1)) ||
             fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        fail(err, errlen, "cannot read it");
        free(buf);
        buf = NULL;
    } else {
        *size = (size_t)st.st_size;
    }
    fclose(f);
    return buf;
}

/* ZIP64 extended information (id 1) in an extra field: the 64-bit values of the fields
 * that are 0xFFFFFFFF, in the order uncompressed size, compressed size, offset. */
static int zip64_sizes(const unsigned char *x, size_t n, uint64_t *usize, uint64_t *csize,
                       uint64_t *off)
{
    while (n >= 4) {
        size_t id = le16(x), len = le16(x + 2), at = 4;
        if (len > n - 4)
            return -1;
        if (id == 1) {
            uint64_t *v[3] = {usize, csize, off};
            for (int i = 0; i < 3; i++)
                if (*v[i] == 0xFFFFFFFFu) {
                    if (at + 8 > 4 + len)
                        return -1;
                    *v[i] = le64(x + at);
                    at += 8;
                }
            return 0;
        }
        x += 4 + len, n -= 4 + len;
    }
    return 0;
}

/* The bytes of one member (inflated when deflated); *owned is what to free. */
static int member_bytes(const unsigned char *buf, size_t size, const unsigned char *cd,
                        const char *name, unsigned char **owned, const unsigned char **data,
                        size_t *len, char *err, size_t errlen)
{
    uint32_t method = le16(cd + 10), crc = le32(cd + 16);
    uint64_t csize = le32(cd + 20), usize = le32(cd + 24), off = le32(cd + 42);
    size_t nlen = le16(cd + 28), xlen = le16(cd + 30);
    if (zip64_sizes(cd + 46 + nlen, xlen, &usize, &csize, &off) != 0)
        return fail(err, errlen, "member %s: malformed ZIP64 extra field", name);
    if (off > size || size - off < 30 || le32(buf + off) != 0x04034b50)
        return fail(err, errlen, "member %s: no local header at offset %llu", name,
                    (unsigned long long)off);
    uint64_t start = off + 30 + le16(buf + off + 26) + le16(buf + off + 28);
    if (usize > MAX_NPZ)        /* what it inflates to is allocated: the cap comes first */
        return fail(err, errlen, "member %s: its tensor is %llu bytes, past the cap of 1 GiB "
                    "(%llu bytes) per .npz member", name, (unsigned long long)usize,
                    (unsigned long long)MAX_NPZ);
    if (start > size || csize > size - start)
        return fail(err, errlen, "member %s: its data runs past the end of the file", name);
    *owned = NULL;
    if (method == 0) {
        if (csize != usize)
            return fail(err, errlen, "member %s: stored, but sizes differ", name);
        *data = buf + start;
    } else if (method == 8) {
        z_stream zs = { 0 };
        if (!(*owned = malloc(usize + 1)) || inflateInit2(&zs, -MAX_WBITS) != Z_OK)
            return fail(err, errlen, "member %s: out of memory", name);
        zs.next_in = (unsigned char *)buf + start;
        zs.avail_in = (uInt)csize;
        zs.next_out = *owned;
        zs.avail_out = (uInt)usize + 1;
        int zrc = inflate(&zs, Z_FINISH);
        inflateEnd(&zs);
        if (zrc != Z_STREAM_END || zs.total_out != usize)
            return fail(err, errlen, "member %s: deflate data is corrupt or not %llu bytes",
                        name, (unsigned long long)usize);
        *data = *owned;
    } else {
        return fail(err, errlen, "member %s: compression method %u (stored and deflate are "
                    "supported)", name, method);
    }
    *len = (size_t)usize;
    if (crc32(0L, *data, (uInt)usize) != crc)
        return fail(err, errlen, "member %s: CRC-32 mismatch", name);
    return 0;
}

static int parse(const unsigned char *buf, size_t size, npz_file *out, char *err, size_t errlen)
{
    size_t e = size >= 22 ? size - 22 : 0, lo = size > 22 + 65535 ? size - 22 - 65535 : 0;
    while (size >= 22 && e > lo && le32(buf + e) != 0x06054b50)
        e--;
    if (size < 22 || le32(buf + e) != 0x06054b50)
        return fail(err, errlen, "not a zip file (no end of central directory)");
    size_t count = le16(buf + e + 10), cdsize = le32(buf + e + 12), cdoff = le32(buf + e + 16);
    if (cdoff > e || cdsize > e - cdoff)
        return fail(err, errlen, "the central directory lies outside the file");
    if (!(out->m = calloc(count + 1, sizeof *out->m)))
        return fail(err, errlen, "out of memory");
    const unsigned char *cd = buf + cdoff, *end = cd + cdsize;
    for (size_t i = 0; i < count; i++) {
        if (end - cd < 46 || le32(cd) != 0x02014b50)
            return fail(err, errlen, "central directory entry %zu is malformed", i);
        size_t nlen = le16(cd + 28), xlen = le16(cd + 30), clen = le16(cd + 32);
        if ((size_t)(end - cd) - 46 < nlen + xlen + clen)
            return fail(err, errlen, "central directory entry %zu runs past the directory", i);
        char name[512], shown[256];     /* the name as bytes, and as messages print it */
        snprintf(name, sizeof name, "%.*s", (int)nlen, (const char *)cd + 46);
        objrt_escape_n((const char *)cd + 46, nlen, shown, sizeof shown);
        size_t n = strlen(name);
        if (n <= 4 || strcmp(name + n - 4, ".npy") != 0 || n - 4 >= sizeof out->m[0].name)
            return fail(err, errlen, "member '%s' is not NAME.npy", shown);
        unsigned char *owned = NULL;
        const unsigned char *data = NULL;
        size_t len = 0;
        char why[400];
        int rc = member_bytes(buf, size, cd, shown, &owned, &data, &len, err, errlen);
        if (rc == 0 && (rc = npy_load_memory(data, len, &out->m[out->n].t, why, sizeof why)) != 0)
            fail(err, errlen, "member %s: %s", shown, why);
        free(owned);
        if (rc != 0)
            return -1;
        snprintf(out->m[out->n].name, sizeof out->m[0].name, "%.*s", (int)(n - 4), name);
        out->n++;
        cd += 46 + nlen + xlen + clen;
    }
    return out->n ? 0 : fail(err, errlen, "no member");
}

int npz_read(const char *path, npz_file *out, char *err, size_t errlen)
{
    size_t size = 0;
    unsigned char *buf = slurp(path, &size, err, errlen);
    memset(out, 0, sizeof *out);
    if (!buf)
        return -1;
    int rc = parse(buf, size, out, err, errlen);
    free(buf);
    if (rc != 0)
        npz_free(out);
    return rc;
}

void npz_free(npz_file *f)
{
    for (int i = 0; f->m && i < f->n; i++)
        TVMArrayFree(f->m[i].t);
    free(f->m);
    f->m = NULL;
    f->n = 0;
}

static void put16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }

/* One stored member: local header + name + data; its central directory entry into cd. */
static int write_member(FILE *f, const char *name, const char *data, size_t len, long off,
                        unsigned char *cd)
{
    unsigned char lh[30] = {0};
    uint32_t crc = (uint32_t)crc32(0L, (const unsigned char *)data, (uInt)len);
    size_t nlen = strlen(name);
    put32(lh, 0x04034b50);
    put16(lh + 4, 20);
    put32(lh + 14, crc);
    put32(lh + 18, (uint32_t)len);
    put32(lh + 22, (uint32_t)len);
    put16(lh + 26, (uint32_t)nlen);
    memset(cd, 0, 46);
    put32(cd, 0x02014b50);
    put16(cd + 4, 20);
    put16(cd + 6, 20);
    memcpy(cd + 16, lh + 14, 12);          /* crc, sizes: at 14 in the local header, 16 here */
    put16(cd + 28, (uint32_t)nlen);
    put32(cd + 42, (uint32_t)off);
    return fwrite(lh, 1, 30, f) != 30 || fwrite(name, 1, nlen, f) != nlen ||
           (len && fwrite(data, 1, len, f) != len) ? -1 : 0;
}

int npz_write(const char *path, const char *const *names, const DLTensor *const *t, int n,
              char *err, size_t errlen)
{
    unsigned char (*cd)[46] = calloc((size_t)n + 1, sizeof *cd);
    char (*fname)[280] = calloc((size_t)n + 1, sizeof *fname);
    FILE *f = cd && fname ? fopen(path, "wb") : NULL;
    long off = 0, cdoff, cdsize = 0;
    int rc = -1;
    if (!f) {
        fail(err, errlen, "%s", cd && fname ? strerror(errno) : "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        char *data;
        size_t len;
        snprintf(fname[i], sizeof fname[i], "%.250s.npy", names[i]);
        if (npy_save_memory(t[i], &data, &len, err, errlen) != 0)
            goto out;
        int bad = len >= 0xFFFFFFFFu || write_member(f, fname[i], data, len, off, cd[i]) != 0;
        free(data);
        if (bad) {
            fail(err, errlen, "writing member %s failed (or it is 4 GiB or more)", fname[i]);
            goto out;
        }
        off += 30 + (long)strlen(fname[i]) + (long)len;
    }
    cdoff = off;
    for (int i = 0; i < n; i++) {
        size_t nlen = strlen(fname[i]);
        if (fwrite(cd[i], 1, 46, f) != 46 || fwrite(fname[i], 1, nlen, f) != nlen)
            goto write_failed;
        cdsize += 46 + (long)nlen;
    }
    unsigned char eocd[22] = {0};
    put32(eocd, 0x06054b50);
    put16(eocd + 8, (uint32_t)n);
    put16(eocd + 10, (uint32_t)n);
    put32(eocd + 12, (uint32_t)cdsize);
    put32(eocd + 16, (uint32_t)cdoff);
    if (fwrite(eocd, 1, 22, f) != 22)
        goto write_failed;
    rc = 0;
    goto out;
write_failed:
    fail(err, errlen, "write failed: %s", strerror(errno));
out:
    if (f && fclose(f) != 0 && rc == 0)
        rc = fail(err, errlen, "write failed: %s", strerror(errno));
    free(cd);
    free(fname);
    return rc;
}

/*
 * input.c - turn files and buffers into objects: read files, split ar archives into
 * members (and hand tars to tar.c). Archive members are parsed now (so a malformed member is reported by name)
 * but join the unit only when resolve.c pulls them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/regular.h"
#include "input/input.h"

#define AR_MAGIC "!<arch>\n"
#define AR_HDR 60

static objrt_blob *push_blob(objrt_link *l, void *map, size_t size)
{
    objrt_blob *b = objrt_grow(l->ctx, l->blobs, &l->capblobs, l->nblobs + 1, sizeof *b, 4);
    if (!b)
        return NULL;
    l->blobs = b;
    b[l->nblobs] = (objrt_blob){ map, size };
    return &b[l->nblobs++];
}

/* Parse one object and add it to the link (archive members not yet pulled). */
static int add_object(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                      bool pulled)
{
    objrt_obj *o;
    if (!data || objrt_parse_object(l, name, data, size, pulled, &o))
        return -1;
    objrt_obj **v = objrt_grow(l->ctx, l->objs, &l->capobjs, l->nobjs + 1, sizeof *v, 16);
    if (!v) {
        objrt_obj_free(o);
        return -1;
    }
    l->objs = v;
    o->index = (uint32_t)l->nobjs;
    l->objs[l->nobjs++] = o;
    return 0;
}

/* ELF structures are read in place, so the bytes must be 8-byte aligned; ar members
 * (2-byte aligned) and caller buffers may not be. Misaligned bytes are copied into owned
 * memory, carved from mappings of at least COPY_CHUNK bytes rather than one per copy. */
#define COPY_CHUNK ((size_t)1 << 20)

static const uint8_t *aligned_bytes(objrt_link *l, const uint8_t *data, size_t size)
{
    if (((uintptr_t)data & 7) == 0)
        return data;
    size_t need = (size + 15) & ~(size_t)15;
    if (need < size) {
        objrt_fail(l->ctx, "out of memory copying %zu bytes", size);
        return NULL;
    }
    if ((size_t)(l->copy_end - l->copy_at) < need) {
        size_t len = need > COPY_CHUNK ? need : COPY_CHUNK;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || !push_blob(l, m, len)) {
            if (m != MAP_FAILED)
                munmap(m, len);
            objrt_fail(l->ctx, "out of memory copying %zu bytes", size);
            return NULL;
        }
        l->copy_at = m;
        l->copy_end = l->copy_at + len;
    }
    uint8_t *copy = l->copy_at;
    l->copy_at += need;
    memcpy(copy, data, size);
    return copy;
}

static int parse_decimal(const char *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    while (i < n && p[i] == ' ')
        i++;
    if (i == n || p[i] < '0' || p[i] > '9')
        return -1;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    for (; i < n; i++)
        if (p[i] != ' ')
            return -1;
    *out = v;
    return 0;
}

/* Member name: "name/" (short), "/123" (offset into the "//" table), terminated by '/'. */
static int member_name(objrt_link *l, const char *ar, const char *hdr, const char *longnames,
                       size_t longsz, char *out, size_t outsz)
{
    const char *s = hdr;
    size_t max = 16;
    if (hdr[0] == '/' && hdr[1] >= '0' && hdr[1] <= '9') {
        uint64_t off;
        size_t n = 1;
        while (n < 16 && hdr[n] >= '0' && hdr[n] <= '9')
            n++;
        if (parse_decimal(hdr + 1, n - 1, &off) || !longnames || off >= longsz)
            return objrt_fail(l->ctx, "%s: bad long member name reference '%.16s'", ar, hdr);
        s = longnames + off;
        max = longsz - off;
    }
    size_t n = 0;
    while (n < max && s[n] != '/' && s[n] != '\n' && s[n] != '\0')
        n++;
    if (n >= outsz)
        n = outsz - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    return 0;
}

/* A member's bytes at an 8-byte boundary. In a file we read (own: our writable copy) a
 * misaligned member is moved down in place, over the last bytes of its own header, which
 * was read already: the next header lies past the member and stays. Anything else (a
 * caller's buffer) is copied. Moving costs no memory: a copy needs fresh pages, one fault
 * each (sqlite's archive: 49 of 98 members, 0.8 MB, 200 faults). */
static const uint8_t *member_bytes(objrt_link *l, const uint8_t *m, size_t msize, uint8_t *own)
{
    if (!own || ((uintptr_t)m & 7) == 0)
        return aligned_bytes(l, m, msize);
    uint8_t *to = own + ((m - own) & ~(ptrdiff_t)7);
    memmove(to, m, msize);
    return to;
}

/* own: data is our writable copy of the file (see member_bytes), or NULL. */
static int add_archive(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                       uint8_t *own)
{
    const char *longnames = NULL;
    size_t longsz = 0;
    for (size_t off = 8; off < size; off += off & 1) {
        if (size - off < AR_HDR)
            return objrt_fail(l->ctx, "%s: truncated archive member header at offset 0x%zx",
                              name, off);
        const char *h = (const char *)data + off;
        uint64_t msize;
        if (h[58] != '`' || h[59] != '\n' || parse_decimal(h + 48, 10, &msize))
            return objrt_fail(l->ctx, "%s: corrupt archive member header at offset 0x%zx",
                              name, off);
        off += AR_HDR;
        if (msize > size - off)
            return objrt_fail(l->ctx, "%s: archive member at offset 0x%zx claims %llu bytes, "
                              "only %zu remain", name, off - AR_HDR,
                              (unsigned long long)msize, size - off);
        const uint8_t *m = data + off;
        off += msize;
        if (memcmp(h, "//", 2) == 0) {
            longnames = (const char *)m;
            longsz = msize;
            continue;
        }
        if (h[0] == '/' && (h[1] == ' ' || memcmp(h, "/SYM64/", 7) == 0))
            continue;               /* symbol index: we index members ourselves */
        char mname[256], full[512];
        if (member_name(l, name, h, longnames, longsz, mname, sizeof mname))
            return -1;
        snprintf(full, sizeof full, "%s(%s)", name, mname);
        if (msize == 0)
            return objrt_fail(l->ctx, "%s: empty archive member (at offset 0x%zx)", full,
                              off - AR_HDR);
        if (add_object(l, full, member_bytes(l, m, msize, own), msize, false))
            return -1;
    }
    return 0;
}

/* A tar's object: linked whole (tar.c says why), at an 8-byte boundary. */
static int add_tar_member(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                          void *arg)
{
    (void)arg;
    return add_object(l, name, aligned_bytes(l, data, size), size, true);
}

/* own: data is our writable copy (a file we read), so archive members may move in it. */
static int add_bytes(objrt_link *l, const char *name, const uint8_t *data, size_t size,
                     bool own)
{
    if (size >= 8 && memcmp(data, AR_MAGIC, 8) == 0)
        return add_archive(l, name, data, size, own ? (uint8_t *)data : NULL);
    if (size >= 8 && memcmp(data, "!<thin>\n", 8) == 0)
        return objrt_fail(l->ctx, "%s: thin archives are not supported (members are not inside it)",
                          name);
    if (objrt_input_is_tar(data, size))
        return objrt_input_add_tar(l, name, data, size, add_tar_member, NULL);
    return add_object(l, name, aligned_bytes(l, data, size), size, true);
}

/* Memory for `total` bytes of inputs (a batch of files, or one file such as libgcc.a), every
 * page present: one fault per page, taken while copying, costs more than the copy. From
 * OBJRT_HUGE_BLOCK on, its whole blocks get huge pages (internal.h), fewer faults for
 * large inputs; a partial last block stays in small pages (place.c says why). */
static uint8_t *input_memory(size_t total)
{
    if (total < OBJRT_HUGE_BLOCK || total > SIZE_MAX - 2 * OBJRT_HUGE_BLOCK) {
        void *m = mmap(NULL, total, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        return m == MAP_FAILED ? NULL : m;
    }
    uint8_t *raw = mmap(NULL, total + OBJRT_HUGE_BLOCK, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uint8_t *buf = (uint8_t *)(uintptr_t)objrt_align_up((uintptr_t)raw, OBJRT_HUGE_BLOCK);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *end = buf + ((total + page - 1) & ~(page - 1));
    uint8_t *raw_end = raw + total + OBJRT_HUGE_BLOCK;
    if (buf > raw)
        munmap(raw, (size_t)(buf - raw));
    if (raw_end > end)
        munmap(end, (size_t)(raw_end - end));
    objrt_offer_huge(buf, 0, total);
    madvise(buf, total, MADV_POPULATE_WRITE);   /* Linux >= 5.14; else faulted by the reads */
    return buf;
}

/* The file's bytes, read into memory of our own. Not a MAP_PRIVATE mapping of the file: its
 * pages show later writes to the file (by anyone) until copied, so bytes could change after
 * parse validated them, and a truncation would turn the next read into SIGBUS. A copy is
 * what every check and every later stage sees. */
static bool read_fully(int fd, uint8_t *buf, size_t size, size_t *got, int *err)
{
    for (*got = 0, *err = 0; *got < size;) {
        ssize_t r = pread(fd, buf + *got, size - *got, (off_t)*got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            *err = r < 0 ? errno : 0;
            return false;
        }
        *got += (size_t)r;
    }
    return true;
}

static int read_whole(objrt_link *l, const char *path, int fd, size_t size, void **out)
{
    uint8_t *buf = input_memory(size);      /* libgcc.a (3 MB) comes this way */
    if (!buf)
        return objrt_fail(l->ctx, "%s: cannot allocate %zu bytes: %s", path, size, strerror(errno));
    size_t got;
    int err;
    if (!read_fully(fd, buf, size, &got, &err)) {
        munmap(buf, size);
        return objrt_fail(l->ctx, "%s: %s after %zu of %zu bytes", path,
                          err ? strerror(err) : "file shrank while being read", got, size);
    }
    *out = buf;
    return 0;
}

/* Opens an input: a regular (regular.h), non-empty file. Its descriptor, with its size; or
 * -1 and why not. */
static int open_input(const char *path, size_t *size, const char **why)
{
    uint64_t n;
    int fd = objrt_open_regular(path, &n, why);
    if (fd < 0)
        return -1;
    if (n == 0 || n > SIZE_MAX) {
        *why = n ? "too large" : "empty file";
        close(fd);
        return -1;
    }
    *size = (size_t)n;
    return fd;
}

int objrt_input_add_file(objrt_link *l, const char *path)
{
    if (!path)
        return objrt_fail(l->ctx, "objrt_load: a path is NULL");
    const char *why;
    size_t size;
    int fd = open_input(path, &size, &why);
    if (fd < 0)
        return objrt_fail(l->ctx, "%s: %s", path, why);
    void *map = NULL;
    int rc = read_whole(l, path, fd, size, &map);
    close(fd);
    if (rc)
        return -1;
    if (!push_blob(l, map, size)) {
        munmap(map, size);
        return -1;
    }
    rc = add_bytes(l, path, map, size, true);
    mprotect(map, size, PROT_READ);     /* parsed: nothing writes inputs from here on */
    return rc;
}

/* ---- many files at once ---- */

/* Files opened together, to share one mapping: at most BATCH_FILES, and at most a quarter
 * of the descriptor limit, so the host's other threads keep descriptors to open files while a load
 * holds the batch open (a file of the batch that cannot be opened ends the batch; it is
 * retried as the first of the next one, or alone). */
#define BATCH_FILES 256
#define BATCH_FILES_MIN 16

static size_t batch_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY ||
        r.rlim_cur / 4 >= BATCH_FILES)
        return BATCH_FILES;
    return r.rlim_cur / 4 > BATCH_FILES_MIN ? (size_t)(r.rlim_cur / 4) : BATCH_FILES_MIN;
}

typedef struct batch_file {
    int fd;
    size_t size, at;            /* bytes, and where they go in the batch's mapping */
} batch_file;

/* Opens paths from the first on, while they open as regular non-empty files and fit one
 * mapping; returns how many (0: the first did not, it is left to objrt_input_add_file). */
static size_t batch_open(const char *const *paths, size_t n, size_t max, batch_file *f,
                         size_t *total)
{
    size_t k = 0, sum = 0;
    for (; k < n && k < max && paths[k]; k++) {
        const char *why;
        size_t size, at;
        int fd = open_input(paths[k], &size, &why);
        if (fd < 0)
            break;
        if (__builtin_add_overflow(sum, (size_t)15, &at) ||
            __builtin_add_overflow(at & ~(size_t)15, size, &sum)) {
            close(fd);
            break;
        }
        f[k] = (batch_file){ fd, size, at & ~(size_t)15 };
    }
    *total = sum;
    return k;
}

/* k opened files into one mapping (prefaulted in one pass, read-only once read), then each
 * parsed in order. A read failure is reported after the files before it were parsed, so the
 * first bad input is named, as when files are added one at a time. */
static int batch_load(objrt_link *l, const char *const *paths, batch_file *f, size_t k,
                      size_t total)
{
    uint8_t *buf = input_memory(total);
    if (!buf)
        return objrt_fail(l->ctx, "%s: cannot allocate %zu bytes: %s", paths[0], total,
                          strerror(errno));
    if (!push_blob(l, buf, total)) {
        munmap(buf, total);
        return -1;
    }
    size_t nread = 0, got = 0;
    int err = 0;
    while (nread < k && read_fully(f[nread].fd, buf + f[nread].at, f[nread].size, &got, &err))
        nread++;
    int rc = 0;
    for (size_t i = 0; i < nread && rc == 0; i++)
        rc = add_bytes(l, paths[i], buf + f[i].at, f[i].size, true);
    mprotect(buf, total, PROT_READ);    /* parsed: nothing writes inputs from here on */
    if (rc)
        return -1;
    if (nread < k)
        return objrt_fail(l->ctx, "%s: %s after %zu of %zu bytes", paths[nread],
                          err ? strerror(err) : "file shrank while being read", got,
                          f[nread].size);
    return 0;
}

/* Closes the batch's descriptors. open() takes the lowest free number, so they are mostly
 * runs of consecutive numbers, and every number inside such a run is one of ours: a run
 * goes with one close_range() (Linux 5.9), cheaper than a close() per descriptor. Anything
 * else, or a kernel without the call, one by one. */
static void batch_close(const batch_file *f, size_t k)
{
    for (size_t i = 0, j; i < k; i = j) {
        for (j = i + 1; j < k && f[j].fd == f[j - 1].fd + 1; j++)
            ;
        if (j - i < 2 || close_range((unsigned)f[i].fd, (unsigned)f[j - 1].fd, 0) != 0)
            for (size_t m = i; m < j; m++)
                close(f[m].fd);
    }
}

int objrt_input_add_files(objrt_link *l, const char *const *paths, size_t n)
{
    batch_file f[BATCH_FILES];
    size_t max = batch_limit();
    for (size_t i = 0; i < n;) {
        size_t total, k = batch_open(paths + i, n - i, max, f, &total);
        if (k == 0) {                   /* the one-file path reports why, or copes */
            if (objrt_input_add_file(l, paths[i]))
                return -1;
            i++;
            continue;
        }
        int rc = batch_load(l, paths + i, f, k, total);
        batch_close(f, k);
        if (rc)
            return -1;
        i += k;
    }
    return 0;
}

void objrt_input_release(objrt_link *l)
{
    for (size_t i = 0; i < l->nobjs; i++)
        objrt_obj_free(l->objs[i]);
    free(l->objs);
    for (size_t i = 0; i < l->nblobs; i++)
        munmap(l->blobs[i].map, l->blobs[i].size);
    free(l->blobs);
}

int objrt_input_add_memory(objrt_link *l, const objrt_input *in)
{
    const char *name = in->name ? in->name : "<memory>";
    if (!in->data || in->size == 0)
        return objrt_fail(l->ctx, "%s: empty input", name);
    return add_bytes(l, name, in->data, in->size, false);
}

/*
 * zlib_driver.c - exercise Debian's static libz and print deterministic results.
 *
 * usage: zlib_driver [GZIP_PATH]   (without a path a mkstemp file in $TMPDIR or /tmp is used)
 * Built once natively and once linked by objrt; the suite compares both outputs byte for
 * byte, so nothing printed may depend on addresses, paths, time or argv[0].
 * -DPERTURB changes exactly one printed line (the suite's negative control).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define DATA_LEN (256 * 1024)

static int failures;

static void bad(const char *what, int rc)
{
    printf("ERROR %s: rc=%d\n", what, rc);
    failures++;
}

/* Deterministic, partly compressible data: text-like runs mixed with LCG noise. */
static unsigned char *make_data(size_t n)
{
    static const char words[] = "relocate section symbol archive member unwind frame ";
    unsigned char *p = malloc(n);
    unsigned x = 2463534242u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        p[i] = (i / 4096) % 3 == 2 ? (unsigned char)x : (unsigned char)words[(i + (x & 3)) % (sizeof words - 1)];
    }
    return p;
}

static void oneshot(const unsigned char *data, size_t n)
{
    uLongf clen = compressBound(n);
    unsigned char *c = malloc(clen);
    int rc = compress2(c, &clen, data, n, Z_BEST_COMPRESSION);
    if (rc != Z_OK)
        return bad("compress2", rc);
    unsigned char *d = malloc(n);
    uLongf dlen = n;
    rc = uncompress(d, &dlen, c, clen);
    if (rc != Z_OK)
        return bad("uncompress", rc);
    printf("compress2: %zu -> %lu, roundtrip %s\n", n, (unsigned long)clen,
           dlen == n && memcmp(d, data, n) == 0 ? "ok" : "MISMATCH");
    /* A deliberately short output buffer must fail with Z_BUF_ERROR. */
    dlen = n / 2;
    rc = uncompress(d, &dlen, c, clen);
    printf("uncompress short buffer: rc=%d (%s)\n", rc, zError(rc));
    free(c);
    free(d);
}

/* Stream-deflate in 1000-byte input pieces with a 777-byte output window, then inflate
 * the result in 333-byte pieces: exercises the state machines across many calls. */
static void streaming(const unsigned char *data, size_t n, int level, int strategy)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    int rc = deflateInit2(&s, level, Z_DEFLATED, 15, 8, strategy);
    if (rc != Z_OK)
        return bad("deflateInit2", rc);
    size_t cap = deflateBound(&s, n) + 1024, clen = 0;
    unsigned char *c = malloc(cap);
    size_t pos = 0;
    do {
        size_t piece = n - pos < 1000 ? n - pos : 1000;
        s.next_in = (Bytef *)(data + pos);
        s.avail_in = (uInt)piece;
        pos += piece;
        int flush = pos == n ? Z_FINISH : Z_NO_FLUSH;
        do {
            size_t room = cap - clen < 777 ? cap - clen : 777;
            s.next_out = c + clen;
            s.avail_out = (uInt)room;
            rc = deflate(&s, flush);
            clen += room - s.avail_out;
        } while (s.avail_out == 0);
    } while (pos < n);
    deflateEnd(&s);
    if (rc != Z_STREAM_END)
        return bad("deflate", rc);

    memset(&s, 0, sizeof s);
    inflateInit(&s);
    unsigned char *d = malloc(n + 1);
    size_t dlen = 0, cpos = 0;
    do {
        size_t piece = clen - cpos < 333 ? clen - cpos : 333;
        s.next_in = c + cpos;
        s.avail_in = (uInt)piece;
        cpos += piece;
        s.next_out = d + dlen;
        s.avail_out = (uInt)(n + 1 - dlen);
        rc = inflate(&s, Z_NO_FLUSH);
        dlen = n + 1 - s.avail_out;
    } while (rc == Z_OK && cpos < clen);
    inflateEnd(&s);
    printf("stream level=%d strategy=%d: %zu -> %zu, adler %08lx, inflate rc=%d %s\n", level, strategy, n, clen,
           s.adler, rc, dlen == n && memcmp(d, data, n) == 0 ? "ok" : "MISMATCH");
    free(c);
    free(d);
}

static void checksums(const unsigned char *data, size_t n)
{
    uLong crc = crc32(0L, Z_NULL, 0), ad = adler32(0L, Z_NULL, 0);
    for (size_t off = 0; off < n; off += 4099) {
        size_t piece = n - off < 4099 ? n - off : 4099;
        crc = crc32(crc, data + off, (uInt)piece);
        ad = adler32(ad, data + off, (uInt)piece);
    }
    uLong half = n / 2;
    uLong c1 = crc32(0L, data, (uInt)half), c2 = crc32(0L, data + half, (uInt)(n - half));
    uLong a1 = adler32(1L, data, (uInt)half), a2 = adler32(1L, data + half, (uInt)(n - half));
    printf("crc32 %08lx combine %08lx\n", crc, crc32_combine(c1, c2, (z_off_t)(n - half)));
    printf("adler32 %08lx combine %08lx\n", ad, adler32_combine(a1, a2, (z_off_t)(n - half)));
    printf("crc32(\"123456789\") %08lx\n", crc32(0L, (const Bytef *)"123456789", 9));
}

static void gzip_file(const char *path, const unsigned char *data, size_t n)
{
    gzFile g = gzopen(path, "wb6");
    if (!g)
        return bad("gzopen w", -1);
    gzprintf(g, "header %d %s\n", 42, "objrt");
    int w = gzwrite(g, data, (unsigned)n);
    gzputs(g, "trailer\n");
    int rc = gzclose(g);
    printf("gzwrite %d bytes, gzclose rc=%d\n", w, rc);

    g = gzopen(path, "rb");
    if (!g)
        return bad("gzopen r", -1);
    char line[64];
    printf("gzgets: %s", gzgets(g, line, sizeof line) ? line : "(null)\n");
    unsigned char *d = malloc(n);
    int r = gzread(g, d, (unsigned)n);
    printf("gzread %d bytes %s, next line: %s", r, r == (int)n && memcmp(d, data, n) == 0 ? "ok" : "MISMATCH",
           gzgets(g, line, sizeof line) ? line : "(null)\n");
    printf("gzeof %d\n", gzgetc(g) == -1 && gzeof(g));
    gzclose(g);
    free(d);
}

int main(int argc, char **argv)
{
    char tmpl[4096];
    const char *path;
    int made = 0;
    if (argc > 1) {
        path = argv[1];
    } else {
        const char *dir = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/zlib_driver.XXXXXX", dir && *dir ? dir : "/tmp");
        int fd = mkstemp(tmpl);
        if (fd < 0) {
            perror("mkstemp");
            return 2;
        }
        close(fd);
        path = tmpl;
        made = 1;
    }
    printf("zlib %s (header %s) flags %lx\n", zlibVersion(), ZLIB_VERSION, zlibCompileFlags());
    unsigned char *data = make_data(DATA_LEN);
    oneshot(data, DATA_LEN);
    static const int levels[] = {Z_NO_COMPRESSION, Z_BEST_SPEED, 3, Z_DEFAULT_COMPRESSION, Z_BEST_COMPRESSION};
    for (size_t i = 0; i < sizeof levels / sizeof *levels; i++)
        streaming(data, DATA_LEN, levels[i], Z_DEFAULT_STRATEGY);
    streaming(data, DATA_LEN, 6, Z_HUFFMAN_ONLY);
    streaming(data, DATA_LEN, 6, Z_RLE);
    streaming(data, DATA_LEN, 6, Z_FILTERED);
    checksums(data, DATA_LEN);
    gzip_file(path, data, DATA_LEN);
    if (made)
        unlink(tmpl);
    free(data);
#ifdef PERTURB
    printf("failures: %d\n", failures + 1);
#else
    printf("failures: %d\n", failures);
#endif
    return failures ? 1 : 0;
}

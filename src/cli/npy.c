/* npy.c - NumPy .npy read and write (numpy/lib/format.py, formats 1.0 and 2.0).
 * The header is untrusted: it is parsed by a small strict grammar, never evaluated, and
 * every number in it is range- and overflow-checked before it sizes anything. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/regular.h"
#include "fail.h"
#include "npy.h"

static const char magic[6] = "\x93NUMPY";

static const struct {
    const char *descr, *name;   /* descr without its byte-order character */
    DLDataType dt;
} dtypes[] = {
    {"b1", "bool", {kDLUInt, 1, 1}},     /* TVM's bool: uint1, one byte per element */
    {"i1", "int8", {kDLInt, 8, 1}},      {"u1", "uint8", {kDLUInt, 8, 1}},
    {"i2", "int16", {kDLInt, 16, 1}},    {"u2", "uint16", {kDLUInt, 16, 1}},
    {"i4", "int32", {kDLInt, 32, 1}},    {"u4", "uint32", {kDLUInt, 32, 1}},
    {"i8", "int64", {kDLInt, 64, 1}},    {"u8", "uint64", {kDLUInt, 64, 1}},
    {"f2", "float16", {kDLFloat, 16, 1}}, {"f4", "float32", {kDLFloat, 32, 1}},
    {"f8", "float64", {kDLFloat, 64, 1}},
};
#define NDTYPES (sizeof dtypes / sizeof dtypes[0])

static int same_dtype(DLDataType a, DLDataType b)
{
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

size_t npy_stem(const char *path, char *buf, size_t size)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strlen(base);
    if (n <= 4 || strcmp(base + n - 4, ".npy") != 0 || base[0] == '.')
        return 0;
    if (buf && n < size) {
        memcpy(buf, base, n - 4);
        buf[n - 4] = '\0';
    }
    return n - 4;
}

/* numpy's other spellings of the same types (np.dtype(x).name for each, on LP64 Linux:
 * "float" and "double" are float64, "int" and "long" int64, as in numpy). */
static const struct {
    const char *alias, *name;
} aliases[] = {
    {"?", "bool"}, {"bool_", "bool"}, {"bool8", "bool"},
    {"byte", "int8"}, {"ubyte", "uint8"}, {"short", "int16"}, {"ushort", "uint16"},
    {"intc", "int32"}, {"uintc", "uint32"}, {"int", "int64"}, {"int_", "int64"},
    {"long", "int64"}, {"longlong", "int64"}, {"intp", "int64"}, {"uint", "uint64"},
    {"ulong", "uint64"}, {"ulonglong", "uint64"}, {"uintp", "uint64"},
    {"half", "float16"}, {"single", "float32"}, {"float", "float64"}, {"double", "float64"},
    {"float_", "float64"},
};

/* "f4", "<f4", "=f4", "|u1": a descr without or with a little-endian/native byte order. */
static int by_descr(const char *name, DLDataType *out)
{
    const char *d = name[0] && strchr("<=|", name[0]) ? name + 1 : name;
    for (size_t i = 0; i < NDTYPES; i++)
        if (strcmp(d, dtypes[i].descr) == 0 && (name[0] != '|' || dtypes[i].dt.bits <= 8)) {
            *out = dtypes[i].dt;
            return 0;
        }
    return -1;
}

int npy_dtype_by_name(const char *name, DLDataType *out)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0)
            name = aliases[i].name;
    for (size_t i = 0; i < NDTYPES; i++)
        if (strcmp(name, dtypes[i].name) == 0) {
            *out = dtypes[i].dt;
            return 0;
        }
    return by_descr(name, out);
}

const char *npy_dtype_name(DLDataType dt)
{
    for (size_t i = 0; i < NDTYPES; i++)
        if (same_dtype(dt, dtypes[i].dt))
            return dtypes[i].name;
    return NULL;
}

/* ---- header grammar: { 'key': value, ... } with exactly descr, fortran_order, shape ---- */

typedef struct cursor {
    const char *start, *p, *end;
    char *err;
    size_t errlen;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int expect(cursor *c, char ch, const char *where)
{
    skip_space(c);
    if (c->p >= c->end || *c->p != ch)
        return fail(c->err, c->errlen, "header: expected '%c' %s at offset %ld", ch, where,
                    (long)(c->p - c->start));
    c->p++;
    return 0;
}

/* A quoted string without escapes, copied into buf (at most size-1 chars). */
static int parse_string(cursor *c, char *buf, size_t size, const char *what)
{
    char q;
    size_t n = 0;
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return fail(c->err, c->errlen, "header: %s is not a quoted string", what);
    q = *c->p++;
    while (c->p < c->end && *c->p != q) {
        if ((unsigned char)*c->p < 0x20)
            return fail(c->err, c->errlen, "header: unterminated %s string", what);
        if (*c->p == '\\' || n + 1 >= size)
            return fail(c->err, c->errlen, "header: %s string is too long or has escapes", what);
        buf[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return fail(c->err, c->errlen, "header: unterminated %s string", what);
    c->p++;
    buf[n] = '\0';
    return 0;
}

static int parse_descr(cursor *c, DLDataType *dt)
{
    char d[32];
    skip_space(c);
    if (c->p < c->end && *c->p == '[')
        return fail(c->err, c->errlen, "structured dtype (descr is a list): not supported");
    if (parse_string(c, d, sizeof d, "descr") != 0)
        return -1;
    char order = d[0], kind = d[0] ? d[1] : '\0';
    if (kind == 'O')
        return fail(c->err, c->errlen, "object array (descr '%s'): not supported", d);
    if (order != '<' && order != '|' && order != '>' && order != '=')
        return fail(c->err, c->errlen, "descr '%s': no byte-order character", d);
    for (size_t i = 0; i < NDTYPES; i++) {
        if (strcmp(d + 1, dtypes[i].descr) != 0)
            continue;
        /* a one-byte type has no byte order; a wider one must be little-endian */
        if (dtypes[i].dt.bits > 8 && order != '<')
            return fail(c->err, c->errlen, "descr '%s': only little-endian ('<') data is "
                        "supported", d);
        *dt = dtypes[i].dt;
        return 0;
    }
    return fail(c->err, c->errlen, "descr '%s': unsupported dtype (supported: bool, int8-64, "
                "uint8-64, float16/32/64; complex, strings, datetimes and void are not)", d);
}

static int parse_bool(cursor *c, int *out)
{
    skip_space(c);
    if (c->end - c->p >= 4 && memcmp(c->p, "True", 4) == 0) {
        c->p += 4;
        *out = 1;
    } else if (c->end - c->p >= 5 && memcmp(c->p, "False", 5) == 0) {
        c->p += 5;
        *out = 0;
    } else {
        return fail(c->err, c->errlen, "header: fortran_order is not True or False");
    }
    return 0;
}

static int parse_shape(cursor *c, npy_header *h)
{
    if (expect(c, '(', "to open shape") != 0)
        return -1;
    h->ndim = 0;
    for (;;) {
        skip_space(c);
        if (c->p < c->end && *c->p == ')')
            break;
        if (h->ndim == NPY_MAX_NDIM)
            return fail(c->err, c->errlen, "shape: more than %d dimensions", NPY_MAX_NDIM);
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return fail(c->err, c->errlen, "shape: dimension %d is not a non-negative integer",
                        h->ndim);
        int64_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            int digit = *c->p++ - '0';
            if (v > (INT64_MAX - digit) / 10)
                return fail(c->err, c->errlen, "shape: dimension %d overflows int64", h->ndim);
            v = v * 10 + digit;
        }
        h->shape[h->ndim++] = v;
        skip_space(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == ')')
            break;
        return fail(c->err, c->errlen, "shape: expected ',' or ')' after dimension %d",
                    h->ndim - 1);
    }
    c->p++;
    return 0;
}

int npy_parse_header(const char *text, size_t len, npy_header *out, char *err, size_t errlen)
{
    cursor c = { text, text, text + len, err, errlen };
    int seen_descr = 0, seen_fortran = 0, seen_shape = 0, fortran = 0;
    char key[32];
    if (memchr(text, '\0', len))
        return fail(err, errlen, "header: contains a NUL byte");
    if (expect(&c, '{', "to open the header dict") != 0)
        return -1;
    for (;;) {
        skip_space(&c);
        if (c.p < c.end && *c.p == '}')
            break;
        if (parse_string(&c, key, sizeof key, "key") != 0 || expect(&c, ':', "after a key") != 0)
            return -1;
        int *seen = strcmp(key, "descr") == 0 ? &seen_descr
                  : strcmp(key, "fortran_order") == 0 ? &seen_fortran
                  : strcmp(key, "shape") == 0 ? &seen_shape : NULL;
        if (!seen)
            return fail(err, errlen, "header: unknown key '%s'", key);
        if (*seen)
            return fail(err, errlen, "header: key '%s' appears twice", key);
        *seen = 1;
        if (seen == &seen_descr ? parse_descr(&c, &out->dtype)
            : seen == &seen_fortran ? parse_bool(&c, &fortran) : parse_shape(&c, out))
            return -1;
        skip_space(&c);
        if (c.p < c.end && *c.p == ',') {
            c.p++;
            continue;
        }
        if (c.p < c.end && *c.p == '}')
            break;
        return fail(err, errlen, "header: expected ',' or '}' after '%s'", key);
    }
    c.p++;
    skip_space(&c);
    if (c.p != c.end)
        return fail(err, errlen, "header: text after the closing '}'");
    if (!seen_descr || !seen_fortran || !seen_shape)
        return fail(err, errlen, "header: missing key '%s'",
                    !seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape");
    if (fortran)
        return fail(err, errlen, "fortran_order is True: only C-order arrays are supported "
                    "(save np.ascontiguousarray(a))");
    return 0;
}

/* ---- files ---- */

static uint32_t le16(const unsigned char *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8; }
static uint32_t le32(const unsigned char *b) { return le16(b) | le16(b + 2) << 16; }

static int read_exact(FILE *f, void *buf, size_t n)
{
    return fread(buf, 1, n, f) == n ? 0 : -1;
}

/* Magic, version, header length; leaves f at the header text. */
static int read_prefix(FILE *f, uint32_t *hlen, size_t *data_off, char *err, size_t errlen)
{
    unsigned char b[12];
    if (read_exact(f, b, 8) != 0 || memcmp(b, magic, sizeof magic) != 0)
        return fail(err, errlen, "not a .npy file (no \\x93NUMPY magic)");
    if (b[6] == 3)
        return fail(err, errlen, "format 3.0 (UTF-8 header) is not supported; 1.0 and 2.0 are");
    if ((b[6] != 1 && b[6] != 2) || b[7] != 0)
        return fail(err, errlen, "unknown format version %u.%u (1.0 and 2.0 are supported)",
                    b[6], b[7]);
    size_t lenbytes = b[6] == 1 ? 2 : 4;
    if (read_exact(f, b + 8, lenbytes) != 0)
        return fail(err, errlen, "truncated in the header length");
    *hlen = lenbytes == 2 ? le16(b + 8) : le32(b + 8);
    *data_off = 8 + lenbytes + *hlen;
    if (*hlen == 0 || *hlen > NPY_MAX_HEADER)
        return fail(err, errlen, "header length %u is outside 1..%u", *hlen, NPY_MAX_HEADER);
    return 0;
}

/* A .npy of `fsize` bytes from f (a file or an .npz member in memory). */
static int load_stream(FILE *f, uint64_t fsize, DLTensor **out, char *err, size_t errlen)
{
    struct { uint64_t st_size; } st = { fsize };
    uint32_t hlen = 0;
    size_t data_off = 0;
    npy_header h;
    char *text;
    int rc;
    if (read_prefix(f, &hlen, &data_off, err, errlen) != 0)
        return -1;
    if ((uint64_t)st.st_size < data_off)
        return fail(err, errlen, "truncated: the header needs %zu bytes, the file has %lld",
                    data_off, (long long)st.st_size);
    if (!(text = malloc(hlen)))
        return fail(err, errlen, "out of memory for the header");
    rc = read_exact(f, text, hlen) != 0 ? fail(err, errlen, "cannot read the header")
                                        : npy_parse_header(text, hlen, &h, err, errlen);
    free(text);
    if (rc != 0)
        return -1;
    /* size the data from the header, and allocate only what the file really holds */
    DLTensor probe = { .ndim = h.ndim, .shape = h.shape, .dtype = h.dtype };
    int64_t nbytes = objrt_tensor_nbytes(&probe);
    if (nbytes < 0)
        return fail(err, errlen, "shape: the element count overflows");
    if ((uint64_t)st.st_size - data_off != (uint64_t)nbytes)
        return fail(err, errlen, "data is %llu bytes, dtype %s and the shape need %llu",
                    (unsigned long long)((uint64_t)st.st_size - data_off),
                    npy_dtype_name(h.dtype), (unsigned long long)nbytes);
    if (TVMArrayAlloc(h.shape, h.ndim, h.dtype.code, h.dtype.bits, h.dtype.lanes, kDLCPU, 0,
                      out) != 0)
        return fail(err, errlen, "%s", TVMGetLastError());
    if (nbytes && read_exact(f, (*out)->data, (size_t)nbytes) != 0) {
        fail(err, errlen, "cannot read %lld bytes of data", (long long)nbytes);
        TVMArrayFree(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

int npy_load(const char *path, DLTensor **out, char *err, size_t errlen)
{
    const char *why;
    FILE *f = objrt_fopen_regular(path, &why);     /* a FIFO would block forever */
    int rc;
    *out = NULL;
    if (!f)
        return fail(err, errlen, "%s", why);
    struct stat st;                         /* regular: objrt_fopen_regular saw to it */
    if (fstat(fileno(f), &st) != 0)
        rc = fail(err, errlen, "%s", strerror(errno));
    else
        rc = load_stream(f, (uint64_t)st.st_size, out, err, errlen);
    fclose(f);
    return rc;
}

int npy_load_memory(const void *data, size_t size, DLTensor **out, char *err, size_t errlen)
{
    FILE *f = size ? fmemopen((void *)data, size, "rb") : NULL;
    int rc;
    *out = NULL;
    if (!f)
        return fail(err, errlen, size ? "%s" : "empty member%s", size ? strerror(errno) : "");
    rc = load_stream(f, size, out, err, errlen);
    fclose(f);
    return rc;
}

/* numpy's own header text: "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
 * space-padded and '\n'-ended so that the data starts at a multiple of 64. */
static int format_header(const DLTensor *t, const char *descr, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                                descr);
    for (int i = 0; i < t->ndim && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, i ? ", %lld" : "%lld", (long long)t->shape[i]);
    if (n < size)
        n += (size_t)snprintf(buf + n, size - n, t->ndim == 1 ? ",), }" : "), }");
    size_t total = (10 + n + 1 + 63) / 64 * 64;   /* prefix + text + '\n' */
    if (total - 10 > size || total - 10 > 65535)
        return -1;
    memset(buf + n, ' ', total - 10 - n - 1);
    buf[total - 10 - 1] = '\n';
    return (int)(total - 10);
}

/* To `path`, or with path NULL to a malloc'd buffer *mem of *memsize bytes. */
static int save_to(const char *path, char **mem, size_t *memsize, const DLTensor *t, char *err,
                   size_t errlen)
{
    const char *name = npy_dtype_name(t->dtype);
    char descr[8], text[2048];
    unsigned char prefix[10];
    int64_t nbytes = objrt_tensor_nbytes(t);
    int hlen;
    FILE *f;
    size_t i;
    if (!name || nbytes < 0 || t->strides || t->device.device_type != kDLCPU)
        return fail(err, errlen, "cannot save this tensor as .npy (dtype, strides or device)");
    for (i = 0; strcmp(dtypes[i].name, name) != 0; i++)
        ;
    snprintf(descr, sizeof descr, "%c%s", t->dtype.bits > 8 ? '<' : '|', dtypes[i].descr);
    if ((hlen = format_header(t, descr, text, sizeof text)) < 0)
        return fail(err, errlen, "header too long");
    memcpy(prefix, magic, sizeof magic);
    prefix[6] = 1;
    prefix[7] = 0;
    prefix[8] = (unsigned char)(hlen & 0xff);
    prefix[9] = (unsigned char)(hlen >> 8);
    if (!(f = path ? fopen(path, "wb") : open_memstream(mem, memsize)))
        return fail(err, errlen, "%s", strerror(errno));
    int bad = fwrite(prefix, 1, 10, f) != 10 || fwrite(text, 1, (size_t)hlen, f) != (size_t)hlen ||
              (nbytes && fwrite((const char *)t->data + t->byte_offset, 1, (size_t)nbytes, f) !=
                             (size_t)nbytes);
    if (fclose(f) != 0 || bad)
        return fail(err, errlen, "write failed: %s", strerror(errno));
    return 0;
}

int npy_save(const char *path, const DLTensor *t, char *err, size_t errlen)
{
    return save_to(path, NULL, NULL, t, err, errlen);
}

int npy_save_memory(const DLTensor *t, char **out, size_t *size, char *err, size_t errlen)
{
    *out = NULL;
    if (save_to(NULL, out, size, t, err, errlen) == 0)
        return 0;
    free(*out);
    *out = NULL;
    return -1;
}

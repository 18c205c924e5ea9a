/*
 * t_ar_corrupt.c - a truncated or corrupted ar archive must be refused cleanly.
 *
 * usage: t_ar_corrupt AR_MAIN.o LIBAR.a
 *   AR_MAIN.o references ar_one_fn, found in LIBAR.a (ar_one.o, which needs ar_two.o).
 * Each case corrupts a copy of the archive and loads { ar_main.o, libar.a } with
 * objrt_load_memory: NULL, an error naming the archive, no crash, nothing left behind.
 * Control: the unmodified pair loads and ar_main() returns 111.
 */
#include "t_common.h"

#define AR_MAGIC "!<arch>\n"
#define AR_HDR 60

static unsigned char *g_main, *g_ar;
static size_t g_main_size, g_ar_size;

struct member { size_t hdr; size_t data; size_t size; char name[17]; };
static struct member g_mem[16];
static int g_nmem;

/* Index the archive's members (the fixture is well formed). */
static void index_archive(void)
{
    if (g_ar_size < 8 || memcmp(g_ar, AR_MAGIC, 8) != 0) { fprintf(stderr, "fixture is not an archive\n"); exit(2); }
    size_t off = 8;
    while (off + AR_HDR <= g_ar_size && g_nmem < 16) {
        struct member *m = &g_mem[g_nmem++];
        m->hdr = off;
        m->data = off + AR_HDR;
        m->size = strtoul((const char *)g_ar + off + 48, NULL, 10);
        memcpy(m->name, g_ar + off, 16);
        m->name[16] = 0;
        off = m->data + m->size + (m->size & 1);
    }
}

/* The member whose name starts with `prefix` ("/" is the symbol index). */
static struct member *member(const char *prefix)
{
    for (int i = 0; i < g_nmem; i++)
        if (strncmp(g_mem[i].name, prefix, strlen(prefix)) == 0) return &g_mem[i];
    fprintf(stderr, "fixture archive has no member %s\n", prefix);
    exit(2);
}

/* Overwrite a header field (space padded like ar does). */
static void set_field(unsigned char *img, size_t at, size_t width, const char *text)
{
    memset(img + at, ' ', width);
    memcpy(img + at, text, strlen(text) < width ? strlen(text) : width);
}

typedef size_t (*ar_patch)(unsigned char *img, size_t size);   /* returns the new size */

static size_t a_cut_magic(unsigned char *img, size_t size) { (void)img; (void)size; return 4; }
static size_t a_cut_header(unsigned char *img, size_t size) { (void)img; (void)size; return 8 + 30; }
static size_t a_cut_member_header(unsigned char *img, size_t size) { (void)img; (void)size; return member("ar_two.o")->hdr + 20; }
static size_t a_cut_member(unsigned char *img, size_t size) { (void)img; (void)size; return member("ar_two.o")->data + member("ar_two.o")->size / 2; }
static size_t a_size_past_eof(unsigned char *img, size_t size) { set_field(img, member("ar_one.o")->hdr + 48, 10, "99999999"); return size; }
static size_t a_size_huge(unsigned char *img, size_t size) { set_field(img, member("ar_one.o")->hdr + 48, 10, "9999999999"); return size; }
static size_t a_size_nondigit(unsigned char *img, size_t size) { set_field(img, member("ar_one.o")->hdr + 48, 10, "12x4"); return size; }
static size_t a_size_negative(unsigned char *img, size_t size) { set_field(img, member("ar_one.o")->hdr + 48, 10, "-100"); return size; }
static size_t a_size_small(unsigned char *img, size_t size) { set_field(img, member("ar_one.o")->hdr + 48, 10, "10"); return size; }
static size_t a_size_empty(unsigned char *img, size_t size) { set_field(img, member("ar_one.o")->hdr + 48, 10, ""); return size; }
static size_t a_fmag(unsigned char *img, size_t size) { memcpy(img + member("ar_one.o")->hdr + 58, "XX", 2); return size; }
static size_t a_magic(unsigned char *img, size_t size) { memcpy(img, "!<arcX>\n", 8); return size; }
static size_t a_index_count(unsigned char *img, size_t size)
{
    unsigned char *p = img + member("/ ")->data;            /* big-endian symbol count */
    p[0] = 0x7f; p[1] = 0xff; p[2] = 0xff; p[3] = 0xff;
    return size;
}
static size_t a_index_offset(unsigned char *img, size_t size)
{
    unsigned char *p = img + member("/ ")->data + 4;        /* first member offset */
    p[0] = 0x7f; p[1] = 0xff; p[2] = 0xff; p[3] = 0xf0;
    return size;
}
static size_t a_index_misaligned(unsigned char *img, size_t size)
{
    unsigned char *p = img + member("/ ")->data;
    uint32_t count = (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
    for (uint32_t i = 0; i < count; i++) {                 /* every offset points 1 byte in */
        unsigned char *o = p + 4 + 4 * i;
        uint32_t v = ((uint32_t)o[0] << 24 | o[1] << 16 | o[2] << 8 | o[3]) + 1;
        o[0] = v >> 24; o[1] = v >> 16; o[2] = v >> 8; o[3] = v;
    }
    return size;
}
static size_t a_index_size(unsigned char *img, size_t size) { set_field(img, member("/ ")->hdr + 48, 10, "2"); return size; }
static size_t a_longname(unsigned char *img, size_t size) { set_field(img, member("ar_one.o")->hdr, 16, "/9999"); return size; }
static size_t a_member_magic(unsigned char *img, size_t size) { img[member("ar_one.o")->data + 1] = 'X'; return size; }
static size_t a_member_shoff(unsigned char *img, size_t size)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)(img + member("ar_one.o")->data);
    Elf64_Off bad = 0x7fff0000;
    memcpy(&eh->e_shoff, &bad, sizeof bad);
    return size;
}

/* `index_only`: only the symbol index is damaged. A loader that walks the members instead
 * of trusting the index may load such an archive, but then it must link correctly. */
static const struct { const char *name; ar_patch patch; const char *member; int index_only; } cases[] = {
    { "truncated-magic", a_cut_magic, NULL, 0 },
    { "truncated-first-header", a_cut_header, NULL, 0 },
    { "truncated-member-header", a_cut_member_header, NULL, 0 },
    { "truncated-member-data", a_cut_member, NULL, 0 },
    { "member-size-past-eof", a_size_past_eof, NULL, 0 },
    { "member-size-10-digits", a_size_huge, NULL, 0 },
    { "member-size-not-a-number", a_size_nondigit, NULL, 0 },
    { "member-size-negative", a_size_negative, NULL, 0 },
    { "member-size-too-small", a_size_small, NULL, 0 },
    { "member-size-blank", a_size_empty, NULL, 0 },
    { "bad-header-terminator", a_fmag, NULL, 0 },
    { "bad-global-magic", a_magic, NULL, 0 },
    { "index-count-huge", a_index_count, NULL, 1 },
    { "index-offset-past-eof", a_index_offset, NULL, 1 },
    { "index-offsets-not-headers", a_index_misaligned, NULL, 1 },
    { "index-size-too-small", a_index_size, NULL, 0 },
    { "long-name-without-table", a_longname, NULL, 0 },
    { "member-not-elf", a_member_magic, "ar_one.o", 0 },
    { "member-e_shoff-past-end", a_member_shoff, "ar_one.o", 0 },
};

struct job { ar_patch patch; const char *member; int index_only; };

static int load_patched(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    struct job *j = arg;
    unsigned char *img = t_copy(g_ar, g_ar_size);
    size_t size = j->patch(img, g_ar_size);
    objrt_input in[2] = { { "ar_main.o", g_main, g_main_size }, { "libbroken.a", img, size } };
    objrt_unit *u = objrt_load_memory(ctx, in, 2);
    free(img);
    if (u && j->index_only)        /* a broken index may be ignored: the link must work */
        return t_unit_call(u, "ar_main", 111, why, whylen);
    const char *needles[2] = { j->member, NULL };
    return t_refused(ctx, u, "corrupted archive loaded", "libbroken.a", needles, why, whylen);
}

static int run_case(void *arg, char *why, size_t whylen)
{
    return t_fails_cleanly_new(load_patched, arg, "libbroken.a", why, whylen);
}

static int run_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_input in[2] = { { "ar_main.o", g_main, g_main_size }, { "libar.a", g_ar, g_ar_size } };
    return t_mem_call(in, 2, "ar_main", 111, why, whylen);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 3, "AR_MAIN.o LIBAR.a");
    g_main = t_read_file(argv[1], &g_main_size);
    g_ar = t_read_file(argv[2], &g_ar_size);
    index_archive();
    t_case("ar-control-unmodified-loads", run_control, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct job j = { cases[i].patch, cases[i].member, cases[i].index_only };
        char name[128];
        snprintf(name, sizeof name, "ar-%s", cases[i].name);
        t_case(name, run_case, &j);
    }
    free(g_main);
    free(g_ar);
    return t_exit_status();
}

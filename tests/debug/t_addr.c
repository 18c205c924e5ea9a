/*
 * t_addr.c - objrt_addr_info names globals, locals (static functions and data), addresses
 * inside a symbol and between symbols, archive members, and refuses host addresses.
 *   usage: t_addr ADDR_O LIB_A USER_O   (addr.o; an archive with member addr.o; an object
 *                                        calling global_fn)
 */
#include "../unit/t_common.h"

static objrt_location where(objrt_ctx *ctx, const void *p, int *rc)
{
    objrt_location info;
    memset(&info, 0xa5, sizeof info);      /* a field left unset shows as garbage */
    *rc = objrt_addr_info(ctx, p, &info);
    return info;
}

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

static void check_symbol(const char *name, objrt_ctx *ctx, const void *p, const char *sym,
                         size_t off, int local, const char *section_prefix)
{
    int rc;
    objrt_location i = where(ctx, p, &rc);
    t_report(name, rc == 0 && same(i.symbol, sym) && i.offset == off && i.local == local &&
             i.section && strncmp(i.section, section_prefix, strlen(section_prefix)) == 0 &&
             (const char *)p - (const char *)i.symbol_addr == (long)off,
             "rc=%d symbol=%s+0x%zx local=%d section=%s, expected %s+0x%zx local=%d in %s*",
             rc, rc ? "-" : i.symbol ? i.symbol : "(null)", rc ? 0 : i.offset, rc ? -1 : i.local,
             rc ? "-" : i.section, sym, off, local, section_prefix);
}

static void plain_object(const char *path)
{
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load(ctx, &path, 1);
    if (!u) {
        t_report("addr-load", 0, "%s", objrt_error(ctx));
        objrt_free(ctx);
        return;
    }
    char *gfn = objrt_unit_sym(u, "global_fn"), *gdata = objrt_unit_sym(u, "global_data");
    void *(*lfn)(void) = (void *(*)(void))objrt_unit_sym(u, "addr_of_local_fn");
    void *(*ldata)(void) = (void *(*)(void))objrt_unit_sym(u, "addr_of_local_data");
    const char *(*msg)(void) = (const char *(*)(void))objrt_unit_sym(u, "addr_of_message");
    if (!gfn || !gdata || !lfn || !ldata || !msg) {
        t_report("addr-symbols", 0, "a fixture symbol is missing");
        objrt_free(ctx);
        return;
    }
    check_symbol("addr-global-function", ctx, gfn, "global_fn", 0, 0, ".text");
    check_symbol("addr-inside-global-function", ctx, gfn + 3, "global_fn", 3, 0, ".text");
    check_symbol("addr-global-data", ctx, gdata + 8, "global_data", 8, 0, ".data");
    check_symbol("addr-local-function", ctx, lfn(), "local_fn", 0, 1, ".text");
    check_symbol("addr-local-data", ctx, (char *)ldata() + 4, "local_data", 4, 1, ".data");

    /* A string literal has no symbol: the answer is its section and the offset in it. */
    int rc;
    const char *m = msg();
    objrt_location i = where(ctx, m + 2, &rc);
    t_report("addr-between-symbols", rc == 0 && i.symbol == NULL && i.section &&
             strncmp(i.section, ".rodata", 7) == 0 &&
             i.offset == (size_t)(m + 2 - (const char *)i.section_addr) && same(i.file, path) &&
             i.member == NULL && same(i.object, path) && i.unit == u,
             "rc=%d symbol=%s section=%s offset=0x%zx file=%s", rc,
             rc ? "-" : i.symbol ? i.symbol : "(null)", rc ? "-" : i.section,
             rc ? 0 : i.offset, rc ? "-" : i.file);

    /* Negative controls: host code, and the same unit after unload. */
    rc = objrt_addr_info(ctx, (void *)plain_object, &i);
    t_report("addr-host-address-refused", rc == -1 && strstr(objrt_error(ctx), "not inside"),
             "rc=%d error '%s'", rc, objrt_error(ctx));
    objrt_unload(u);
    rc = objrt_addr_info(ctx, gfn, &i);
    t_report("addr-after-unload-refused", rc == -1, "rc=%d after unload", rc);
    rc = objrt_addr_info(NULL, gfn, &i);
    t_report("addr-after-unload-any-context", rc == -1, "rc=%d after unload (ctx NULL)", rc);
    objrt_free(ctx);
}

/* The same object as member addr.o of an archive, pulled in by user.o. */
static void archive_member(const char *user, const char *archive)
{
    objrt_ctx *ctx = objrt_new();
    const char *paths[] = { user, archive };
    objrt_unit *u = objrt_load(ctx, paths, 2);
    char *fn = u ? objrt_unit_sym(u, "global_fn") : NULL;
    int rc = -1;
    objrt_location i;
    if (fn)
        rc = objrt_addr_info(NULL, fn + 1, &i);    /* any context */
    char want[4096];
    snprintf(want, sizeof want, "%s(addr.o)", archive);
    t_report("addr-archive-member", rc == 0 && same(i.file, archive) && same(i.member, "addr.o") &&
             same(i.object, want) && same(i.symbol, "global_fn") && i.offset == 1,
             "rc=%d file=%s member=%s object=%s symbol=%s (%s)", rc, rc ? "-" : i.file,
             rc ? "-" : i.member ? i.member : "(null)", rc ? "-" : i.object,
             rc ? "-" : i.symbol, objrt_error(ctx));
    objrt_free(ctx);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: t_addr ADDR_O LIBADDR_A USER_O\n");
        return 2;
    }
    plain_object(argv[1]);
    archive_member(argv[3], argv[2]);
    return t_exit_status();
}

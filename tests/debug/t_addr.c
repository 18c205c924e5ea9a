/*
 * t_addr.c - objrt_addr_info names globals, locals (static functions and data), addresses
 * inside a symbol and between symbols, archive members, and refuses host addresses.
 *   usage: t_addr ADDR_O LIB_A USER_O   (addr.o; an archive with member addr.o; an object
 *                                        calling global_fn)
 * Each case loads its own unit into a fresh context and runs crash-isolated (t_case).
 * Under ASan a case also fails when it leaked heap memory.
 */
#include "../robustness/t_common.h"

static const char *g_addr_o, *g_lib_a, *g_user_o;

static objrt_location where(objrt_ctx *ctx, const void *p, int *rc)
{
    objrt_location info;
    memset(&info, 0xa5, sizeof info);      /* a field left unset shows as garbage */
    *rc = objrt_addr_info(ctx, p, &info);
    return info;
}

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

static objrt_unit *load_addr_o(objrt_ctx **ctx, char *why, size_t whylen)
{
    return t_load_fresh(ctx, g_addr_o, why, whylen);
}

/* ---- symbols of a plain object ---------------------------------------------------------- */

/* An address of addr.o and what objrt_addr_info must say about it: the symbol `via` (or,
 * with `call`, the address the function `via` returns) plus `add`, expected to be `sym`
 * + `off` in a section named `section`*. */
typedef struct sym_case {
    const char *via;
    int call;
    size_t add;
    const char *sym;
    size_t off;
    int local;
    const char *section;
} sym_case;

static const sym_case global_function = { "global_fn", 0, 0, "global_fn", 0, 0, ".text" };
static const sym_case inside_global_function = { "global_fn", 0, 3, "global_fn", 3, 0, ".text" };
static const sym_case global_data = { "global_data", 0, 8, "global_data", 8, 0, ".data" };
static const sym_case local_function = { "addr_of_local_fn", 1, 0, "local_fn", 0, 1, ".text" };
static const sym_case local_data = { "addr_of_local_data", 1, 4, "local_data", 4, 1, ".data" };

static int check_symbol(void *arg, char *why, size_t whylen)
{
    const sym_case *c = arg;
    objrt_ctx *ctx;
    objrt_unit *u = load_addr_o(&ctx, why, whylen);
    if (!u) return 0;
    char *p = objrt_unit_sym(u, c->via);
    if (!p) {
        snprintf(why, whylen, "addr.o exports no %s", c->via);
        return t_ctx_done(ctx, 0, why, whylen);
    }
    if (c->call)
        p = ((char *(*)(void))p)();
    p += c->add;
    int rc;
    objrt_location i = where(ctx, p, &rc);
    int ok = rc == 0 && same(i.symbol, c->sym) && i.offset == c->off && i.local == c->local &&
             i.section && strncmp(i.section, c->section, strlen(c->section)) == 0 &&
             p - (const char *)i.symbol_addr == (long)c->off;
    snprintf(why, whylen, "rc=%d symbol=%s+0x%zx local=%d section=%s, expected %s+0x%zx local=%d in %s*",
             rc, rc ? "-" : i.symbol ? i.symbol : "(null)", rc ? 0 : i.offset, rc ? -1 : i.local,
             rc ? "-" : i.section, c->sym, c->off, c->local, c->section);
    return t_ctx_done(ctx, ok, why, whylen);
}

/* A string literal has no symbol: the answer is its section and the offset in it. */
static int between_symbols(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx;
    objrt_unit *u = load_addr_o(&ctx, why, whylen);
    if (!u) return 0;
    const char *(*msg)(void) = (const char *(*)(void))objrt_unit_sym(u, "addr_of_message");
    if (!msg) {
        snprintf(why, whylen, "addr.o exports no addr_of_message");
        return t_ctx_done(ctx, 0, why, whylen);
    }
    int rc;
    const char *m = msg();
    objrt_location i = where(ctx, m + 2, &rc);
    int ok = rc == 0 && i.symbol == NULL && i.section && strncmp(i.section, ".rodata", 7) == 0 &&
             i.offset == (size_t)(m + 2 - (const char *)i.section_addr) && same(i.file, g_addr_o) &&
             i.member == NULL && same(i.object, g_addr_o) && i.unit == u;
    snprintf(why, whylen, "rc=%d symbol=%s section=%s offset=0x%zx file=%s", rc,
             rc ? "-" : i.symbol ? i.symbol : "(null)", rc ? "-" : i.section,
             rc ? 0 : i.offset, rc ? "-" : i.file);
    return t_ctx_done(ctx, ok, why, whylen);
}

/* ---- negative controls: host code, and the same unit after unload ------------------------ */

static int host_address_refused(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx;
    if (!load_addr_o(&ctx, why, whylen)) return 0;
    objrt_location i;
    int rc = objrt_addr_info(ctx, (void *)host_address_refused, &i);
    snprintf(why, whylen, "rc=%d error '%s'", rc, objrt_error(ctx));
    return t_ctx_done(ctx, rc == -1 && strstr(objrt_error(ctx), "not inside"), why, whylen);
}

/* With &any_context as arg: ask with no context (any context) instead of the unit's. */
static int any_context = 1;
static int after_unload_refused(void *arg, char *why, size_t whylen)
{
    objrt_ctx *ctx;
    objrt_unit *u = load_addr_o(&ctx, why, whylen);
    if (!u) return 0;
    char *gfn = objrt_unit_sym(u, "global_fn");
    if (!gfn) {
        snprintf(why, whylen, "addr.o exports no global_fn");
        return t_ctx_done(ctx, 0, why, whylen);
    }
    objrt_location i;
    int rc = objrt_addr_info(ctx, gfn, &i), ok = rc == 0;
    snprintf(why, whylen, "rc=%d before the unload (%s)", rc, objrt_error(ctx));
    if (ok) {
        objrt_unload(u);
        rc = objrt_addr_info(arg ? NULL : ctx, gfn, &i);
        ok = rc == -1;
        snprintf(why, whylen, "rc=%d after unload%s", rc, arg ? " (ctx NULL)" : "");
    }
    return t_ctx_done(ctx, ok, why, whylen);
}

/* ---- the same object as member addr.o of an archive, pulled in by user.o ----------------- */

static int archive_member(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    const char *paths[] = { g_user_o, g_lib_a };
    objrt_unit *u = objrt_load(ctx, paths, 2);
    char *fn = u ? objrt_unit_sym(u, "global_fn") : NULL;
    int rc = -1;
    objrt_location i;
    if (fn)
        rc = objrt_addr_info(NULL, fn + 1, &i);    /* any context */
    char want[4096];
    snprintf(want, sizeof want, "%s(addr.o)", g_lib_a);
    int ok = rc == 0 && same(i.file, g_lib_a) && same(i.member, "addr.o") && same(i.object, want) &&
             same(i.symbol, "global_fn") && i.offset == 1;
    snprintf(why, whylen, "rc=%d file=%s member=%s object=%s symbol=%s (%s)", rc, rc ? "-" : i.file,
             rc ? "-" : i.member ? i.member : "(null)", rc ? "-" : i.object,
             rc ? "-" : i.symbol, objrt_error(ctx));
    return t_ctx_done(ctx, ok, why, whylen);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 4, "ADDR_O LIBADDR_A USER_O");
    g_addr_o = argv[1];
    g_lib_a = argv[2];
    g_user_o = argv[3];
    static const t_entry cases[] = {
        { "addr-global-function", check_symbol, (void *)&global_function },
        { "addr-inside-global-function", check_symbol, (void *)&inside_global_function },
        { "addr-global-data", check_symbol, (void *)&global_data },
        { "addr-local-function", check_symbol, (void *)&local_function },
        { "addr-local-data", check_symbol, (void *)&local_data },
        { "addr-between-symbols", between_symbols, NULL },
        { "addr-host-address-refused", host_address_refused, NULL },
        { "addr-after-unload-refused", after_unload_refused, NULL },
        { "addr-after-unload-any-context", after_unload_refused, &any_context },
        { "addr-archive-member", archive_member, NULL },
    };
    t_cases(cases, sizeof cases / sizeof cases[0]);
    return t_exit_status();
}

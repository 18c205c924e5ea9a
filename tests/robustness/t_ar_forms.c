/*
 * t_ar_forms.c - the archive forms ar really writes are handled.
 *
 * usage: t_ar_forms AR_MAIN.o LONG.a NOINDEX.a THIN.a EMPTY.a
 *   LONG.a     members with names > 15 characters (GNU "//" name table): links, 111
 *   NOINDEX.a  made with `ar rcS` (no symbol index): links, 111
 *   THIN.a     `ar rcsT` (members stay outside): refused, the error names it and "thin"
 *   EMPTY.a    just the magic: alone it loads as an empty unit; with AR_MAIN.o the error
 *              names the symbol still undefined (ar_one_fn)
 */
#include "t_common.h"

static const char *g_main;

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Links AR_MAIN.o with `ar`; 1 when it loads and ar_main() is 111. */
static int run_links(const char *ar, char *why, size_t whylen)
{
    const char *paths[2] = { g_main, ar };
    return t_files_call(paths, 2, "ar_main", 111, why, whylen);
}

static const char *g_long, *g_noindex, *g_thin, *g_empty;
static int c_long(void *a, char *w, size_t n) { (void)a; return run_links(g_long, w, n); }
static int c_noindex(void *a, char *w, size_t n) { (void)a; return run_links(g_noindex, w, n); }

/* objrt reads members from inside the archive only: a thin one is refused by name. */
static int c_thin(void *a, char *why, size_t whylen)
{
    (void)a;
    objrt_ctx *ctx = objrt_new();
    const char *paths[2] = { g_main, g_thin };
    int ok = t_refused(ctx, objrt_load(ctx, paths, 2), "a thin archive linked", base(g_thin),
                       (const char *[]){ "thin", NULL }, why, whylen);
    objrt_free(ctx);
    return ok;
}

static int c_empty_alone(void *a, char *why, size_t whylen)
{
    (void)a;
    return t_files_call(&g_empty, 1, NULL, 0, why, whylen);
}

static int c_empty_needed(void *a, char *why, size_t whylen)
{
    (void)a;
    objrt_ctx *ctx = objrt_new();
    const char *paths[2] = { g_main, g_empty };
    return t_refused(ctx, objrt_load(ctx, paths, 2), "linked although ar_one_fn is defined nowhere",
                     NULL, (const char *[]){ "ar_one_fn", NULL }, why, whylen);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 6, "AR_MAIN.o LONG.a NOINDEX.a THIN.a EMPTY.a");
    g_main = argv[1]; g_long = argv[2]; g_noindex = argv[3]; g_thin = argv[4]; g_empty = argv[5];
    static const t_entry cases[] = {
        { "ar-long-member-names-link", c_long, NULL }, { "ar-without-index-links", c_noindex, NULL },
        { "ar-thin-refused-named", c_thin, NULL }, { "ar-empty-alone-loads-empty-unit", c_empty_alone, NULL },
        { "ar-empty-leaves-symbol-undefined", c_empty_needed, NULL },
    };
    t_cases(cases, sizeof cases / sizeof cases[0]);
    return t_exit_status();
}

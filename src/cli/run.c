/*
 * run.c - `objrt run`: link FILE... as one unit in this process and run its main (or -e
 * SYMBOL, or the packed function its __tvm_main__ names), exiting with its status. Also the
 * arguments `objrt layout` shares with it (-l, --page-size, FILE...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "cli.h"
#include "objrt.h"
#include "objrt/tvm_backend.h"

static int run_main(int argc, char **argv);

const cli_command cli_run = {
    .name = "run",
    .synopsis =
        "objrt run [-e SYMBOL] [-l LIB]... [--stats] [--page-size N] [--export-dynamic]\n"
        "          FILE... [-- ARG...]\n",
    .summary =
        "link the ELF relocatable objects and ar archives FILE... as one unit in this\n"
        "        process and call its main(argc, argv), or int SYMBOL(void) with -e\n",
    .help =
        "Link the ELF relocatable objects and ar archives FILE... as one unit in this process\n"
        "and call main(argc, argv) (argv[0] is the first FILE, then ARGs), or int SYMBOL(void)\n"
        "with -e; exit with its return value after running destructors and flushing stdio, as\n"
        "a normal exit would. A fatal signal in the program prints where it happened\n"
        "(object:function+offset) and a backtrace, then ends objrt by the same signal.\n"
        "  -e SYMBOL       entry point instead of main (a unit without main whose\n"
        "                  __tvm_main__ names a packed function runs that one)\n"
        "  -l LIB          make a shared library's symbols available (-l m, -l stdc++)\n"
        "  --stats         print link statistics to stderr, one line\n"
        "  --page-size N   plan with N-byte pages (4096, 16384, 65536)\n"
        "  --export-dynamic  the unit's symbols bind libraries it dlopens later, as\n"
        "                  -rdynamic does (an interpreter's extension modules)\n"
        "An option that says one thing (-e, --page-size) given twice differently is refused.\n"
        "\n"
        "exit status: the program's own; 125 if objrt fails (usage, load or link error);\n"
        "127 if the entry symbol is not defined.\n"
        CLI_ENV_HELP,
    .main = run_main,
};

enum { OPT_STATS = 0x200, OPT_PAGE_SIZE, OPT_EXPORT_DYNAMIC };

static const struct option run_longopts[] = {
    { "stats", no_argument, NULL, OPT_STATS },
    { "page-size", required_argument, NULL, OPT_PAGE_SIZE },
    { "export-dynamic", no_argument, NULL, OPT_EXPORT_DYNAMIC },
    { "entry", required_argument, NULL, 'e' },
    { "library", required_argument, NULL, 'l' },
    { 0 }
};
/* layout takes run's -l and --page-size, and nothing that only running means */
static const struct option layout_longopts[] = {
    { "page-size", required_argument, NULL, OPT_PAGE_SIZE },
    { "library", required_argument, NULL, 'l' },
    { 0 }
};

static int on_option(void *state, int opt, char *arg)
{
    link_args *a = state;
    uint64_t v;
    switch (opt) {
    case 1: a->files[a->nfiles++] = arg; return 0;
    case 'e':
        a->entry = arg;
        return cli_once(&a->entry_seen, "-e", arg);
    case 'l': a->libs[a->nlibs++] = arg; return 0;
    case OPT_STATS: a->stats = 1; return 0;
    case OPT_EXPORT_DYNAMIC: a->export_dynamic = 1; return 0;
    case OPT_PAGE_SIZE:         /* which sizes the loader plans with, objrt_set_options says */
        if (cli_once(&a->page_seen, "--page-size", arg) ||
            cli_number("--page-size", arg, 4096, 65536, &v))
            return -1;
        a->page_size = (size_t)v;
        return 0;
    }
    return -1;
}

int link_args_parse(const cli_command *cmd, bool layout, int argc, char **argv, link_args *a)
{
    int rest = argc, rc;
    a->libs = calloc((size_t)argc, sizeof *a->libs);
    a->files = calloc((size_t)argc, sizeof *a->files);
    if (!a->libs || !a->files)
        return -1;
    rc = cli_parse(cmd, argc, argv, layout ? "l:" : "e:l:", layout ? layout_longopts : run_longopts,
                   on_option, a, &rest);
    if (rc != 0)
        return rc;
    if (layout && rest < argc)
        return cli_bad_arg(cmd->name, "--", argv[rest], "layout runs nothing, so it takes no ARGs");
    a->prog_args = argv + rest;
    a->nprog = argc - rest;
    if (a->nfiles == 0) {
        fprintf(stderr, "objrt: no input files\nTry 'objrt %s --help' for more information.\n",
                cmd->name);
        return -1;
    }
    return 0;
}

objrt_ctx *link_args_ctx(const link_args *a)
{
    objrt_ctx *ctx = objrt_new();
    if (!ctx) {
        fprintf(stderr, "objrt: out of memory\n");
        return NULL;
    }
    objrt_options opt = { .page_size = a->page_size };
    if (objrt_set_options(ctx, &opt)) {
        char esc[256];          /* the value as typed: the library's message has its own */
        fprintf(stderr, "objrt: --page-size '%s': %s\n", objrt_escape(a->page_seen.val ?
                a->page_seen.val : "", esc, sizeof esc), objrt_error(ctx));
        objrt_free(ctx);
        return NULL;
    }
    for (int i = 0; i < a->nlibs; i++)
        if (objrt_add_library(ctx, a->libs[i])) {
            fprintf(stderr, "objrt: %s\n", objrt_error(ctx));
            objrt_free(ctx);
            return NULL;
        }
    return ctx;
}

void link_args_free(link_args *a)
{
    free(a->libs);
    free(a->files);
}

/* What `run` hands to the program lives until exit (argv must outlive main). */
static objrt_ctx *run_ctx;
static link_args run_args;
static char **run_argv;

/* Registered before the program runs, so it runs after the program's own atexit
 * handlers, as a static executable's destructors would: then stdio is flushed by exit. */
static void unload_at_exit(void)
{
    objrt_free(run_ctx);
    free(run_argv);
    link_args_free(&run_args);
}

/* A TVM module's entry (named by its __tvm_main__ string) takes packed arguments; run
 * it with none. Exit status: its integer result, or 1 with TVM's last error. */
static int call_tvm_main(TVMFunctionHandle h)
{
    TVMValue ret = { .v_int64 = 0 };
    int tcode = kTVMNullptr;
    int rc = objrt_tvm_func_ptr(h)(NULL, NULL, 0, &ret, &tcode, NULL);
    if (rc != 0) {
        fprintf(stderr, "objrt: %s failed: %s\n", objrt_tvm_func_name(h), TVMGetLastError());
        return 1;
    }
    return tcode == kTVMArgInt ? (int)ret.v_int64 : 0;
}

static void print_stats(objrt_unit *u)
{
    objrt_stats s;
    objrt_unit_stats(u, &s);
    fprintf(stderr, "objrt: link_us=%.1f objects=%zu relocations=%zu reserved_bytes=%zu "
            "used_bytes=%zu comdat_bytes_dropped=%zu\n", s.link_us, s.objects,
            s.relocations, s.reserved_bytes, s.used_bytes, s.comdat_bytes_dropped);
}

static int run_main(int argc, char **argv)
{
    link_args a = { 0 };
    int rc = link_args_parse(&cli_run, false, argc, argv, &a);
    if (rc) {
        link_args_free(&a);
        return rc > 0 ? 0 : EXIT_OBJRT;
    }
    run_args = a;
    objrt_crash_handler_install();      /* constructors run inside objrt_load */
    objrt_ctx *ctx = link_args_ctx(&a);
    if (!ctx) {
        link_args_free(&a);
        return EXIT_OBJRT;
    }
    objrt_unit *u = objrt_load(ctx, a.files, (size_t)a.nfiles);
    if (u && a.export_dynamic && objrt_unit_export(u)) {
        objrt_unload(u);
        u = NULL;
    }
    if (!u) {
        fprintf(stderr, "objrt: %s\n", objrt_error(ctx));
        objrt_free(ctx);
        link_args_free(&a);
        return EXIT_OBJRT;
    }
    if (a.stats)
        print_stats(u);
    const char *entry = a.entry ? a.entry : "main";
    void *fn = objrt_unit_sym(u, entry);
    TVMFunctionHandle tvm_main = !fn && !a.entry ? objrt_tvm_main(u) : NULL;
    if (tvm_main) {
        run_ctx = ctx;
        atexit(unload_at_exit);
        exit(call_tvm_main(tvm_main));
    }
    if (!fn) {
        fprintf(stderr, "objrt: entry symbol '%s' is not defined by the inputs\n", entry);
        objrt_free(ctx);
        link_args_free(&a);
        return EXIT_NOENTRY;
    }
    run_ctx = ctx;
    atexit(unload_at_exit);
    if (a.entry)
        exit(((int (*)(void))fn)());
    char **pargv = run_argv = calloc((size_t)a.nprog + 2, sizeof *pargv);
    if (!pargv)
        return EXIT_OBJRT;
    pargv[0] = (char *)a.files[0];
    for (int i = 0; i < a.nprog; i++)
        pargv[i + 1] = a.prog_args[i];
    exit(((int (*)(int, char **))fn)(a.nprog + 1, pargv));
}

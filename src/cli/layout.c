/* layout.c - `objrt layout`: plan the link `objrt run` would make, without loading it, and
 * print the plan (objrt_layout_report). Takes run's -l and --page-size (run.c parses them). */
#include <stdio.h>

#include "cli.h"
#include "objrt.h"

static int layout_main(int argc, char **argv);

const cli_command cli_layout = {
    .name = "layout",
    .synopsis = "objrt layout [-l LIB]... [--page-size N] FILE...\n",
    .summary =
        "print where `run` would put every section, the GOT and the stubs, without\n"
        "        loading anything\n",
    .help =
        "Plan the link of FILE... as `objrt run` would and print where every section, the GOT\n"
        "and the stubs would go, each permission group's size, bytes lost to alignment and\n"
        "page rounding, and for every relocation type the farthest value used against its\n"
        "limit. Nothing is loaded or run.\n"
        "  -l LIB          make a shared library's symbols available (-l m, -l stdc++)\n"
        "  --page-size N   plan with N-byte pages (4096, 16384, 65536)\n"
        "\n"
        "exit status: 0; 125 if objrt fails (usage, input or link error).\n",
    .main = layout_main,
};

static int layout_main(int argc, char **argv)
{
    link_args a = { 0 };
    int parsed = link_args_parse(&cli_layout, true, argc, argv, &a);
    if (parsed) {
        link_args_free(&a);
        return parsed > 0 ? 0 : EXIT_OBJRT;
    }
    objrt_ctx *ctx = link_args_ctx(&a);
    int rc = ctx ? objrt_layout_report(ctx, a.files, (size_t)a.nfiles, stdout) : -1;
    if (rc && ctx)
        fprintf(stderr, "objrt: %s\n", objrt_error(ctx));
    objrt_free(ctx);
    link_args_free(&a);
    return rc ? EXIT_OBJRT : 0;
}

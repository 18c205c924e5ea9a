/*
 * objrt - command-line front end of the loader: the table of its subcommands, one per file
 * (run.c, layout.c, call.c and its call_*.c), and the top-level --help and --version. Every
 * usage text, this one's synopsis included, is made from the table's entries (cli.h).
 *
 * Exit status: each subcommand's own (125 when objrt itself fails: usage, load or link
 * error, with a message on stderr); `objrt` alone or an unknown command: 125.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "objrt.h"

static const cli_command *const commands[] = { &cli_run, &cli_layout, &cli_call };
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const char top_tail[] =
    "Each command's --help says more (objrt call --help).\n"
    "\n"
    "exit status: 125 if objrt fails (usage, load or link error); run: the program's own,\n"
    "127 if the entry symbol is not defined; call: 1 if the kernel fails, 127 if FUNC is\n"
    "missing.\n"
    CLI_ENV_HELP;

static void synopsis(FILE *f)
{
    const char *lead = "usage: ";
    for (size_t i = 0; i < NCOMMANDS; i++)
        lead = cli_synopsis(f, commands[i], lead);
    fprintf(f, "%sobjrt --version | --help\n", lead);
}

static void top_help(FILE *f)
{
    synopsis(f);
    fputc('\n', f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "%-8s%s", commands[i]->name, commands[i]->summary);
    fprintf(f, "\n%s", top_tail);
}

int main(int argc, char **argv)
{
    int top = argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                            strcmp(argv[1], "--version") == 0);
    if (top && argc > 2)        /* "objrt --version extra": not a command to half-obey */
        return cli_bad_arg("", argv[1], argv[2], "takes no operand"), EXIT_OBJRT;
    if (top && strcmp(argv[1], "--version") == 0) {
        printf("objrt %s\n", objrt_version());
        return 0;
    }
    if (top) {
        top_help(stdout);
        return 0;
    }
    if (argc < 2) {
        synopsis(stderr);
        return EXIT_OBJRT;
    }
    /* each subcommand parses argv[1..] with argv[1] (its name) as its argv[0] */
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i]->name) == 0)
            return commands[i]->main(argc - 1, argv + 1);
    fprintf(stderr, "objrt: unknown command '%s'\nTry 'objrt --help' for more information.\n",
            argv[1]);
    return EXIT_OBJRT;
}

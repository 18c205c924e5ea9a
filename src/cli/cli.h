/* cli.h - what the objrt command's files share: the command table's entries, exit codes, the
 * option parser and its value rules, --repeat timing, the output directory. Nothing here is
 * part of libobjrt. */
#ifndef OBJRT_CLI_H
#define OBJRT_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define EXIT_KERNEL 1       /* the called kernel or graph failed */
#define EXIT_OBJRT 125      /* objrt itself failed: usage, input, load or link error */
#define EXIT_NOENTRY 127    /* the entry symbol or function is not there */

/* A subcommand of objrt, one per file (run.c, layout.c, call.c); main.c's table lists them,
 * and every usage text is made from these fields, so the synopsis of `objrt --help` names
 * each subcommand exactly as its own --help does. */
typedef struct cli_command {
    const char *name;
    const char *synopsis;   /* usage lines, each form starting "objrt NAME" (its continuation
                               lines indented past "objrt "); "usage: " is put before them */
    const char *summary;    /* for `objrt --help`: what it does, lines after the first indented
                               by 8 (under the name) */
    const char *help;       /* the rest of `objrt NAME --help`: what it does, its options */
    int (*main)(int argc, char **argv);     /* argv[0] is NAME; returns the exit status */
} cli_command;

extern const cli_command cli_run, cli_layout, cli_call;

/* The loader's variables a user of the command reaches for, the last lines of `objrt --help`
 * and `objrt run --help` (one text, so the two cannot drift; docs/reference.md lists all). */
#define CLI_ENV_HELP \
    "environment: OBJRT_PERF_MAP=1 writes /tmp/perf-PID.map for perf; OBJRT_PERF_JITDUMP=1\n" \
    "writes /tmp/jit-PID.dump for perf inject --jit; OBJRT_GDB_JIT=0 hides loaded code from\n" \
    "gdb; see objrt(1) for the kernel runtime's variables.\n"

/* "usage: " and cmd's synopsis lines, then its help: what `objrt NAME --help` prints. */
void cli_help(FILE *f, const cli_command *cmd);
/* The synopsis lines of cmd, the first after `lead` ("usage: "), the others after as many
 * spaces; returns the lead for whatever follows (spaces). */
const char *cli_synopsis(FILE *f, const cli_command *cmd, const char *lead);

/* One option parser for every subcommand, over getopt_long: short options `shortopts`,
 * long options `longopts` (`--opt=value` and `--opt value` both work, as does an
 * unambiguous prefix). Every subcommand also takes -h/--help (prints cli_help to stdout,
 * exit 0) and --version. Operands (FILE...) reach `on` in command-line order as option 1;
 * a `--` ends the options, and what follows it is left at argv[*rest] onwards.
 * `on(state, opt, optarg)` returns 0, or -1 after printing a message naming the option.
 * Returns 0; 1 when --help or --version was answered (the caller exits 0); -1 on a usage
 * error, with a message that names the option. argv[0] is the subcommand's name. */
int cli_parse(const cli_command *cmd, int argc, char **argv, const char *shortopts,
              const struct option *longopts, int (*on)(void *state, int opt, char *arg),
              void *state, int *rest);

/* "objrt: OPT VAL: WHY" on stderr (VAL escaped); returns -1. */
int cli_bad_arg(const char *cmd, const char *opt, const char *val, const char *why);

/* Every numeric option value is read here (base/number.h: digits only, decimal or 0x hex,
 * within [min, max]): 0 with *out, or -1 after "objrt: OPT 'TEXT': expected a whole number
 * from MIN to MAX", quoting what the user typed. */
int cli_number(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* Options that say one thing once: a value option (-f FUNC, -o DIR, --page-size N) or one
 * of several flags that exclude each other (--aot | --packed | --unpacked), all sharing one
 * cli_seen. Given again the same way, nothing changes; given differently, the second is a
 * contradiction, refused rather than silently winning: -1 after "objrt: -f 'b' contradicts
 * -f 'a' given before: give one". val is NULL for a flag. */
typedef struct cli_seen {
    const char *opt, *val;
} cli_seen;
int cli_once(cli_seen *seen, const char *opt, const char *val);

/* run.c: the arguments of `objrt run`, of which `objrt layout` takes -l, --page-size and
 * FILE... (layout.c: `layout` true). link_args_parse: 0 to go on, 1 when --help/--version was answered, -1
 * on a usage error (message printed); link_args_free in every case. link_args_ctx: a
 * context with the page size and libraries asked for, or NULL after a message. */
typedef struct link_args {
    const char *entry;
    const char **libs, **files;
    int nlibs, nfiles;
    char **prog_args;             /* after `--` */
    int nprog;
    int stats, export_dynamic;
    size_t page_size;
    cli_seen entry_seen, page_seen;     /* -e and --page-size, each given once */
} link_args;
int link_args_parse(const cli_command *cmd, bool layout, int argc, char **argv, link_args *a);
struct objrt_ctx *link_args_ctx(const link_args *a);
void link_args_free(link_args *a);

/* output.c: N runs of `once` in up to 1001 timed batches (so fast kernels are not timer-bound);
 * prints the median and minimum time per run on stdout. Stops at the first failure
 * (returns -1). `what` names the thing run, `unit` one run ("call", "run"). */
int cli_repeat_timed(int (*once)(const void *), const void *arg, long n, const char *what,
                     const char *unit);

/* output.c: create `dir` as `mkdir -p` does and check that files can be made in it; 0, or -1
 * after "objrt: OPT DIR: why". */
int cli_prepare_outdir(const char *opt, const char *dir);
/* A file the command wrote, named on stdout (one line, escaped), as soon as it is complete:
 * the user sees what appeared where, also when a later write fails. */
void cli_wrote(const char *path);


#endif

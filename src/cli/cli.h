/* cli.h - what the objrt command's files share: exit codes, the option parser, timing.
 * Nothing here is part of libobjrt. */
#ifndef OBJRT_CLI_H
#define OBJRT_CLI_H

#include <getopt.h>
#include <stdint.h>

#define EXIT_KERNEL 1       /* the called kernel or graph failed */
#define EXIT_OBJRT 125      /* objrt itself failed: usage, input, load or link error */
#define EXIT_NOENTRY 127    /* the entry symbol or function is not there */

/* One option parser for every subcommand, over getopt_long: short options `shortopts`,
 * long options `longopts` (`--opt=value` and `--opt value` both work, as does an
 * unambiguous prefix). Every subcommand also takes -h/--help (prints `usage` to stdout,
 * exit 0) and --version. Operands (FILE...) reach `on` in command-line order as option 1;
 * a `--` ends the options, and what follows it is left at argv[*rest] onwards.
 * `on(state, opt, optarg)` returns 0, or -1 after printing a message naming the option.
 * Returns 0; 1 when --help or --version was answered (the caller exits 0); -1 on a usage
 * error, with a message that names `cmd` and the option. argv[0] is the subcommand. */
int cli_parse(const char *cmd, const char *usage, int argc, char **argv, const char *shortopts,
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

/* N runs of `once` in up to 1001 timed batches (so fast kernels are not timer-bound);
 * prints the median and minimum time per run on stdout. Stops at the first failure
 * (returns -1). `what` names the thing run, `unit` one run ("call", "run"). */
int cli_repeat_timed(int (*once)(const void *), const void *arg, long n, const char *what,
                     const char *unit);

/* Create `dir` as `mkdir -p` does and check that files can be made in it; 0, or -1
 * after "objrt: OPT DIR: why". */
int cli_prepare_outdir(const char *opt, const char *dir);
/* A file the command wrote, named on stdout (one line, escaped), as soon as it is complete:
 * the user sees what appeared where, also when a later write fails. */
void cli_wrote(const char *path);

int cmd_call(int argc, char **argv);   /* call.c */

#endif

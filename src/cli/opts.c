/* opts.c - the option parser every subcommand uses (getopt_long), and its messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/number.h"
#include "cli.h"
#include "objrt.h"

#define OPT_HELP 0x100
#define OPT_VERSION 0x101
#define MAX_LONGOPTS 64

/* The caller's long options plus --help and --version. */
static int add_common(const struct option *in, struct option *out)
{
    int n = 0;
    for (; in && in[n].name; n++) {
        if (n == MAX_LONGOPTS - 3)
            return -1;
        out[n] = in[n];
    }
    out[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
    out[n++] = (struct option){ "version", no_argument, NULL, OPT_VERSION };
    out[n] = (struct option){ 0 };
    return 0;
}

/* getopt_long's own messages would name argv[0] ("call: ..."); ours use its wording,
 * name objrt, and say which subcommand's --help to read. */
static int usage_error(const char *cmd, char **argv, int c)
{
    const char *arg = argv[optind - 1];
    int is_long = strncmp(arg, "--", 2) == 0;
    if (c == ':' && is_long)
        fprintf(stderr, "objrt: option '%s' requires an argument\n", arg);
    else if (c == ':')
        fprintf(stderr, "objrt: option requires an argument -- '%c'\n", optopt);
    else if (is_long && optopt)     /* a known long option given =VALUE it does not take */
        fprintf(stderr, "objrt: option '%.*s' takes no value\n", (int)strcspn(arg, "="), arg);
    else if (is_long)
        fprintf(stderr, "objrt: unknown option '%s'\n", arg);
    else
        fprintf(stderr, "objrt: unknown option '-%c'\n", optopt);
    fprintf(stderr, "Try 'objrt %s --help' for more information.\n", cmd);
    return -1;
}

const char *cli_synopsis(FILE *f, const cli_command *cmd, const char *lead)
{
    static const char spaces[] = "                ";
    for (const char *line = cmd->synopsis; *line;) {
        size_t n = strcspn(line, "\n");
        fprintf(f, "%s%.*s\n", lead, (int)n, line);
        lead = spaces + sizeof spaces - 1 - strlen(lead);
        line += n + (line[n] == '\n');
    }
    return lead;
}

void cli_help(FILE *f, const cli_command *cmd)
{
    cli_synopsis(f, cmd, "usage: ");
    fprintf(f, "\n%s", cmd->help);
}

int cli_parse(const cli_command *cmd, int argc, char **argv, const char *shortopts,
              const struct option *longopts, int (*on)(void *state, int opt, char *arg),
              void *state, int *rest)
{
    struct option all[MAX_LONGOPTS];
    char opts[128];
    int c;
    /* '-': operands come back in order as option 1; ':': a missing value is ':' */
    if (add_common(longopts, all) != 0 ||
        snprintf(opts, sizeof opts, "-:h%s", shortopts) >= (int)sizeof opts) {
        fprintf(stderr, "objrt %s: internal error: too many options\n", cmd->name);
        return -1;
    }
    opterr = 0;
    optind = 0;          /* full re-initialisation (glibc) */
    while ((c = getopt_long(argc, argv, opts, all, NULL)) != -1) {
        if (c == OPT_HELP || c == 'h') {
            cli_help(stdout, cmd);
            return 1;
        }
        if (c == OPT_VERSION) {
            printf("objrt %s\n", objrt_version());
            return 1;
        }
        if (c == '?' || c == ':')
            return usage_error(cmd->name, argv, c);
        if (on(state, c, optarg) != 0)
            return -1;
    }
    *rest = optind;
    return 0;
}

int cli_bad_arg(const char *cmd, const char *opt, const char *val, const char *why)
{
    char esc[OBJRT_ESC_MAX];
    (void)cmd;           /* the option and its value say enough; kept for callers that name it */
    fprintf(stderr, "objrt: %s %s: %s\n", opt, objrt_escape(val, esc, sizeof esc), why);
    return -1;
}

int cli_number(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    char why[256];
    if (objrt_number(text, min, max, out, why, sizeof why) == 0)
        return 0;
    fprintf(stderr, "objrt: %s %s\n", opt, why);
    return -1;
}

/* "OPT" or "OPT 'VAL'", escaped, for a message. */
static const char *said(const char *opt, const char *val, char *buf, size_t len)
{
    char esc[256];
    if (val)
        snprintf(buf, len, "%s '%s'", opt, objrt_escape(val, esc, sizeof esc));
    else
        snprintf(buf, len, "%s", opt);
    return buf;
}

int cli_once(cli_seen *seen, const char *opt, const char *val)
{
    char now[320], before[320];
    if (!seen->opt || (strcmp(seen->opt, opt) == 0 &&
                       (val ? seen->val && strcmp(seen->val, val) == 0 : !seen->val))) {
        seen->opt = opt;
        seen->val = val;
        return 0;
    }
    fprintf(stderr, "objrt: %s contradicts %s given before: give one\n",
            said(opt, val, now, sizeof now), said(seen->opt, seen->val, before, sizeof before));
    return -1;
}

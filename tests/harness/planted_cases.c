/*
 * planted_cases.c - a test program with planted faults, for the harness self-checks
 * (tests/suites/00-harness.sh, through tests/harness/planted/60-program.sh).
 *   planted_cases pass     four cases, all pass (the control)
 *   planted_cases crash    case-1 passes, case-2 crashes in its forked child (t_case
 *                          reports it), then the program itself crashes: case-3 and
 *                          case-4 are never reported
 *   planted_cases hang     case-1 passes, then the program never ends
 *   planted_cases silent   prints nothing at all and exits 0
 * In list mode (T_LIST=1) it lists case-1..case-4 whatever the mode.
 */
#include <signal.h>
#include "t_common.h"

static int passes(void *arg, char *why, size_t whylen) { (void)arg, (void)why, (void)whylen; return 1; }

static int crashes(void *arg, char *why, size_t whylen)
{
    (void)arg, (void)why, (void)whylen;
    raise(SIGSEGV);
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "pass";
    int crash = strcmp(mode, "crash") == 0;
    if (strcmp(mode, "silent") == 0 && !t_listing())
        return 0;
    t_case("case-1", passes, NULL);
    if (strcmp(mode, "hang") == 0 && !t_listing())
        for (;;) pause();
    t_case("case-2", crash ? crashes : passes, NULL);
    if (crash && !t_listing()) {
        fflush(stdout);
        raise(SIGSEGV);
    }
    t_case("case-3", passes, NULL);
    t_case("case-4", passes, NULL);
    return t_exit_status();
}

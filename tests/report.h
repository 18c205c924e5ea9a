/*
 * report.h - the C side of the test reporter (header only), for every test program
 * (tests/robustness, tests/runtime, tests/aarch64); tests/lib.sh is the shell side and says
 * what the lines mean:
 *     PASS name            FAIL name: why           (objrt's behaviour)
 *     HARNESS PASS name    HARNESS FAIL name: why   (a self-check of the test machinery)
 *
 * List mode: with T_LIST=1 in the environment a program prints "EXPECT name" (or
 * "EXPECT HARNESS name") for each case it would report, runs none of them and exits 0.
 * tests/lib.sh run_cases declares those names before the real run, so a case the program
 * never reports (it crashed, hung, or returned early) is a FAIL by name. Cases go through
 * t_case (t_common.h) or t_run, which skip the body in list mode; t_report and t_harness
 * print the EXPECT line instead of a result there, so main() must compute nothing costly
 * or product-related outside a case (or call t_declare first and return when listing).
 *
 * One case: with CASE=PATTERN in the environment (a shell pattern, fnmatch; tests/run.sh
 * passes it on) only the cases whose name matches run, list and report.
 */
#ifndef T_REPORT_H
#define T_REPORT_H

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not every program uses every helper. */
#pragma GCC diagnostic ignored "-Wunused-function"

static int t_failures;

/* 1 in list mode (T_LIST set and not "0"). */
static int t_listing(void)
{
    static int mode = -1;
    if (mode < 0) {
        const char *e = getenv("T_LIST");
        mode = e && *e && strcmp(e, "0") != 0;
    }
    return mode;
}

/* Is `name` one of the cases CASE selects (all of them without CASE)? */
static int t_selected(const char *name)
{
    const char *c = getenv("CASE");
    return !c || !*c || fnmatch(c, name, 0) == 0;
}

static void t_vline(const char *kind, const char *name, int ok, const char *fmt, va_list ap)
{
    if (!t_selected(name))
        return;
    if (t_listing()) {
        printf("EXPECT %s%s\n", kind, name);
    } else if (ok) {
        printf("%sPASS %s\n", kind, name);
    } else {
        char why[1024];
        vsnprintf(why, sizeof why, fmt, ap);
        for (char *p = why; *p; p++)      /* one line per result */
            if (*p == '\n') *p = ' ';
        printf("%sFAIL %s: %s\n", kind, name, why);
        t_failures++;
    }
    fflush(stdout);
}

/* Report one check of objrt. `fmt` (the reason) is only used on failure. */
static void __attribute__((format(printf, 3, 4))) t_report(const char *name, int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_vline("", name, ok, fmt, ap);
    va_end(ap);
}

/* Report a self-check of the test machinery (counted apart from objrt's tests). */
static void __attribute__((format(printf, 3, 4))) t_harness(const char *name, int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_vline("HARNESS ", name, ok, fmt, ap);
    va_end(ap);
}

/* For a program whose main() does the work itself: in list mode print `names` (NULL
 * ends the list; a name starting "HARNESS " is a self-check) and exit. */
static void t_declare(const char *const *names)
{
    if (!t_listing())
        return;
    for (; *names; names++)
        if (t_selected(strncmp(*names, "HARNESS ", 8) == 0 ? *names + 8 : *names))
            printf("EXPECT %s\n", *names);
    exit(0);
}

/* Run one in-process case: `fn` returns 1 when it passed, else 0 with the reason in
 * `why` (cleared first). In list mode only the name is printed. */
static void t_run(const char *name, int (*fn)(void), char *why)
{
    if (!t_selected(name))
        return;
    if (t_listing()) {
        t_report(name, 1, " ");
        return;
    }
    why[0] = '\0';
    int ok = fn();
    t_report(name, ok, "%s", why);
}

static int t_exit_status(void) { return t_failures ? 1 : 0; }

#endif

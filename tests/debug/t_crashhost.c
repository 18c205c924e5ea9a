/*
 * t_crashhost.c - the crash report API from a host: `install` uses
 * objrt_crash_handler_install() (report, then death by the same signal); `own` installs
 * the host's own handler, which calls objrt_crash_report() to stdout and exits 42.
 *   usage: t_crashhost install|own CRASH_O
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "objrt.h"

static void own_handler(int sig, siginfo_t *si, void *uc)
{
    objrt_crash_report(STDOUT_FILENO, sig, si, uc);
    _exit(42);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    if (strcmp(argv[1], "install") == 0) {
        if (objrt_crash_handler_install())
            return 3;
    } else {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = own_handler;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGSEGV, &sa, NULL);
    }
    objrt_ctx *ctx = objrt_new();
    const char *p = argv[2];
    objrt_unit *u = objrt_load(ctx, &p, 1);
    int (*helper)(int *) = u ? (int (*)(int *))objrt_unit_sym(u, "helper") : NULL;
    if (!helper) {
        fprintf(stderr, "t_crashhost: %s\n", objrt_error(ctx));
        return 1;
    }
    fflush(stdout);
    return helper(NULL);
}

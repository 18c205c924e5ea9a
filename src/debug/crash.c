/*
 * crash.c - name the code a fatal signal came from: loaded units through their unit info
 * (object, symbol incl. locals, offset), the host through dladdr. Runs inside a signal
 * handler: no locks and no allocation (backtrace() loads its unwinder once, at install).
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "base/escape.h"
#include "debug/unitinfo.h"

#define MAX_FRAMES 64

static const char *signal_name(int sig, char *buf, size_t len)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS:  return "SIGBUS";
    case SIGILL:  return "SIGILL";
    case SIGFPE:  return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    default:
        snprintf(buf, len, "signal %d", sig);
        return buf;
    }
}

static uintptr_t context_pc(const void *ucontext)
{
    const ucontext_t *uc = ucontext;
    if (!uc)
        return 0;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    return 0;
#endif
}

/* "k.o:deref+0x4", "libc.so.6(abort+0x22)" or the bare address. A return address is
 * looked up one byte back (a call may be the last instruction of a function) but printed
 * with its own offset. */
static void where(uintptr_t pc, bool return_address, char *buf, size_t len)
{
    uintptr_t look = return_address ? pc - 1 : pc;
    const objrt_unitinfo *ui = objrt_unitinfo_find_unlocked(NULL, look);
    if (ui) {
        objrt_location ai;
        objrt_unitinfo_describe(ui, look, &ai);
        uintptr_t from = ai.symbol ? (uintptr_t)ai.symbol_addr : (uintptr_t)ai.section_addr;
        snprintf(buf, len, "%s:%s+0x%zx", ai.object ? ai.object : ui->name,
                 ai.symbol ? ai.symbol : ai.section ? ai.section : "?", (size_t)(pc - from));
        return;
    }
    Dl_info di;
    if (dladdr((void *)look, &di) && di.dli_fname) {
        const char *base = strrchr(di.dli_fname, '/');
        base = base ? base + 1 : di.dli_fname;
        if (di.dli_sname)
            snprintf(buf, len, "%s(%s+0x%zx)", base, di.dli_sname,
                     (size_t)(pc - (uintptr_t)di.dli_saddr));
        else
            snprintf(buf, len, "%s(+0x%zx)", base, (size_t)(pc - (uintptr_t)di.dli_fbase));
        return;
    }
    snprintf(buf, len, "0x%zx", (size_t)pc);
}

static void put(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static bool has_fault_address(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

/* where(), with the names it found (from inputs) escaped: one printable line each. */
static void where_escaped(uintptr_t pc, bool return_address, char *buf, size_t len)
{
    char raw[512];
    where(pc, return_address, raw, sizeof raw);
    objrt_escape(raw, buf, len);
}

void objrt_crash_report(int fd, int sig, const void *siginfo, const void *ucontext)
{
    char name[32], at[512], line[640];
    const siginfo_t *si = siginfo;
    uintptr_t pc = context_pc(ucontext);
    if (pc)
        where_escaped(pc, false, at, sizeof at);
    else
        snprintf(at, sizeof at, "an unknown address");
    if (si && has_fault_address(sig))
        snprintf(line, sizeof line, "objrt: %s at %s (fault address 0x%zx)\n",
                 signal_name(sig, name, sizeof name), at, (size_t)(uintptr_t)si->si_addr);
    else
        snprintf(line, sizeof line, "objrt: %s at %s\n", signal_name(sig, name, sizeof name), at);
    put(fd, line);

    void *frames[MAX_FRAMES];
    int n = backtrace(frames, MAX_FRAMES), first = 0;
    for (int i = 0; i < n && pc; i++)     /* skip this handler's own frames */
        if ((uintptr_t)frames[i] == pc) {
            first = i;
            break;
        }
    for (int i = first; i < n; i++) {
        where_escaped((uintptr_t)frames[i], i != first, at, sizeof at);
        snprintf(line, sizeof line, "objrt:   #%d %p %s\n", i - first, frames[i], at);
        put(fd, line);
    }
}

static void on_fatal_signal(int sig, siginfo_t *si, void *uc)
{
    objrt_crash_report(STDERR_FILENO, sig, si, uc);
    signal(sig, SIG_DFL);
    raise(sig);       /* pending until we return; a fault re-executes and dies the same way */
}

int objrt_crash_handler_install(void)
{
    static char altstack[64 * 1024];
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
    void *warm[2];
    backtrace(warm, 2);               /* loads libgcc_s now, not inside the handler */
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
    if (sigaltstack(&ss, NULL))
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigaction(sigs[i], &sa, NULL))
            return -1;
    return 0;
}

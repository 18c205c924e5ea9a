/*
 * crash.c - name the code a fatal signal came from: loaded units through their unit info
 * (object, symbol incl. locals, offset), the host through dladdr. Runs inside a signal
 * handler: no locks and no allocation (backtrace() loads its unwinder once, at install)
 * until everything but the source lines is written; those come last (source_lines).
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/arch.h"
#include "base/escape.h"
#include "debug/unitinfo.h"
#include "symbols/symbols.h"

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
    const objrt_arch *a = objrt_host_arch();
    return ucontext && a && a->context_pc ? a->context_pc(ucontext) : 0;
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

/* ---- source lines: after everything above is out -------------------------------------
 * libdw allocates and takes locks, which a crash inside malloc or the dynamic linker may
 * hold for ever: the lines come last, and an alarm ends a report that hangs there with
 * the signal it is reporting (as the report's own caller would have). */
#define SOURCE_LINES_SECONDS 5

static volatile sig_atomic_t reported_sig, reported_fd = STDERR_FILENO;

static void source_lines_hung(int unused)
{
    (void)unused;
    int sig = reported_sig;
    put(reported_fd, "objrt: (source lines: libdw did not answer; ended)\n");
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

/* "objrt:   #N file.c:LINE" for each frame in a loaded unit whose object has line
 * information (-g), with " in ns::f(int)" for a C++ function; nothing when none has. */
static void source_lines_run(int fd, int sig, void *const *frames, int n)
{
    char src[400], esc[512], line[640];
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = source_lines_hung;
    sigemptyset(&sa.sa_mask);
    reported_sig = sig;
    reported_fd = fd;
    bool armed = false, header = false;
    unsigned host_alarm = 0;            /* a host's own alarm, given back afterwards */
    for (int i = 0; i < n; i++) {
        uintptr_t look = (uintptr_t)frames[i] - (i ? 1 : 0);    /* as where() does */
        const objrt_unitinfo *ui = objrt_unitinfo_find_unlocked(NULL, look);
        if (!ui)
            continue;
        objrt_location ai;
        objrt_unitinfo_describe(ui, look, &ai);
        if (!ai.object)
            continue;
        if (!armed) {
            armed = sigaction(SIGALRM, &sa, &old) == 0;
            host_alarm = alarm(SOURCE_LINES_SECONDS);
        }
        if (!objrt_srcline(ui, ai.object, look, src, sizeof src))
            continue;
        if (!header)
            put(fd, "objrt: source lines (DWARF, read with libdw):\n");
        header = true;
        char *fn = ai.symbol ? objrt_demangle(ai.symbol) : NULL;    /* C++: the name */
        char efn[256];
        snprintf(line, sizeof line, "objrt:   #%d %s%s%s\n", i, objrt_escape(src, esc, sizeof esc),
                 fn ? " in " : "", fn ? objrt_escape(fn, efn, sizeof efn) : "");
        free(fn);
        put(fd, line);
    }
    if (armed) {
        alarm(0);
        sigaction(SIGALRM, &old, NULL);
        alarm(host_alarm);
    }
}

/* libdw's line reader needs far more stack than a signal stack has (objrt's is 64 KiB;
 * a host's own handler may run on less): the lines are read on a stack of their own. */
static char lines_stack[1024 * 1024];
static ucontext_t lines_ctx, lines_back;
static struct { int fd, sig, n; void *const *frames; } lines_job;

static void lines_entry(void)
{
    source_lines_run(lines_job.fd, lines_job.sig, lines_job.frames, lines_job.n);
}

static void source_lines(int fd, int sig, void *const *frames, int n)
{
    lines_job.fd = fd;
    lines_job.sig = sig;
    lines_job.frames = frames;
    lines_job.n = n;
    if (getcontext(&lines_ctx))
        return;
    lines_ctx.uc_stack.ss_sp = lines_stack;
    lines_ctx.uc_stack.ss_size = sizeof lines_stack;
    lines_ctx.uc_link = &lines_back;
    makecontext(&lines_ctx, lines_entry, 0);
    swapcontext(&lines_back, &lines_ctx);
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
    source_lines(fd, sig, frames + first, n - first);
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

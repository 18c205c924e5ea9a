/*
 * perfmap.c - name loaded code for `perf`: every function of a unit is appended to
 * /tmp/perf-<pid>.map as "START SIZE name" (hex), the format perf reads for JIT code.
 * When: OBJRT_PERF_MAP=1 always, =0 never; unset, when the process was started by perf
 * (`perf record ./host`: its parent's name is perf's). A process not under perf pays one
 * read of /proc/<ppid>/comm, once; writing the map on every load would cost each load a
 * file open and close (for a 5-function unit about 10.7k instructions and 110 us, +45% of
 * its load: docs/reference.md), and leave a file in /tmp behind every program.
 * jitdump.c writes the code itself for `perf inject --jit`, on request.
 *
 * /tmp is shared with every user, so the file is treated as hostile ground: the variable is
 * read with secure_getenv (ignored in set-user-ID programs: the file is an effect outside
 * the process); the file is opened without following a symbolic link, created 0600, and
 * written only when it is a regular file with one link, owned by us, that no one else can
 * read or write (a file someone planted is left alone, and nothing is written). Symbol names
 * come from the input: they are written as objrt_escape makes them (escape.h), so that no
 * name can forge or break a line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "debug/unitinfo.h"
#include "symbols/symbols.h"

static FILE *open_map(void)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    /* O_NONBLOCK: a FIFO planted under the name must not block the load */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
                  0600);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1 ||
        (st.st_mode & 077)) {
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "a");
    if (!f)
        close(fd);
    return f;
}

/* Whether perf started this process: perf record runs its command as its own child. The
 * answer cannot change, so it is asked once (a race asks twice, with the same answer). */
static bool started_by_perf(void)
{
    static int known;                   /* 0 not asked, 1 no, 2 yes */
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k)
        return k == 2;
    char path[64], comm[32] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)getppid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, comm, sizeof comm - 1);
        comm[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    comm[strcspn(comm, "\n")] = '\0';
    bool yes = strcmp(comm, "perf") == 0 || strncmp(comm, "perf_", 5) == 0;   /* perf_6.1: a versioned binary */
    __atomic_store_n(&known, yes ? 2 : 1, __ATOMIC_RELAXED);
    return yes;
}

bool objrt_perfmap_wanted(void)
{
    const char *on = secure_getenv("OBJRT_PERF_MAP");
    if (on && *on)
        return *on == '1';
    return started_by_perf();
}

void objrt_perf_funcs(const objrt_link *l, objrt_perf_fn fn, void *arg)
{
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        for (size_t i = 1; o->pulled && i < o->nsyms; i++) {
            const Elf64_Sym *s = &o->syms[i];
            uint64_t addr;
            bool fixed;
            if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !s->st_size ||
                objrt_sym_addr(l, o, i, &addr, &fixed) || fixed)
                continue;
            fn(arg, addr, s->st_size, o->str + s->st_name);
        }
    }
}

static void map_line(void *f, uint64_t addr, uint64_t size, const char *raw)
{
    char name[4096];                    /* C++ names run long: cut with "..." past this */
    fprintf(f, "%llx %llx %s\n", (unsigned long long)addr, (unsigned long long)size,
            objrt_escape(raw, name, sizeof name));
}

void objrt_perfmap_write(const objrt_link *l)
{
    if (!objrt_perfmap_wanted())
        return;
    FILE *f = open_map();
    if (!f)
        return;
    objrt_perf_funcs(l, map_line, f);
    fclose(f);
}

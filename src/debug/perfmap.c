/*
 * perfmap.c - name loaded code for `perf`: with OBJRT_PERF_MAP=1 in the environment,
 * every function of a unit is appended to /tmp/perf-<pid>.map as "START SIZE name" (hex),
 * the format perf reads for JIT code.
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

void objrt_perfmap_write(const objrt_link *l)
{
    const char *on = secure_getenv("OBJRT_PERF_MAP");
    if (!on || *on != '1')
        return;
    FILE *f = open_map();
    if (!f)
        return;
    char name[4096];                    /* C++ names run long: cut with "..." past this */
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        for (size_t i = 1; o->pulled && i < o->nsyms; i++) {
            const Elf64_Sym *s = &o->syms[i];
            uint64_t addr;
            bool fixed;
            if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !s->st_size ||
                objrt_sym_addr(l, o, i, &addr, &fixed) || fixed)
                continue;
            fprintf(f, "%llx %llx ", (unsigned long long)addr, (unsigned long long)s->st_size);
            fprintf(f, "%s\n", objrt_escape(o->str + s->st_name, name, sizeof name));
        }
    }
    fclose(f);
}

/*
 * perfmap.c - name loaded code for `perf`: with OBJRT_PERF_MAP=1 in the environment,
 * every function of a unit is appended to /tmp/perf-<pid>.map as "START SIZE name" (hex),
 * the format perf reads for JIT code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "loader/internal.h"

void objrt_perfmap_write(const objrt_link *l)
{
    const char *on = getenv("OBJRT_PERF_MAP");
    if (!on || *on != '1')
        return;
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    FILE *f = fopen(path, "ae");
    if (!f)
        return;
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        for (size_t i = 1; o->pulled && i < o->nsyms; i++) {
            const Elf64_Sym *s = &o->syms[i];
            uint64_t addr;
            bool fixed;
            if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !s->st_size ||
                objrt_sym_addr(l, o, i, &addr, &fixed) || fixed)
                continue;
            fprintf(f, "%llx %llx %s\n", (unsigned long long)addr, (unsigned long long)s->st_size,
                    o->str + s->st_name);
        }
    }
    fclose(f);
}

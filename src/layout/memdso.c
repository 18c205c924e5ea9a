/*
 * memdso.c - tiny ELF shared objects written in memory and opened with dlopen.
 *
 * objrt hands the dynamic linker two things only it can manage: a unit's thread-local
 * block (tls.c) and, on request, a unit's symbols for libraries opened later (export.c).
 * Both are minimal ET_DYN images: one read-write PT_LOAD covering the whole file, a
 * PT_DYNAMIC, a PT_GNU_STACK (without it glibc would make every stack executable) and
 * whatever the caller adds. The image is written to a memfd and opened from
 * /proc/<pid>/fd/N; the descriptor stays open while the object is loaded, which keeps that
 * name unique (glibc returns an already loaded object whose name matches).
 *
 * The name is the one glibc puts in the link map (l_name), which debuggers and other
 * tools read and open in their own process. /proc/self/fd/N there is one of gdb's own
 * descriptors (a pipe, where it blocks in read forever); /proc/<pid>/fd/N opens this
 * process's memfd, the same image, from any process allowed to trace this one.
 */
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"

void objrt_memdso_ehdr(uint8_t *buf, uint16_t machine, size_t nphdr)
{
    Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = machine, .e_version = EV_CURRENT,
                      .e_phoff = sizeof eh, .e_ehsize = sizeof eh,
                      .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = (Elf64_Half)nphdr };
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    memcpy(buf, &eh, sizeof eh);
}

void objrt_memdso_phdr(uint8_t *buf, size_t i, uint32_t type, uint32_t flags, uint64_t off,
                       uint64_t filesz, uint64_t memsz, uint64_t align)
{
    Elf64_Phdr ph = { .p_type = type, .p_flags = flags, .p_offset = off, .p_vaddr = off,
                      .p_paddr = off, .p_filesz = filesz, .p_memsz = memsz, .p_align = align };
    memcpy(buf + sizeof(Elf64_Ehdr) + i * sizeof ph, &ph, sizeof ph);
}

/* The headers every image starts with: PT_LOAD, PT_DYNAMIC, then extra ones from index 2,
 * PT_GNU_STACK last (index nphdr - 1). */
void objrt_memdso_base(uint8_t *buf, size_t size, uint16_t machine, size_t nphdr,
                       uint64_t dyn, uint64_t dynsize)
{
    objrt_memdso_ehdr(buf, machine, nphdr);
    objrt_memdso_phdr(buf, 0, PT_LOAD, PF_R | PF_W, 0, size, size,
                      (uint64_t)sysconf(_SC_PAGESIZE));
    objrt_memdso_phdr(buf, 1, PT_DYNAMIC, PF_R | PF_W, dyn, dynsize, dynsize, 8);
    objrt_memdso_phdr(buf, nphdr - 1, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 16);
}

int objrt_memdso_open(const uint8_t *buf, size_t size, int flags, void **handle, int *fd,
                      const char **why)
{
    *handle = NULL;
    *why = "memfd_create failed";
    int f = memfd_create("objrt", MFD_CLOEXEC);
    if (f < 0)
        return -1;
    for (size_t done = 0; done < size;) {
        ssize_t w = write(f, buf + done, size - done);
        if (w <= 0) {
            close(f);
            *why = "cannot write the image";
            return -1;
        }
        done += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", (long)getpid(), f);
    if (!(*handle = dlopen(path, flags))) {
        const char *e = dlerror();
        *why = e ? e : "dlopen failed";
        close(f);
        return -1;
    }
    *fd = f;
    return 0;
}

void objrt_memdso_close(void *handle, int fd)
{
    if (handle) {
        dlclose(handle);
        close(fd);
    }
}

/*
 * jitdump.c - loaded code for `perf annotate`: with OBJRT_PERF_JITDUMP=1 every function of
 * each unit, its name and its bytes, goes into /tmp/jit-<pid>.dump in perf's jitdump format
 * (the Linux kernel's tools/perf/Documentation/jitdump-specification.txt). Then
 *     perf record -k mono ./host && perf inject --jit -i perf.data -o perf.jit.data
 *     perf annotate -i perf.jit.data
 * show the loaded functions' instructions: perf inject turns each record into a small ELF
 * file (jitted-<pid>-<n>.so, beside the dump) and points the samples at it.
 *
 * perf record learns of the dump from our mapping of it: the file stays mapped executable
 * (one page) for the life of the process. Timestamps are CLOCK_MONOTONIC, the clock `-k
 * mono` gives the samples, so inject can tell which code an address held when (a unit
 * unloaded and another placed there later are told apart). Opt-in: a record copies every
 * function's code, a cost proportional to the unit (the perf map, perfmap.c, names
 * functions at a fraction of it).
 *
 * The file gets the perf map's precautions (/tmp is shared): no symbolic link followed,
 * 0600, written only when it is a regular file with one link that is ours alone. A forked
 * child writes a file of its own (perf looks for jit-<pid>.dump by the sampled pid).
 */
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "base/escape.h"
#include "debug/unitinfo.h"

#define JITDUMP_MAGIC 0x4A695444u       /* "JiTD" as a little-endian u32 */
#define JITDUMP_VERSION 1
#define JIT_CODE_LOAD 0

typedef struct jd_file_header {
    uint32_t magic, version, total_size, elf_mach, pad1, pid;
    uint64_t timestamp, flags;
} jd_file_header;

typedef struct jd_code_load {           /* record header, then the JIT_CODE_LOAD body */
    uint32_t id, total_size;
    uint64_t timestamp;
    uint32_t pid, tid;
    uint64_t vma, code_addr, code_size, code_index;
} jd_code_load;

static pthread_mutex_t jd_lock = PTHREAD_MUTEX_INITIALIZER;
static int jd_fd = -1;
static pid_t jd_pid;                    /* the process jd_fd's file is for */
static uint64_t jd_index;

static uint64_t jd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Creates this process's dump and its header, and maps it for perf to see; -1 if not. */
static int jd_open(pid_t pid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/tmp/jit-%d.dump", (int)pid);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0)
        return -1;
    jd_file_header h = { JITDUMP_MAGIC, JITDUMP_VERSION, sizeof h,
                         objrt_host_arch()->machine,
                         0, (uint32_t)pid, jd_now(), 0 };
    long page = sysconf(_SC_PAGESIZE);
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1 ||
        (st.st_mode & 077) || ftruncate(fd, 0) || write(fd, &h, sizeof h) != (ssize_t)sizeof h ||
        mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
        close(fd);                      /* the marker mapping, once made, stays: perf's cue */
        return -1;
    }
    return fd;
}

static void jd_record(void *arg, uint64_t addr, uint64_t size, const char *raw)
{
    char name[4096];                    /* escaped as in every other sink (escape.h) */
    (void)arg;
    objrt_escape(raw, name, sizeof name);
    size_t nlen = strlen(name) + 1;
    jd_code_load r = { JIT_CODE_LOAD, (uint32_t)(sizeof r + nlen + size), jd_now(),
                       (uint32_t)jd_pid, (uint32_t)gettid(), addr, addr, size, jd_index++ };
    struct iovec v[3] = { { &r, sizeof r }, { (void *)name, nlen }, { (void *)(uintptr_t)addr, size } };
    if (sizeof r + nlen + size > UINT32_MAX || writev(jd_fd, v, 3) != (ssize_t)r.total_size)
        jd_index--;                     /* perf stops reading at a short record anyway */
}

void objrt_jitdump_write(const objrt_link *l)
{
    const char *on = secure_getenv("OBJRT_PERF_JITDUMP");
    if (!on || *on != '1')
        return;
    pthread_mutex_lock(&jd_lock);
    pid_t pid = getpid();
    if (jd_fd < 0 || jd_pid != pid) {   /* first load, or the first in a forked child */
        if (jd_fd >= 0)
            close(jd_fd);
        jd_fd = jd_open(pid);
        jd_pid = pid;
        jd_index = 0;
    }
    if (jd_fd >= 0)
        objrt_perf_funcs(l, jd_record, NULL);
    pthread_mutex_unlock(&jd_lock);
}

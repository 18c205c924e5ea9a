/* regular.c - open for reading only what is a regular file (regular.h says why). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/regular.h"

int objrt_open_regular(const char *path, uint64_t *size, const char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        *why = "not a regular file";
        close(fd);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

FILE *objrt_fopen_regular(const char *path, const char **why)
{
    uint64_t size;
    int fd = objrt_open_regular(path, &size, why);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (fd >= 0 && !f) {
        *why = strerror(errno);
        close(fd);
    }
    return f;
}

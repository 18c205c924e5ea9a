/* outdir.c - `-o DIR`: made as `mkdir -p` would and proven writable before anything runs,
 * so a missing or read-only directory is not found after the kernel and every --repeat;
 * and each file written there named on stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "cli.h"

/* mkdir each prefix of path that ends at a '/', then path itself; existing ones are fine. */
static int mkdir_p(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0777);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int cli_prepare_outdir(const char *opt, const char *dir)
{
    char *copy = strdup(dir);
    struct stat st;
    int rc = -1;
    if (!copy)
        return cli_bad_arg("call", opt, dir, "out of memory");
    if (mkdir_p(copy) != 0)
        cli_bad_arg("call", opt, dir, strerror(errno));
    else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        cli_bad_arg("call", opt, dir, "exists and is not a directory");
    else if (access(dir, W_OK | X_OK) != 0)
        cli_bad_arg("call", opt, dir, "not writable (outputs are written there)");
    else
        rc = 0;
    free(copy);
    return rc;
}

void cli_wrote(const char *path)
{
    char esc[OBJRT_ESC_MAX];
    printf("%s\n", objrt_escape(path, esc, sizeof esc));
}

/* output.c - what `objrt call` puts out: the -o DIR made as `mkdir -p` would and proven
 * writable before anything runs (so a missing or read-only directory is not found after
 * the kernel and every --repeat), each file written there named on stdout, and the timing
 * line of --repeat. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "cli.h"
#include "timing.h"

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

/* --repeat: timing.h has the clock and the sort bench/tvm shares, to time a C host the
 * same way. */
#define MAX_SAMPLES 1001

int cli_repeat_timed(int (*once)(const void *), const void *arg, long n, const char *what,
                     const char *unit)
{
    static double per_run[MAX_SAMPLES];
    long samples = n < MAX_SAMPLES ? n : MAX_SAMPLES;
    for (long s = 0; s < samples; s++) {
        long batch = n / samples + (s < n % samples), t0 = now_ns();
        for (long i = 0; i < batch; i++)
            if (once(arg) != 0)
                return -1;
        per_run[s] = (double)(now_ns() - t0) / (double)batch;
    }
    qsort(per_run, (size_t)samples, sizeof per_run[0], cmp_double);
    printf("%s: median %.3f us per %s (min %.3f us; %ld %ss in %ld timed batches)\n", what,
           per_run[samples / 2] / 1e3, unit, per_run[0] / 1e3, n, unit, samples);
    return 0;
}

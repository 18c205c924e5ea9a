/*
 * t_batch_fds.c - objrt_load() leaves no descriptor open (input.c closes a batch's runs of
 * consecutive descriptor numbers with one close_range() each, any others one by one).
 *
 * usage: t_batch_fds OBJ...   objects defining int fI(void), I = 0 .. count - 1, each
 *                             returning I * 7 % 11 (tests/suites/33-input-batch.sh)
 * Cases, each in a fresh context of its own (forked):
 *   batch-fds-consecutive  the process as it comes (its free numbers usually one run
 *                          from the lowest up): as many descriptors are open after the
 *                          load as before, and every fI() returns its value
 *   batch-fds-holes        every other one of 20 descriptors closed first: the batch
 *                          fills those 10 holes, then continues above them, so its numbers
 *                          are runs of one plus a long run; same checks
 * Control (HARNESS): the descriptor count sees one descriptor left open.
 */
#include <dirent.h>
#include <fcntl.h>

#include "../robustness/t_common.h"

static const char *const *g_objs;
static size_t g_nobjs;

/* Open descriptors of this process (the directory's own counts before and after alike). */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Load every object; check the descriptor count and every function. */
static int load_and_check(int leave_open, char *why, size_t whylen)
{
    int before = open_fds();
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load(ctx, g_objs, g_nobjs);
    int extra = leave_open ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
    int after = open_fds(), ok = 0;
    if (!u) {
        snprintf(why, whylen, "load: %s", objrt_error(ctx));
    } else if (before < 0 || after != before) {
        snprintf(why, whylen, "%d descriptors open before the load, %d after", before, after);
    } else {
        ok = 1;
        for (size_t i = 0; ok && i < g_nobjs; i++) {
            char name[32];
            snprintf(name, sizeof name, "f%zu", i);
            int (*f)(void) = (int (*)(void))objrt_unit_sym(u, name);
            if (!f || f() != (int)(i * 7 % 11)) {
                snprintf(why, whylen, "%s: %s", name, f ? "wrong value" : "not defined");
                ok = 0;
            }
        }
    }
    if (extra >= 0)
        close(extra);
    return t_ctx_done(ctx, ok, why, whylen);
}

static int consecutive(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return load_and_check(0, why, whylen);
}

static int holes(void *arg, char *why, size_t whylen)
{
    (void)arg;
    int fd[20];
    for (int i = 0; i < 20; i++)
        if ((fd[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
            snprintf(why, whylen, "open /dev/null: %s", strerror(errno));
            return 0;
        }
    for (int i = 0; i < 20; i += 2)
        close(fd[i]);
    int ok = load_and_check(0, why, whylen);
    for (int i = 1; i < 20; i += 2)
        close(fd[i]);
    return ok;
}

/* Control: a descriptor left open by the "load" is seen. */
static int control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    if (load_and_check(1, why, whylen)) {
        snprintf(why, whylen, "a descriptor left open was not seen");
        return 0;
    }
    return strstr(why, "descriptors open before") != NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OBJ...\n", argv[0]);
        return 2;
    }
    g_objs = (const char *const *)argv + 1;
    g_nobjs = (size_t)argc - 1;
    t_case("batch-fds-consecutive", consecutive, NULL);
    t_case("batch-fds-holes", holes, NULL);
    t_harness_case("batch-fds-control-open-descriptor-seen", control, NULL);
    return t_exit_status();
}

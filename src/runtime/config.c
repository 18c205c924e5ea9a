/* config.c - runtime settings from the environment, read once per process (and per fork). */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/number.h"
#include "rt_internal.h"

static rt_config cfg;
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;

/* A number from the environment in [min, max] (base/number.h, the one reader of typed
 * numbers), or `dflt` when unset or empty. A value that is not one is ignored, as TVM
 * ignores it, but said on stderr once (settings are read once per process): strtol took
 * "4x" as 4 and "-1" as a request. */
static long env_number(const char *name, uint64_t min, uint64_t max, long dflt)
{
    const char *s = getenv(name);
    char why[256];
    uint64_t v;
    if (!s || !*s)
        return dflt;
    if (objrt_number(s, min, max, &v, why, sizeof why) == 0)
        return (long)v;
    fprintf(stderr, "objrt: %s %s; ignored\n", name, why);
    return dflt;
}

/* One number of a CPU list: the `len` bytes at s, a CPU in [0, CPU_SETSIZE). */
static int cpu_number(const char *s, size_t len, long *out, char *why, size_t whylen)
{
    char text[32];
    uint64_t v;
    if (len >= sizeof text) {
        snprintf(why, whylen, "a CPU number of %zu characters", len);
        return -1;
    }
    memcpy(text, s, len);
    text[len] = 0;
    if (objrt_number(text, 0, CPU_SETSIZE - 1, &v, why, whylen) != 0)
        return -1;
    *out = (long)v;
    return 0;
}

/* One element of a CPU list, "N" or "N-M": the `len` bytes at s, into [*lo, *hi]. */
static int cpu_range(const char *s, size_t len, long *lo, long *hi, char *why, size_t whylen)
{
    size_t dash = strcspn(s, "-,");
    if (cpu_number(s, dash, lo, why, whylen) != 0)
        return -1;
    *hi = *lo;
    if (dash < len && cpu_number(s + dash + 1, len - dash - 1, hi, why, whylen) != 0)
        return -1;
    if (*hi < *lo) {
        snprintf(why, whylen, "the range %ld-%ld runs backwards", *lo, *hi);
        return -1;
    }
    return 0;
}

/* OBJRT_CPUS "0,2-3" into cpus[] (at most max); returns the count, or 0 when the list is
 * not one: said on stderr, as the numeric variables (env_number), then ignored so the pool
 * still starts. Each number through objrt_number: strtol took "+1", " 1" and "1x". */
static int parse_cpu_list(const char *list, int *cpus, int max)
{
    int n = 0;
    char why[256];
    for (const char *s = list;;) {
        size_t len = strcspn(s, ",");
        long lo, hi;
        if (cpu_range(s, len, &lo, &hi, why, sizeof why) != 0) {
            fprintf(stderr, "objrt: OBJRT_CPUS list not taken (%s); ignored\n", why);
            return 0;
        }
        for (long c = lo; c <= hi && n < max; c++)
            cpus[n++] = (int)c;
        if (!s[len])
            return n;
        s += len + 1;
    }
}

static int usable_cpus(int *cpus, int max)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

/* OBJRT_SPIN_US in nanoseconds: 200 us by default, at most MAX_SPIN_US (beyond that a
 * worker is better asleep; and us * 1000 must not overflow). */
#define MAX_SPIN_US 1000000L
static long spin_ns(void)
{
    return env_number("OBJRT_SPIN_US", 0, MAX_SPIN_US, 200) * 1000L;
}

static void load(void)
{
    /* 0 means unset, as in TVM; more than 1024 is clamped below */
    long threads = env_number("TVM_NUM_THREADS", 0, INT32_MAX, 0);
    const char *list = getenv("OBJRT_CPUS");
    int max = (int)(sizeof cfg.cpus / sizeof cfg.cpus[0]);

    memset(&cfg, 0, sizeof cfg);
    cfg.ncpus = list && *list ? parse_cpu_list(list, cfg.cpus, max) : 0;
    cfg.bind = cfg.ncpus > 0 ? RT_BIND_LIST : RT_BIND_SPREAD;
    if (cfg.ncpus == 0)
        cfg.ncpus = usable_cpus(cfg.cpus, max);
    /* TVM's rule: pinned unless TVM_BIND_THREADS says otherwise ("1" keeps it) */
    if (cfg.bind == RT_BIND_SPREAD && getenv("TVM_BIND_THREADS") &&
        strcmp(getenv("TVM_BIND_THREADS"), "1") != 0)
        cfg.bind = RT_BIND_NONE;
    if (cfg.ncpus == 0)
        cfg.bind = RT_BIND_NONE;
    if (threads == 0)
        threads = env_number("OMP_NUM_THREADS", 0, INT32_MAX, 0);
    if (threads == 0)
        threads = cfg.ncpus;
    cfg.num_threads = threads < 1 ? 1 : threads > 1024 ? 1024 : (int)threads;
    cfg.spin_ns = spin_ns();
    /* OBJRT_STEAL=0 turns stealing off: a diagnostic, and the tests' negative control */
    cfg.steal = !(getenv("OBJRT_STEAL") && strcmp(getenv("OBJRT_STEAL"), "0") == 0);
    cfg.check_align = getenv("OBJRT_CHECK_ALIGN") && strcmp(getenv("OBJRT_CHECK_ALIGN"), "0") != 0;
}

const rt_config *rt_config_get(void)
{
    pthread_once(&cfg_once, load);
    return &cfg;
}

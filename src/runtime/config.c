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

/* Parse a CPU list "0,2-3" into cpus[]; returns the count (0 on any syntax error). */
static int parse_cpu_list(const char *s, int *cpus, int max)
{
    int n = 0;
    while (s && *s) {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (end == s || lo < 0)
            return 0;
        if (*end == '-') {
            s = end + 1;
            hi = strtol(s, &end, 10);
            if (end == s || hi < lo)
                return 0;
        }
        for (long c = lo; c <= hi && n < max; c++)
            cpus[n++] = (int)c;
        if (*end == ',')
            end++;
        else if (*end)
            return 0;
        s = end;
    }
    return n;
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
    cfg.ncpus = list ? parse_cpu_list(list, cfg.cpus, max) : 0;
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

/* config.c - runtime settings from the environment, read once per process (and per fork). */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "rt_internal.h"

static rt_config cfg;
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;

/* A positive integer from the environment, or 0 when unset or not one. */
static long env_pos(const char *name)
{
    const char *s = getenv(name);
    char *end;
    long v;
    if (!s || !*s)
        return 0;
    v = strtol(s, &end, 10);
    return (*end == '\0' && v > 0) ? v : 0;
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

/* OBJRT_SPIN_US in nanoseconds: 200 us when unset or not a number, at most MAX_SPIN_US
 * (beyond that a worker is better asleep; and us * 1000 must not overflow). */
#define MAX_SPIN_US 1000000L
static long spin_ns(const char *s)
{
    char *end;
    long us;
    if (!s || !*s)
        return 200 * 1000L;
    us = strtol(s, &end, 10);
    if (*end != '\0')
        return 200 * 1000L;
    return (us < 0 ? 0 : us > MAX_SPIN_US ? MAX_SPIN_US : us) * 1000L;
}

static void load(void)
{
    long threads = env_pos("TVM_NUM_THREADS");
    const char *list = getenv("OBJRT_CPUS");
    const char *spin = getenv("OBJRT_SPIN_US");
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
        threads = env_pos("OMP_NUM_THREADS");
    if (threads == 0)
        threads = cfg.ncpus;
    cfg.num_threads = threads < 1 ? 1 : threads > 1024 ? 1024 : (int)threads;
    cfg.spin_ns = spin_ns(spin);
    /* OBJRT_STEAL=0 turns stealing off: a diagnostic, and the tests' negative control */
    cfg.steal = !(getenv("OBJRT_STEAL") && strcmp(getenv("OBJRT_STEAL"), "0") == 0);
    cfg.check_align = getenv("OBJRT_CHECK_ALIGN") && strcmp(getenv("OBJRT_CHECK_ALIGN"), "0") != 0;
}

const rt_config *rt_config_get(void)
{
    pthread_once(&cfg_once, load);
    return &cfg;
}

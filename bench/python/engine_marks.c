/* engine_marks.c - callgrind collects inside these calls only (bench/python/engine_callgrind.sh):
 * each runs one engine's timed region of the replay, Python's start-up and numba's
 * compilation of the modules stay out of the counts. */
#include <valgrind/callgrind.h>

static int started;

#define REGION(name)                                                                   \
    void name(void (*region)(void))                                                    \
    {                                                                                  \
        if (!started) {                                                                \
            CALLGRIND_START_INSTRUMENTATION;                                           \
            started = 1;                                                               \
        }                                                                              \
        CALLGRIND_TOGGLE_COLLECT;                                                      \
        region();                                                                      \
        CALLGRIND_TOGGLE_COLLECT;                                                      \
    }

REGION(mark_emit)
REGION(mark_mcjit)
REGION(mark_objrt)

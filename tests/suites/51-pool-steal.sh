#!/usr/bin/env bash
# Thread pool: tasks nobody started are taken by free threads (src/runtime/pool.c).
# x86_64: the caller takes tasks when the workers share its one CPU, and OBJRT_STEAL=0
# (the negative control) shows the probe can see zero; x86_64:tsan runs the stealing
# cases under ThreadSanitizer. Other configs: nothing (50-runtime covers the rest).
. tests/lib.sh
case "$TARGET:$SAN" in
    x86_64:|x86_64:tsan) ;;
    *) exit 0 ;;
esac
T=$BUILD/tests/runtime
if ! out=$(make -s --no-print-directory TARGET="$TARGET" SAN="$SAN" runtime-tests 2>&1); then
    fail "pool-steal-build: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
    exit 0
fi
export TSAN_OPTIONS="die_after_fork=0 ${TSAN_OPTIONS:-}"
if [ "$SAN" = tsan ]; then
    timeout -s KILL 300 $RUN "$T/rt_test" steal-exactly-once barrier-tasks-concurrent-one-cpu \
        2>"$TMP/steal.err"; rc=$?
    [ "$rc" -gt 1 ] && fail "pool-steal-tsan-cases: rt_test exited $rc"
    if grep -q 'Sanitizer' "$TMP/steal.err"; then
        fail "pool-steal-tsan-clean: $(grep -m1 -A3 'Sanitizer' "$TMP/steal.err" | tr '\n' ' ')"
    else
        pass pool-steal-tsan-clean
    fi
    exit 0
fi
probe() { env -u TVM_NUM_THREADS -u OMP_NUM_THREADS -u OBJRT_STEAL "$@"; }
# 2000 launches of 2 tasks, all threads on one CPU: task 1 must often run on the caller
on=$(probe timeout 120 "$T/rt_test" stolen)
off=$(probe OBJRT_STEAL=0 timeout 120 "$T/rt_test" stolen)
if [ "${on:-0}" -gt 0 ] 2>/dev/null && [ "$off" = 0 ]; then
    pass "pool-caller-takes-unstarted-tasks ($on of 2000 on one CPU; 0 with OBJRT_STEAL=0)"
else
    fail "pool-caller-takes-unstarted-tasks: stolen '$on' (expected > 0), with OBJRT_STEAL=0 '$off' (expected 0)"
fi
exit 0

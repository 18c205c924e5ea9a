#!/usr/bin/env bash
# Thread pool: tasks nobody started are taken by free threads (src/runtime/pool.c).
# x86_64: the caller takes tasks when the workers share its one CPU, and OBJRT_STEAL=0
# shows the probe can see zero (the negative control); the stealing cases themselves run
# in 50-runtime's full list. x86_64:tsan runs the stealing cases under ThreadSanitizer
# (50-runtime's TSan list is fixed). Other configurations: nothing.
. tests/lib.sh
case "$TARGET:$SAN" in
    x86_64:|x86_64:tsan) ;;
    *) exit 0 ;;
esac
if [ "$SAN" = tsan ]; then
    expect pool-steal-tsan-clean
else
    expect pool-caller-takes-unstarted-tasks
    expect_harness pool-steal-off-control
fi
INTERNALS=1 build_prog pool-steal-build "$TMP/rt_test" tests/runtime/rt_test.c || exit 0   # rt_test calls internals
export TSAN_OPTIONS="die_after_fork=0 ${TSAN_OPTIONS:-}"

if [ "$SAN" = tsan ]; then
    run_cases steal 300 "$TMP/rt_test" steal-exactly-once barrier-tasks-concurrent-one-cpu; rc=$?
    if [ "$rc" -gt 1 ]; then
        fail "pool-steal-tsan-clean: rt_test $(status_text "$rc")"
    elif grep -q 'Sanitizer' "$TMP/steal.err"; then
        fail "pool-steal-tsan-clean: $(grep -m1 -A3 'Sanitizer' "$TMP/steal.err" | tr '\n' ' ')"
    else
        pass pool-steal-tsan-clean
    fi
    exit 0
fi
probe() { env -u TVM_NUM_THREADS -u OMP_NUM_THREADS -u OBJRT_STEAL "$@"; }
# 2000 launches of 2 tasks, all threads on one CPU: task 1 must often run on the caller
on=$(probe timeout 120 "$TMP/rt_test" stolen)
off=$(probe OBJRT_STEAL=0 timeout 120 "$TMP/rt_test" stolen)
if [ "${on:-0}" -gt 0 ] 2>/dev/null; then
    pass "pool-caller-takes-unstarted-tasks ($on of 2000 on one CPU)"
else
    fail "pool-caller-takes-unstarted-tasks: stolen '$on', expected > 0"
fi
# the probe can report zero: with stealing off the caller never runs another task
if [ "$off" = 0 ]; then hpass pool-steal-off-control
else hfail "pool-steal-off-control: OBJRT_STEAL=0 still reported '$off' tasks on the caller"; fi
exit 0

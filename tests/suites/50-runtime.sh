#!/usr/bin/env bash
# Kernel runtime (src/runtime): workspaces, thread pool, barrier, modules, diagnostics.
# x86_64: and x86_64:asan run everything; x86_64:tsan runs the direct-linked cases under
# ThreadSanitizer; aarch64: runs every direct-linked case under qemu (threads and fork included).
# Every case is declared before it runs (tests/lib.sh): a test program that crashes or
# hangs fails each case it owed by name. A kernel case passes only on its exact status.
# Planted faults (the harness self-checks of 00-harness.sh set them; never in a real run):
#   OBJRT_TEST_PLANT=kernel-segv   the seed kernel segfaults inside its parallel lambda
#   OBJRT_TEST_PLANT=case-hang     the DSO kernel never returns
#   RT_TIMEOUT=SECONDS             the limit of each loaded-kernel program (default 120)
. tests/lib.sh
case "$TARGET:$SAN" in
    x86_64:|x86_64:asan|x86_64:tsan|aarch64:) ;;
    *) exit 0 ;;
esac
full=0; [ "$TARGET:$SAN" = x86_64: ] || [ "$TARGET:$SAN" = x86_64:asan ] && full=1
plant=",${OBJRT_TEST_PLANT:-},"
rt_timeout=${RT_TIMEOUT:-120}
T=$BUILD/tests/runtime

# --- declarations: what this configuration must report (rt_test lists its own cases)
[ -n "$SAN" ] && expect "runtime-$SAN-clean" && expect_harness "runtime-$SAN-control-detected"
if [ $full = 1 ]; then
    expect env-tvm-over-omp env-omp env-invalid-falls-through env-usable-cores env-affinity-one-core
    [ "$(nproc)" -ge 2 ] && expect bind-default-pinned bind-default-apart-from-caller bind-tvm-bind-threads \
        bind-tvm-bind-threads-off bind-oversubscribed-unpinned bind-apart-control bind-cpu-list idle-workers-sleep
    expect_harness seed-disassembly-aligned-store
    expect seed-cli-1000-runs cli-runs-tvm-main cli-tvm-main-failure-status \
        diag-check-align-names-kernel diag-off-faults
    # loaded-* cases: rt_load lists them (run_cases below)
fi

if ! out=$(make -s --no-print-directory TARGET="$TARGET" SAN="$SAN" runtime-kernels 2>&1); then
    fail "runtime-build: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
    exit 0
fi
INTERNALS=1 build_prog runtime-build-rt_test "$T/rt_test" tests/runtime/rt_test.c || exit 0
if [ $full = 1 ]; then build_prog runtime-build-rt_load "$T/rt_load" tests/runtime/rt_load.c || exit 0; fi
export TSAN_OPTIONS="die_after_fork=0 ${TSAN_OPTIONS:-}"
# Faults must kill the child (the negative controls), not be turned into ASan reports.
export ASAN_OPTIONS="handle_segv=0:handle_sigbus=0 ${ASAN_OPTIONS:-}"

# --- direct-linked cases (one PASS/FAIL line each), sanitizer reports checked separately
cases=()
# Under qemu-user 7.2 (aarch64:) two cases test qemu rather than objrt: qemu ignores a guest's
# RLIMIT_AS (ws-oom-rlimit), and a child forked from a process with threads cannot create a
# thread (qemu asserts in cpu_exec; a bare pthread program does the same: launch-after-fork).
if [ "$TARGET" = aarch64 ]; then
    mapfile -t cases < <(T_LIST=1 timeout -s KILL 60 $RUN "$T/rt_test" | sed -n 's/^EXPECT //p' |
        grep -vx -e ws-oom-rlimit -e launch-after-fork)
fi
[ -n "$SAN" ] && cases=(ws-align-128 ws-reuse ws-any-order ws-unknown-and-double-free ws-oom-null
    ws-thread-exit-returns-memory ws-free-from-other-thread launch-all-threads launch-clamp
    launch-serial-one-thread launch-error-propagation launch-nested-serial barrier-reuse-ordering
    launch-concurrent-4-app-threads launch-after-fork launch-free-100k-cycles host-packed-funcs
    run-once hooks-lookup-abi thread-names)
run_cases rt_test 300 $RUN "$T/rt_test" "${cases[@]}"; rc=$?
if [ -n "$SAN" ] && [ "$rc" -le 1 ]; then
    if grep -Eq 'Sanitizer|runtime error:' "$TMP/rt_test.err"; then
        fail "runtime-$SAN-clean: $(grep -Em1 -A3 'Sanitizer|runtime error:' "$TMP/rt_test.err" | tr '\n' ' ')"
    else
        pass "runtime-$SAN-clean"
    fi
fi
if [ -n "$SAN" ]; then
    # negative control: the same run would have caught a race (tsan) or an overflow (asan)
    $RUN "$T/rt_test" sanitizer-control >/dev/null 2>"$TMP/control.err"
    if grep -Eq 'Sanitizer|runtime error:' "$TMP/control.err"; then hpass "runtime-$SAN-control-detected"
    else hfail "runtime-$SAN-control-detected: the planted bug was not reported"; fi
fi
[ $full = 1 ] || exit 0

# --- environment: thread count precedence, clamping to 1, binding, idle workers
probe() { env -u TVM_NUM_THREADS -u OMP_NUM_THREADS -u TVM_BIND_THREADS -u OBJRT_CPUS \
    -u OBJRT_SPIN_US timeout -s KILL 60 env "$@"; }
n=$(nproc)
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', expected '$3'"; fi; }
expect_eq env-tvm-over-omp "$(probe TVM_NUM_THREADS=3 OMP_NUM_THREADS=5 "$T/rt_test" threads)" "3 3"
expect_eq env-omp "$(probe OMP_NUM_THREADS=5 "$T/rt_test" threads)" "5 5"
expect_eq env-invalid-falls-through "$(probe TVM_NUM_THREADS=x OMP_NUM_THREADS=2 "$T/rt_test" threads)" "2 2"
expect_eq env-usable-cores "$(probe "$T/rt_test" threads)" "$n $n"
expect_eq env-affinity-one-core "$(probe taskset -c 0 "$T/rt_test" threads)" "1 1"
if [ "$n" -ge 2 ]; then
    # pinned by default, as in TVM, on a core other than the caller's; not when TVM_BIND_THREADS
    # is not 1 or the threads outnumber the cores
    expect_eq bind-default-pinned "$(probe TVM_NUM_THREADS=2 "$T/rt_test" affinity)" 1
    expect_eq bind-default-apart-from-caller "$(probe TVM_NUM_THREADS=2 "$T/rt_test" spread)" "1 apart"
    expect_eq bind-tvm-bind-threads "$(probe TVM_NUM_THREADS=2 TVM_BIND_THREADS=1 "$T/rt_test" affinity)" 1
    expect_eq bind-tvm-bind-threads-off "$(probe TVM_NUM_THREADS=2 TVM_BIND_THREADS=0 "$T/rt_test" affinity)" "$n"
    expect_eq bind-oversubscribed-unpinned "$(probe TVM_NUM_THREADS=$((n + 1)) "$T/rt_test" affinity)" "$n"
    # negative control of the apart check: unpinned, the worker keeps the mask it inherits from
    # the caller, which `spread` has narrowed to the caller's core
    expect_eq bind-apart-control "$(probe TVM_NUM_THREADS=2 TVM_BIND_THREADS=0 "$T/rt_test" spread)" "1 with-caller"
    expect_eq bind-cpu-list "$(probe TVM_NUM_THREADS=2 OBJRT_CPUS=0 "$T/rt_test" affinity)" 1
    # idle workers must be asleep (S), not spinning (R, as a worker running a task): the state,
    # unlike CPU time, does not depend on how busy the machine is
    idle=$(probe TVM_NUM_THREADS=2 "$T/rt_test" idle-state)
    busy=$(probe TVM_NUM_THREADS=2 "$T/rt_test" busy-state)
    case "$idle:$busy" in
        *R*:*|:*|*:*S*|*:) fail "idle-workers-sleep: worker states idle '$idle', running-task control '$busy'" ;;
        *) pass idle-workers-sleep ;;
    esac
fi

# --- the seed: aligned vector stores into a workspace allocated inside the parallel lambda
aligned_store() {   # does function $2 of object $1 store with an aligned vector move?
    objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$0 ~ f {on=1; next} /^$/ {on=0} on' |
        grep -Eq '(v?movaps|vmovapd|vmovdqa(32|64)?)[[:space:]]+%[xyz]mm[0-9]+,.*\('
}
if aligned_store "$T/seed_kernel.o" __tvm_parallel_lambda && ! aligned_store "$T/seed_kernel_nohint.o" __tvm_parallel_lambda; then
    hpass seed-disassembly-aligned-store
else
    hfail "seed-disassembly-aligned-store: no aligned store in __tvm_parallel_lambda (or one without the hint)"
fi
seed=$T/seed_kernel.o dso=$T/dso_kernel.o
[[ $plant == *,kernel-segv,* ]] && seed=$T/seed_kernel_segv.o
[[ $plant == *,case-hang,* ]] && dso=$T/dso_kernel_hang.o
run_cases rt_load-seed "$rt_timeout" "$T/rt_load" seed "$seed"
run_cases rt_load-seed-offset16 "$rt_timeout" "$T/rt_load" seed-offset16 "$T/seed_kernel.o"
check seed-cli-1000-runs timeout 120 $OBJRT run -e seed_selftest "$seed"
# a unit without main() whose __tvm_main__ names the entry: `objrt run` calls it
check cli-runs-tvm-main timeout 60 $OBJRT run "$T/main_kernel.o"
# a failing __tvm_main__ entry: exit status 1 and its error message, nothing else
out=$(timeout 60 $OBJRT run "$T/main_kernel_fails.o" 2>&1 >/dev/null); rc=$?
if [ "$rc" -eq 1 ] && grep -q "entry_by_tvm_main: failing on purpose" <<<"$out"; then pass cli-tvm-main-failure-status
else fail "cli-tvm-main-failure-status: exited $rc ($(status_text $rc)), expected 1 with the entry's error: $out"; fi
run_cases rt_load-syslib "$rt_timeout" "$T/rt_load" syslib "$T/syslib_kernel.o"
run_cases rt_load-dso "$rt_timeout" "$T/rt_load" dso "$dso"

# --- OBJRT_CHECK_ALIGN: the misaligned tensor is refused by name; without it, a fault
out=$(OBJRT_CHECK_ALIGN=1 timeout 60 "$T/rt_load" diag "$T/seed_kernel.o" 2>/dev/null)
case "$out" in
    "refused: kernel 'fill_kernel' argument 0 "*"not 128-byte aligned"*) pass diag-check-align-names-kernel ;;
    *) fail "diag-check-align-names-kernel: $out" ;;
esac
# an aligned vector store to a misaligned address is a general-protection fault: SIGSEGV
expect_status diag-off-faults 139 timeout 60 "$T/rt_load" diag "$T/seed_kernel.o"
exit 0

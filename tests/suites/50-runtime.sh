#!/usr/bin/env bash
# Kernel runtime (src/runtime): workspaces, thread pool, barrier, modules, diagnostics.
# x86_64: and x86_64:asan run everything; x86_64:tsan runs the direct-linked cases under
# ThreadSanitizer; aarch64: runs the direct-linked cases under qemu.
. tests/lib.sh
case "$TARGET:$SAN" in
    x86_64:|x86_64:asan|x86_64:tsan|aarch64:) ;;
    *) exit 0 ;;
esac
T=$BUILD/tests/runtime
if ! out=$(make -s --no-print-directory TARGET="$TARGET" SAN="$SAN" runtime-tests 2>&1); then
    fail "runtime-build: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
    exit 0
fi
export TSAN_OPTIONS="die_after_fork=0 ${TSAN_OPTIONS:-}"
# Faults must kill the child (the negative controls), not be turned into ASan reports.
export ASAN_OPTIONS="handle_segv=0:handle_sigbus=0 ${ASAN_OPTIONS:-}"

# --- direct-linked cases (one PASS/FAIL line each), sanitizer reports checked separately
cases=()
# qemu-aarch64 7.2 here never returns from pthread_create/join (a bare pthread program
# hangs too), so under qemu only the cases that create no thread run.
[ "$TARGET" = aarch64 ] && cases=(ws-align-128 ws-reuse ws-any-order ws-unknown-and-double-free
    ws-oom-null launch-serial-one-thread host-packed-funcs hooks-lookup-abi)
[ -n "$SAN" ] && cases=(ws-align-128 ws-reuse ws-any-order ws-unknown-and-double-free ws-oom-null
    ws-thread-exit-returns-memory ws-free-from-other-thread launch-all-threads launch-clamp
    launch-serial-one-thread launch-error-propagation launch-nested-serial barrier-reuse-ordering
    launch-concurrent-4-app-threads launch-after-fork launch-free-100k-cycles host-packed-funcs
    run-once hooks-lookup-abi thread-names)
timeout -s KILL 300 $RUN "$T/rt_test" "${cases[@]}" 2>"$TMP/rt_test.err"; rc=$?
if [ "$rc" -gt 1 ]; then
    fail "runtime-direct-cases: rt_test exited $rc (137: killed after 300 s): $(tail -n 2 "$TMP/rt_test.err" | tr '\n' ' ')"
elif [ -n "$SAN" ]; then
    if grep -Eq 'Sanitizer|runtime error:' "$TMP/rt_test.err"; then
        fail "runtime-$SAN-clean: $(grep -Em1 -A3 'Sanitizer|runtime error:' "$TMP/rt_test.err" | tr '\n' ' ')"
    else
        pass "runtime-$SAN-clean"
    fi
    # negative control: the same run would have caught a race (tsan) or an overflow (asan)
    $RUN "$T/rt_test" sanitizer-control >/dev/null 2>"$TMP/control.err"
    if grep -Eq 'Sanitizer|runtime error:' "$TMP/control.err"; then pass "runtime-$SAN-control-detected"
    else fail "runtime-$SAN-control-detected: the planted bug was not reported"; fi
fi
[ "$TARGET:$SAN" = x86_64: ] || [ "$TARGET:$SAN" = x86_64:asan ] || exit 0

# --- environment: thread count precedence, clamping to 1, binding, idle workers
probe() { env -u TVM_NUM_THREADS -u OMP_NUM_THREADS -u TVM_BIND_THREADS -u OBJRT_CPUS \
    -u OBJRT_SPIN_US "$@"; }
n=$(nproc)
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', expected '$3'"; fi; }
expect_eq env-tvm-over-omp "$(probe TVM_NUM_THREADS=3 OMP_NUM_THREADS=5 "$T/rt_test" threads)" "3 3"
expect_eq env-omp "$(probe OMP_NUM_THREADS=5 "$T/rt_test" threads)" "5 5"
expect_eq env-invalid-falls-through "$(probe TVM_NUM_THREADS=x OMP_NUM_THREADS=2 "$T/rt_test" threads)" "2 2"
expect_eq env-usable-cores "$(probe "$T/rt_test" threads)" "$n $n"
expect_eq env-affinity-one-core "$(probe taskset -c 0 "$T/rt_test" threads)" "1 1"
if [ "$n" -ge 2 ]; then
    expect_eq bind-default-unpinned "$(probe TVM_NUM_THREADS=2 "$T/rt_test" affinity)" "$n"
    expect_eq bind-tvm-bind-threads "$(probe TVM_NUM_THREADS=2 TVM_BIND_THREADS=1 "$T/rt_test" affinity)" 1
    expect_eq bind-cpu-list "$(probe TVM_NUM_THREADS=2 OBJRT_CPUS=0 "$T/rt_test" affinity)" 1
    # idle workers must be asleep (S), not spinning (R, as with a 2 s spin): the state,
    # unlike CPU time, does not depend on how busy the machine is
    idle=$(probe TVM_NUM_THREADS=2 "$T/rt_test" idle-state)
    busy=$(probe TVM_NUM_THREADS=2 OBJRT_SPIN_US=2000000 "$T/rt_test" idle-state)
    case "$idle:$busy" in
        *R*:*|:*|*:*S*|*:) fail "idle-workers-sleep: worker states idle '$idle', 2 s spin control '$busy'" ;;
        *) pass idle-workers-sleep ;;
    esac
fi

# --- the seed: aligned vector stores into a workspace allocated inside the parallel lambda
aligned_store() {   # does function $2 of object $1 store with an aligned vector move?
    objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$0 ~ f {on=1; next} /^$/ {on=0} on' |
        grep -Eq '(v?movaps|vmovapd|vmovdqa(32|64)?)[[:space:]]+%[xyz]mm[0-9]+,.*\('
}
if aligned_store "$T/seed_kernel.o" __tvm_parallel_lambda && ! aligned_store "$T/seed_kernel_nohint.o" __tvm_parallel_lambda; then
    pass seed-disassembly-aligned-store
else
    fail "seed-disassembly-aligned-store: no aligned store in __tvm_parallel_lambda (or one without the hint)"
fi
timeout 120 "$T/rt_load" seed "$T/seed_kernel.o"
timeout 120 "$T/rt_load" seed-offset16 "$T/seed_kernel.o"
check seed-cli-1000-runs timeout 120 $OBJRT run -e seed_selftest "$T/seed_kernel.o"
# a unit without main() whose __tvm_main__ names the entry: `objrt run` calls it
check cli-runs-tvm-main timeout 60 $OBJRT run "$T/main_kernel.o"
timeout 60 $OBJRT run "$T/main_kernel_fails.o" >/dev/null 2>&1; rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 127 ] && [ "$rc" -ne 125 ]; then pass cli-tvm-main-failure-status
else fail "cli-tvm-main-failure-status: a failing __tvm_main__ entry exited $rc"; fi
timeout 120 "$T/rt_load" syslib "$T/syslib_kernel.o"
timeout 120 "$T/rt_load" dso "$T/dso_kernel.o"

# --- OBJRT_CHECK_ALIGN: the misaligned tensor is refused by name; without it, a fault
out=$(OBJRT_CHECK_ALIGN=1 timeout 60 "$T/rt_load" diag "$T/seed_kernel.o" 2>/dev/null)
case "$out" in
    "refused: kernel 'fill_kernel' argument 0 "*"not 64-byte aligned"*) pass diag-check-align-names-kernel ;;
    *) fail "diag-check-align-names-kernel: $out" ;;
esac
timeout 60 "$T/rt_load" diag "$T/seed_kernel.o" >/dev/null 2>&1; rc=$?
if [ "$rc" -ge 128 ] && [ "$rc" -ne 124 ]; then pass diag-off-faults
else fail "diag-off-faults: misaligned tensor without the check exited $rc, expected a fault"; fi
exit 0

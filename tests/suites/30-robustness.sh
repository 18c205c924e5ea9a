#!/usr/bin/env bash
# 30-robustness: hostile and edge-case inputs through the C API (objrt_load,
# objrt_load_memory, objrt_error, objrt_unload). The tests are C programs in tests/robustness/
# built here against $BUILD/libobjrt.a; fixtures are compiled from tests/robustness/fixtures/
# with the target compiler. Each program prints its own PASS/FAIL lines; a program that
# dies or leaves a sanitizer report is one more FAIL. Configs: x86_64:, x86_64:asan,
# aarch64: (under qemu, with the exceptions noted below); nothing for tsan.
set -u
. "$ROOT/tests/lib.sh"

case "$TARGET:$SAN" in
    x86_64: | x86_64:asan | aarch64:) ;;
    *) exit 0 ;;
esac

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
SRC=$ROOT/tests/robustness
FIXSRC=$SRC/fixtures
BIN=$B/tests/robustness
FX=$TMP/fx
mkdir -p "$BIN" "$FX"

TFLAGS=""   # build_prog adds the sanitizer's flags
AR=ar
[ "$TARGET" = aarch64 ] && AR=aarch64-linux-gnu-ar
# exitcode 86: a sanitizer report at exit is told apart from the tests' own status 1.
export ASAN_OPTIONS="detect_leaks=1:exitcode=86:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1"

if [ ! -f "$B/libobjrt.a" ]; then
    fail "robustness-build: $B/libobjrt.a missing (run make first)"
    exit 0
fi

# ---- fixtures -------------------------------------------------------------------------
fixture() {   # fixture NAME [FLAGS...]: $FX/NAME.o from $FIXSRC/NAME.c
    local name=$1; shift
    $GCC -O2 "$@" -c "$FIXSRC/$name.c" -o "$FX/$name.o" 2>"$FX/$name.err" ||
        { fail "robustness-fixture-$name: $(tail -n 2 "$FX/$name.err" | tr '\n' ' ')"; return 1; }
}
for f in basic tls tls_empty missing dup_a dup_b weak_a weak_b ar_main ar_one ar_two big bigbss reach_call longname ctor group; do
    fixture $f
done
$GCC -O2 -DCALLER=grp_call2 -c "$FIXSRC/group.c" -o "$FX/group2.o" || fail "robustness-fixture-group2: compile failed"
# -fno-pic: direct R_X86_64_PC32 to external data (the point of the reach test).
# One object per slots.c variant (t_slots): where the loader's own writes and reads land.
for v in SLOT_OK SLOT_ABS SLOT_TEXT SLOT_RODATA SLOT_SMALL SLOT_PAST_END SLOT_MISALIGNED MAIN_ABS MAIN_UNTERMINATED REG_HOST REG_RODATA; do
    $GCC -O2 -D$v -c "$FIXSRC/slots.c" -o "$FX/slots-$v.o" 2>"$FX/slots.err" ||
        fail "robustness-fixture-slots-$v: $(tail -n 2 "$FX/slots.err" | tr '\n' ' ')"
done
fixture twocie -fexceptions   # two CIEs whose FDEs take turns (t_eh_frame)
# The same source by clang's large code model: FDE pointers pcrel sdata8, as LLVM's JIT
# (llvmlite, numba) emits them (t_eh_frame's short path for them against the general one).
$CLANG -O2 -mcmodel=large -fexceptions -Wno-unknown-attributes -c "$FIXSRC/twocie.c" \
    -o "$FX/twocie8.o" 2>"$FX/twocie8.err" ||
    fail "robustness-fixture-twocie8: $(tail -n 2 "$FX/twocie8.err" | tr '\n' ' ')"
# C++ (g++ -O2): a throw caught inside the unit, FDEs with LSDA pointers (t_eh_frame)
GXX=${GCC%gcc}g++
$GXX -O2 -c "$FIXSRC/lsda.cc" -o "$FX/lsda.o" 2>"$FX/lsda.err" ||
    fail "robustness-fixture-lsda: $(tail -n 2 "$FX/lsda.err" | tr '\n' ' ')"
fixture reach_data -fno-pic
fixture reach_two -fno-pic
fixture abs32 -fno-pic
rm -f "$FX/libar.a"
$AR rcs "$FX/libar.a" "$FX/ar_one.o" "$FX/ar_two.o" || fail "robustness-fixture-libar: ar failed"
# The other forms ar writes: long member names ("//" table), no index (S), thin (T), empty.
cp "$FX/ar_one.o" "$FX/a_very_long_member_name_one.o"
cp "$FX/ar_two.o" "$FX/another_quite_long_member_two.o"
rm -f "$FX/long.a" "$FX/noindex.a" "$FX/thin.a"
{ $AR rcs "$FX/long.a" "$FX/a_very_long_member_name_one.o" "$FX/another_quite_long_member_two.o" &&
  $AR rcS "$FX/noindex.a" "$FX/ar_one.o" "$FX/ar_two.o" &&
  $AR rcsT "$FX/thin.a" "$FX/ar_one.o" "$FX/ar_two.o" &&
  printf '!<arch>\n' >"$FX/empty.a"; } || fail "robustness-fixture-ar-forms: ar failed"

# align-P-A-D.o: CODE_BYTES = DATA_BYTES = P - D, aligned to A (t_reserve decodes the name).
# The list is built here, not in the pipeline below (a pipeline runs in a subshell).
ALIGN_OBJS=()
for p in 4096 16384 65536; do
    for a in 1 4 8 16 64 4096; do
        for d in 1 9; do ALIGN_OBJS+=("$FX/align-$p-$a-$d.o"); done
    done
done
for o in "${ALIGN_OBJS[@]}"; do
    IFS=- read -r _ p a d <<<"$(basename "$o" .o)"
    echo "$GCC -O2 -c -DCODE_BYTES=$((p - d)) -DDATA_BYTES=$((p - d)) -DALIGN=$a $FIXSRC/align.c -o $o"
done | xargs -P 2 -I{} sh -c '{}' || fail "robustness-fixture-align: compile failed"

# ---- test programs ----------------------------------------------------------------------
build_test() { build_prog "$1-build" "$BIN/$1" "$SRC/$1.c" -- -O1 -I"$SRC" $TFLAGS; }

# run_test NAME ARGS...: run_cases (tests/lib.sh) on the program: its cases are declared
# from its list mode, a crash, a timeout or a bad exit status fails every case it did not
# report; a sanitizer report on its stderr is one more FAIL.
run_test() {
    local name=$1 label=$1 i=2; shift
    [ -x "$BIN/$name" ] || return 0
    while [ -e "$TMP/$label.list" ]; do label=$name-$i; i=$((i + 1)); done
    # shellcheck disable=SC2086
    run_cases "$label" 150 $RUN "$BIN/$name" "$@"
    local err=$TMP/$label.err
    if grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$err"; then
        fail "$label-process: sanitizer report: $(grep -m 2 -E 'runtime error:|ERROR: ' "$err" | tr '\n' ' ')"
    fi
    # Keep the program's stderr for a reader of a failure.
    [ -s "$err" ] && cp "$err" "$BIN/$label.last-stderr"
    return 0
}

TESTS="t_truncate t_corrupt t_ar_corrupt t_reloc_errors t_symbols t_error_api t_cycles t_reserve t_init_array t_group t_ar_forms t_slots t_plan_sums t_perfmap t_dos t_small t_contracts t_eh_frame"
# x86_64 only: t_reach (its fixtures rely on x86_64 -fno-pic R_X86_64_PC32 and x86 code
# bytes), t_wx (under qemu-user the guest /proc/self/maps does not show rwx mappings as
# such: the checker's own negative control fails there), t_bigmem (measures VmRSS, which
# under qemu-user is qemu's own). t_dos bounds time only under qemu-user (no-rss: RSS is
# qemu's own there).
TESTS="$TESTS t_concurrent"
[ "$TARGET" = x86_64 ] && TESTS="$TESTS t_reach t_wx t_bigmem"
for t in $TESTS; do build_test "$t"; done

run_test t_truncate "$FX/basic.o" "$TMP"
run_test t_corrupt "$FX/basic.o"
# The same with clang's layout (one .strtab for symbol and section names, clang's order).
# shellcheck disable=SC2086
if $CLANG -O1 -c "$FIXSRC/basic.c" -o "$FX/basic-clang.o" 2>"$FX/basic-clang.err"; then
    run_test t_truncate "$FX/basic-clang.o" "$TMP" clang
    run_test t_corrupt "$FX/basic-clang.o" clang
else
    fail "robustness-fixture-basic-clang: $(tail -n 2 "$FX/basic-clang.err" | tr '\n' ' ')"
fi
run_test t_ar_corrupt "$FX/ar_main.o" "$FX/libar.a"
run_test t_reloc_errors "$FX/basic.o" "$FX/tls.o" "$FX/tls_empty.o"
run_test t_symbols "$FX/missing.o" "$FX/dup_a.o" "$FX/dup_b.o" "$FX/weak_a.o" "$FX/weak_b.o" "$FX/longname.o"
run_test t_error_api "$FX/missing.o" "$FX/basic.o"
run_test t_init_array "$FX/ctor.o"
run_test t_group "$FX/group.o" "$FX/group2.o"
run_test t_ar_forms "$FX/ar_main.o" "$FX/long.a" "$FX/noindex.a" "$FX/thin.a" "$FX/empty.a"
run_test t_reserve "${ALIGN_OBJS[@]}"
run_test t_slots "$FX"
run_test t_plan_sums
run_test t_perfmap "$FX/basic.o" "$TMP"
if [ "$TARGET" = x86_64 ]; then run_test t_dos; else run_test t_dos no-rss; fi
ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=1:thread_local_quarantine_size_kb=64" \
    run_test t_small "$FX/basic.o" "$TMP"
run_test t_contracts "$FX/basic.o" "$TMP"
run_test t_eh_frame "$FX/basic.o" "$FX/twocie.o" "$FX/lsda.o" "$FX/twocie8.o"   # finds the FDE after the CIE (0x14 bytes x86_64, 0x10 AArch64)
if [ "$TARGET" = x86_64 ]; then
    run_test t_reach "$FX/reach_data.o" "$FX/reach_two.o" "$FX/reach_call.o" "$FX/abs32.o"
    if [ "$SAN" = asan ]; then rounds=60; else rounds=200; fi
    run_test t_wx "$FX/big.o" "$rounds" "$FX/abs32.o" "$FX/ctor.o"
    run_test t_bigmem "$FX/bigbss.o" "$FX/basic.o"
    # ASan's quarantine keeps freed blocks resident on purpose: make it small here so
    # VmRSS measures objrt, not the quarantine (use-after-free is covered elsewhere).
    ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=1:thread_local_quarantine_size_kb=64" \
        run_test t_cycles "$FX/basic.o" 10000 rss
else
    # Under qemu-user VmRSS is qemu's own (translation cache included): mappings only.
    run_test t_cycles "$FX/basic.o" 2000
fi
# concurrent-own-contexts counts mappings after two rounds: ASan's quarantine holds freed
# large blocks mapped (an extra mapping in 1 run of 3 once a load made one malloc fewer,
# none with the quarantine small), so it is kept small here as for t_small and t_cycles.
ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=1:thread_local_quarantine_size_kb=64" \
    run_test t_concurrent "$FX/basic.o" "$FX/big.o" "$FX/ctor.o" 300

# ---- fuzzing (x86_64: only) -----------------------------------------------------------
if [ "$TARGET:$SAN" = x86_64: ]; then
    FZ=$B/tests/fuzz
    for r in "$ROOT"/tests/fuzz/regressions/*.elf; do rn=$(basename "$r"); expect "fuzz-regression-${rn%.*}"; done
    expect fuzz-load-memory-45s-no-crash
    mkdir -p "$FZ/artifacts" "$TMP/corpus"
    if bash "$ROOT/tests/fuzz/build.sh" "$FZ" >"$TMP/fuzz-build.log" 2>&1; then
        # Inputs the fuzzer once found (crashes, a 16 GiB and a 1 GiB prefault): each must
        # run without a crash or sanitizer report within 5 s (libFuzzer's RSS watch samples
        # once a second, so transient memory is t_bigmem's business, not this check's).
        for r in "$ROOT"/tests/fuzz/regressions/*.elf; do
            rn=$(basename "$r"); rn=${rn%.*}
            if timeout 60 "$FZ/fuzz_load" -timeout=5 -rss_limit_mb=512 "$r" >"$TMP/regr.log" 2>&1; then
                pass "fuzz-regression-$rn"
            else
                fail "fuzz-regression-$rn: $(grep -m 1 -E 'ERROR|runtime error|deadly signal' "$TMP/regr.log" | cut -c1-200); reproduce: $FZ/fuzz_load $r"
            fi
        done
        timeout 120 "$FZ/fuzz_load" -max_total_time=45 -runs=5000000 -timeout=10 -rss_limit_mb=2048 \
            -max_len=65536 -print_final_stats=1 -artifact_prefix="$FZ/artifacts/" \
            "$TMP/corpus" "$FZ/corpus" >"$TMP/fuzz.log" 2>&1; rc=$?
        cp "$TMP/fuzz.log" "$FZ/last-run.log"
        if [ "$rc" -eq 0 ]; then
            pass "fuzz-load-memory-45s-no-crash"
        else
            art=$(grep -m 1 -oE "Test unit written to [^ ]+" "$TMP/fuzz.log" | sed 's/Test unit written to //')
            fail "fuzz-load-memory-45s-no-crash: exit $rc: $(grep -m 1 -E 'ERROR|SUMMARY|runtime error|deadly signal' "$TMP/fuzz.log" | cut -c1-200); reproduce: $FZ/fuzz_load ${art:-(no artifact)} (log: $FZ/last-run.log)"
        fi
    else
        fail "fuzz-build: $(grep -m 2 -E 'error' "$TMP/fuzz-build.log" | tr '\n' ' ')"
    fi
fi
exit 0

#!/usr/bin/env bash
# 32-fuzz: the libFuzzer harnesses beyond fuzz_load (issue 10): several inputs linked
# (fuzz_link), unwinding after a load (fuzz_unwind), the runtime's module hooks
# (fuzz_runtime), structure-aware ELF mutation (fuzz_elf). x86_64: only (clang's libFuzzer,
# ASan+UBSan built in).
#   - every saved crash input is replayed: tests/fuzz/regressions/<target>/* by its target,
#     and the single-object regressions (tests/fuzz/regressions/*.elf, fuzz_load's) by every
#     single-input harness, each within 5 s and without a sanitizer report;
#   - each harness then runs 15 s from its seeds (no crash, every failed load explained).
# The harnesses are built by 30-robustness (tests/fuzz/build.sh); built here when missing.
set -u
. "$ROOT/tests/lib.sh"
[ "$TARGET:$SAN" = x86_64: ] || exit 0
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
FZ=$B/tests/fuzz
NEW="fuzz_link fuzz_unwind fuzz_runtime fuzz_elf"
# Declare every case first (tests/lib.sh): one that dies unreported is then a FAIL by name.
for t in $NEW; do
    for f in "$ROOT/tests/fuzz/regressions/$t"/*; do
        [ -f "$f" ] && n=$(basename "$f") && expect "fuzz-replay-$t-${n%.*}"
    done
    expect "fuzz-$t-15s-no-crash"
done
for t in fuzz_unwind fuzz_runtime fuzz_elf; do
    for f in "$ROOT"/tests/fuzz/regressions/*.elf; do
        n=$(basename "$f"); expect "fuzz-replay-$t-${n%.*}"
    done
done
missing=0
for t in $NEW; do [ -x "$FZ/$t" ] || missing=1; done
if [ "$missing" = 1 ] && ! bash "$ROOT/tests/fuzz/build.sh" "$FZ" >"$TMP/build.log" 2>&1; then
    fail "fuzz-build: $(grep -m 2 -E 'error' "$TMP/build.log" | tr '\n' ' ')"
    exit 0
fi

replay() {   # replay TARGET FILE
    local t=$1 f=$2 n
    n=$(basename "$f"); n=${n%.*}
    if timeout 60 "$FZ/$t" -timeout=5 -rss_limit_mb=1024 "$f" >"$TMP/replay.log" 2>&1; then
        pass "fuzz-replay-$t-$n"
    else
        fail "fuzz-replay-$t-$n: $(grep -m 1 -E 'ERROR|runtime error|deadly signal' "$TMP/replay.log" | cut -c1-200); reproduce: $FZ/$t $f"
    fi
}
for t in $NEW; do
    for f in "$ROOT/tests/fuzz/regressions/$t"/*; do [ -f "$f" ] && replay "$t" "$f"; done
done
for t in fuzz_unwind fuzz_runtime fuzz_elf; do
    for f in "$ROOT"/tests/fuzz/regressions/*.elf; do replay "$t" "$f"; done
done

for t in $NEW; do
    seeds=$FZ/corpus
    [ "$t" = fuzz_link ] && seeds=$FZ/corpus-link
    mkdir -p "$TMP/work-$t" "$FZ/artifacts"
    timeout 120 "$FZ/$t" -max_total_time=15 -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -dict="$ROOT/tests/fuzz/objrt.dict" -print_final_stats=1 \
        -artifact_prefix="$FZ/artifacts/$t-" "$TMP/work-$t" "$seeds" >"$TMP/$t.log" 2>&1
    rc=$?
    cp "$TMP/$t.log" "$FZ/last-run-$t.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/$t.log")
    if [ "$rc" -eq 0 ] && [ "${execs:-0}" -gt 100 ]; then
        pass "fuzz-$t-15s-no-crash ($execs executions)"
    else
        art=$(grep -m 1 -oE "Test unit written to [^ ]+" "$TMP/$t.log" | sed 's/Test unit written to //')
        fail "fuzz-$t-15s-no-crash: exit $rc after ${execs:-0} executions: $(grep -m 1 -E 'ERROR|SUMMARY|runtime error|deadly signal' "$TMP/$t.log" | cut -c1-200); reproduce: $FZ/$t ${art:-(no artifact)}"
    fi
done
exit 0

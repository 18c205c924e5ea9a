#!/usr/bin/env bash
# Run libFuzzer harnesses for a fixed time each and summarise them (used by `make fuzz`).
#   tests/fuzz/run.sh DIR SECONDS TARGET...
# Builds DIR (tests/fuzz/build.sh) when a harness is missing or older than the sources.
# Each target keeps its growing corpus in DIR/work-TARGET/ (seeded from DIR/corpus or
# DIR/corpus-link, DIR/corpus-readers), crashes in DIR/artifacts/, its log in DIR/log-TARGET. Prints one line per
# target: executions, coverage (edges "cov" and features "ft"), corpus, speed, crashes.
# Exit status 1 when any target crashed (the artifact then belongs in tests/fuzz/regressions/).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:?usage: run.sh DIR SECONDS TARGET...}
SECS=${2:?}
shift 2
stale=0
for t in "$@"; do
    [ -x "$DIR/$t" ] || stale=1
    [ -x "$DIR/$t" ] && [ -n "$(find "$ROOT/src" "$ROOT/tests/fuzz" -newer "$DIR/$t" -name '*.[ch]' | head -1)" ] && stale=1
done
if [ "$stale" = 1 ]; then
    echo "building harnesses into $DIR ..."
    bash "$ROOT/tests/fuzz/build.sh" "$DIR" >"$DIR.build.log" 2>&1 ||
        { echo "build failed, see $DIR.build.log"; exit 1; }
fi
mkdir -p "$DIR/artifacts"
rc=0
printf '%-13s %10s %7s %7s %7s %8s %s\n' target execs cov ft corpus exec/s result
for t in "$@"; do
    seeds=$DIR/corpus
    dict=$ROOT/tests/fuzz/objrt.dict
    [ "$t" = fuzz_link ] && seeds=$DIR/corpus-link
    [ "$t" = fuzz_readers ] && seeds=$DIR/corpus-readers dict=$ROOT/tests/fuzz/readers.dict
    mkdir -p "$DIR/work-$t"
    # 1 MiB inputs (the default 64 KiB hides sizes); huge *declared* sizes come from the
    # structure-aware mutator (fuzz_elf) and the dictionary; reservations are demand-zero,
    # so a 2 GiB RSS cap is not reached by declared sizes alone.
    timeout $((SECS + 120)) "$DIR/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
        -max_len=1048576 -dict="$dict" -print_final_stats=1 \
        -artifact_prefix="$DIR/artifacts/$t-" "$DIR/work-$t" "$seeds" >"$DIR/log-$t" 2>&1
    r=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$DIR/log-$t")
    last=$(grep -E '^#[0-9]+' "$DIR/log-$t" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$DIR/log-$t")
    result=ok
    if [ "$r" -ne 0 ]; then
        result="CRASH exit $r: $(grep -m 1 -oE 'Test unit written to [^ ]+' "$DIR/log-$t")"
        rc=1
    fi
    printf '%-13s %10s %7s %7s %7s %8s %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
        "${corp:-?}" "${speed:-?}" "$result"
done
exit $rc

#!/usr/bin/env bash
# bench/run.sh BUILD - run every benchmark (bench/*/run.sh, in name order) against BUILD.
# Installs missing packages first (scripts/install-deps.sh is idempotent and fast when
# nothing is missing). Exits non-zero when any benchmark did.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
bash "$ROOT/scripts/install-deps.sh" || { echo "bench: installing dependencies failed" >&2; exit 1; }
# Waits (at most 30 s) for a second in which under 10% of the machine's CPU time was busy,
# and prints what it saw, so that no benchmark starts in the wake of the one before and a
# start on a busy machine shows in the log (the runtime's idle mode once read its ~1 us
# fork/join at 1.03x libgomp inside `make bench`, and 0.71x in two runs minutes later).
settle() {
    local i busy=100 a b c d e f g h t1 i1 t2 i2
    for i in $(seq 30); do
        read -r _ a b c d e f g h _ </proc/stat; t1=$((a + b + c + d + e + f + g + h)); i1=$((d + e))
        sleep 1
        read -r _ a b c d e f g h _ </proc/stat; t2=$((a + b + c + d + e + f + g + h)); i2=$((d + e))
        [ "$t2" -gt "$t1" ] && busy=$((100 * ((t2 - t1) - (i2 - i1)) / (t2 - t1)))
        [ "$busy" -lt 10 ] && break
    done
    echo "(settled: ${busy}% of the CPU time busy in the last second, after ${i} s)"
}
status=0
for b in "$ROOT"/bench/*/run.sh; do
    [ -f "$b" ] || continue
    echo "### $(basename "$(dirname "$b")")"
    settle
    bash "$b" "$BUILD" || { echo "bench: $b exited $?" >&2; status=1; }
done
exit $status

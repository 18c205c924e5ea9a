#!/usr/bin/env bash
# bench/python/engine_callgrind.sh BUILD [N] - where numba's link work per module goes, in
# instructions and simulated cache misses (callgrind --cache-sim=yes: the same whatever the
# machine's load): numba_bench.py's `engine` replay of N modules (default 40) under callgrind
# once per engine, collecting only inside each module's region (engine_marks.c); printed per
# module beyond the bare emit_object. The host's numba only (issue 37 item 3 ran the same in
# the roots with valgrind copied in: docs/perf-history.md). Needs valgrind and its headers.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}; N=${2:-40}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OUT=$(mktemp -d /tmp/objrt-engine-callgrind.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
cc -O1 -shared -fPIC -o "$OUT/marks.so" "$ROOT/bench/python/engine_marks.c"
export OBJRT_LIBRARY=$BUILD/libobjrt.so PYTHONPATH=$ROOT/python
REPLAY=$ROOT/bench/python/engine_replay.py
/usr/bin/python3 "$REPLAY" dump "$N" "$OUT/irs.json"
for which in emit mcjit objrt; do
    valgrind --tool=callgrind --cache-sim=yes --instr-atstart=no --collect-atstart=no \
        --callgrind-out-file="$OUT/$which.cg" /usr/bin/python3 "$REPLAY" replay "$N" "$OUT/irs.json" \
        "$which" "$OUT/marks.so" 2>"$OUT/$which.err" || { tail -n 3 "$OUT/$which.err" >&2; exit 1; }
done
/usr/bin/python3 - "$OUT" "$N" <<'PYEOF'
import sys
out, n = sys.argv[1], int(sys.argv[2])
def totals(which):
    for line in open("%s/%s.cg" % (out, which)):
        if line.startswith("totals:"):   # Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
            return [int(x) for x in line.split()[1:]]
emit = totals("emit")
print("per module beyond emit_object (%d modules; objrt's region also frees the module):" % n)
print("| engine | instructions | L1 misses | LL misses | Ir + 10 L1 + 100 LL |")
print("|---|---|---|---|---|")
est = {}
for which in ("objrt", "mcjit"):
    d = [(a - b) / n for a, b in zip(totals(which), emit)]
    l1, ll = d[3] + d[4] + d[5], d[6] + d[7] + d[8]
    est[which] = d[0] + 10 * l1 + 100 * ll
    print("| %s | %.0fk | %.1fk | %.0f | %.0fk |" % (which, d[0] / 1e3, l1 / 1e3, ll, est[which] / 1e3))
print("objrt/MCJIT, estimated cycles: %.2f" % (est["objrt"] / est["mcjit"]))
PYEOF

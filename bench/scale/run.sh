#!/usr/bin/env bash
# bench/scale/run.sh BUILD - load and unload cost of one unit against the number of units
# its context already holds (issue 27, item 8): scale_bench.c fills a context with copies
# of filler.c's one-function unit to 500, 4,000 and 20,000 units and at each loads and
# unloads probe.c's unit (30 host references) REPS times; medians, one process per round,
# ROUNDS rounds (median of the rounds' medians). Env: ROUNDS (default 3), REPS (default 30),
# NS (default 500,4000,20000).
set -uo pipefail
. "$(dirname "$0")/../lib.sh" "$@"
ROUNDS=${ROUNDS:-3}; REPS=${REPS:-30}; NS=${NS:-500,4000,20000}
CC=${CC:-cc}
bench_scratch scale
$CC -O2 -fPIC -c "$ROOT/bench/scale/filler.c" -o "$W/filler.o" &&
$CC -O2 -fPIC -c "$ROOT/bench/scale/probe.c" -o "$W/probe.o" ||
    { echo "bench/scale: build failed" >&2; exit 1; }
bench_harness scale "$ROOT/bench/scale/scale_bench.c" "$W/scale_bench"
load0=$(loadavg)
for r in $(seq "$ROUNDS"); do
    "$W/scale_bench" "$W/filler.o" "$W/probe.o" "$NS" "$REPS" >>"$W/rows" ||
        { echo "bench/scale: scale_bench failed" >&2; exit 1; }
done
/usr/bin/python3 - "$W/rows" "$load0" "$(loadavg)" "$ROUNDS" "$REPS" <<'PYEOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
load0, load1, rounds, reps = sys.argv[2:6]
print("load and unload of a unit with 30 host references against the units already loaded: "
      "median of %s processes of %s loads each (load average %s at start, %s at end)"
      % (rounds, reps, load0, load1))
print("| units loaded | load us | unload us |")
print("|---|---|---|")
for n in sorted({r[0] for r in rows}, key=int):
    sel = [r for r in rows if r[0] == n]
    print("| %s | %.1f | %.1f |" % (n, statistics.median(float(r[1]) for r in sel),
                                   statistics.median(float(r[2]) for r in sel)))
PYEOF

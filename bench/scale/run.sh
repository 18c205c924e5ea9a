#!/usr/bin/env bash
# bench/scale/run.sh BUILD - load and unload cost of one unit against the number of units
# its context already holds (issue 27, item 8; packed units: issue 40, item 8).
# scale_bench.c fills a new context with copies of filler.c's small unit to each N and
# there measures: a unit with 30 host references (probe.c) loaded and unloaded REPS times;
# REPS filler units picked at random unloaded and loaded again (a JIT service replacing its
# functions); the mean load of the fill; objrt_free of the context with its units loaded.
# Two sets, one process per round, ROUNDS rounds (median of the rounds' medians):
#   - own pages (the C default) at NS units;
#   - packed (objrt_options.pack_small: Python's and numba's default) at PNS units.
# The filler has no unwind tables: a unit's .eh_frame is registered with libgcc, whose
# list of registered objects GCC 12's libgcc walks to deregister one (objrt's own cost is
# what is measured here; docs/limits.md). Times in microseconds of the thread's CPU time.
# Env: ROUNDS (default 3), REPS (default 30), NS (default 500,4000,20000),
# PNS (default 1000,20000,100000).
set -uo pipefail
. "$(dirname "$0")/../lib.sh" "$@"
ROUNDS=${ROUNDS:-3}; REPS=${REPS:-30}; NS=${NS:-500,4000,20000}; PNS=${PNS:-1000,20000,100000}
CC=${CC:-cc}
bench_scratch scale
$CC -O2 -fPIC -fno-asynchronous-unwind-tables -fno-unwind-tables \
    -c "$ROOT/bench/scale/filler.c" -o "$W/filler.o" &&
$CC -O2 -fPIC -c "$ROOT/bench/scale/probe.c" -o "$W/probe.o" ||
    { echo "bench/scale: build failed" >&2; exit 1; }
bench_harness scale "$ROOT/bench/scale/scale_bench.c" "$W/scale_bench"
load0=$(loadavg)
for r in $(seq "$ROUNDS"); do
    "$W/scale_bench" "$W/filler.o" "$W/probe.o" "$NS" "$REPS" | sed 's/^/own /' >>"$W/rows" &&
    "$W/scale_bench" "$W/filler.o" "$W/probe.o" "$PNS" "$REPS" packed | sed 's/^/packed /' >>"$W/rows" ||
        { echo "bench/scale: scale_bench failed" >&2; exit 1; }
done
/usr/bin/python3 - "$W/rows" "$load0" "$(loadavg)" "$ROUNDS" "$REPS" <<'PYEOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
load0, load1, rounds, reps = sys.argv[2:6]
print("a unit loaded and unloaded against the units already in its context: us of CPU time, "
      "median of %s processes of %s operations each (load average %s at start, %s at end)"
      % (rounds, reps, load0, load1))
print("| pages | units loaded | probe load | probe unload | random unit unloaded | loaded again | fill, per unit | objrt_free, per unit |")
print("|---|---|---|---|---|---|---|---|")
for mode in ("own", "packed"):
    sel_mode = [r for r in rows if r[0] == mode]
    for n in sorted({r[1] for r in sel_mode}, key=int):
        sel = [r for r in sel_mode if r[1] == n]
        m = [statistics.median(float(r[k]) for r in sel) for k in (2, 3, 5, 4, 6, 7)]
        print("| %s | %s | %s |" % (mode, n, " | ".join("%.1f" % v for v in m)))
PYEOF

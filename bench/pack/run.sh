#!/usr/bin/env bash
# bench/pack/run.sh BUILD - small units sharing pages (objrt_options.pack_small) vs each on
# its own pages: bytes mapped per small unit against its content, and load and unload
# time per unit. 1000 units of tests/pack/unit.c (20 variants, about 790 bytes of content
# each, cross-unit calls and data) loaded into one context by pack_bench.c, one fresh
# process per measurement; packed and unpacked alternate in ROUNDS rounds (order swapped
# each round) at each plan page size; medians, with the load average at start and end.
# Env: ROUNDS (default 7), N (units, default 1000), PAGES (default "4096 65536").
set -uo pipefail
. "$(dirname "$0")/../lib.sh" "$@"
[ "$(uname -m)" = x86_64 ] || { echo "bench/pack: x86_64 only"; exit 0; }
ROUNDS=${ROUNDS:-7}; N=${N:-1000}; PAGES=${PAGES:-4096 65536}
CC=${CC:-cc}
bench_scratch pack
bash "$ROOT/tests/pack/make-units.sh" "$W/units" "$CC" || { echo "bench/pack: compiling the units failed" >&2; exit 1; }
bench_harness pack "$ROOT/bench/pack/pack_bench.c" "$W/pack_bench"
load0=$(loadavg)
for page in $PAGES; do
    for r in $(seq "$ROUNDS"); do
        if [ $((r % 2)) -eq 1 ]; then order="packed unpacked"; else order="unpacked packed"; fi
        for mode in $order; do
            "$W/pack_bench" "$W/units" "$N" "$mode" "$page" >>"$W/rows" ||
                { echo "bench/pack: pack_bench $mode $page failed" >&2; exit 1; }
        done
    done
done
/usr/bin/python3 - "$W/rows" "$load0" "$(loadavg)" "$N" "$ROUNDS" <<'PYEOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
load0, load1, n, rounds = sys.argv[2:6]
print("small units sharing pages: %s units per process, median of %s fresh processes per cell, "
      "packed and unpacked alternating (load average %s at start, %s at end)" % (n, rounds, load0, load1))
print("| plan page | mode | bytes mapped per unit | content per unit | mapped/content | load us per unit | unload us per unit |")
print("|---|---|---|---|---|---|---|")
med = {}
for page in sorted({r[1] for r in rows}, key=int):
    for mode in ("unpacked", "packed"):
        sel = [r for r in rows if r[0] == mode and r[1] == page]
        m = [statistics.median(float(r[k]) for r in sel) for k in range(3, 7)]
        med[(page, mode)] = m
        print("| %d KiB | %s | %.0f | %.0f | %.2f | %.1f | %.1f |"
              % (int(page) // 1024, mode, m[0], m[1], m[0] / m[1], m[2], m[3]))
for page in sorted({r[1] for r in rows}, key=int):
    p, u = med[(page, "packed")], med[(page, "unpacked")]
    print("%d KiB pages: packed/unpacked bytes mapped %.3f, load time %.2f, unload time %.2f"
          % (int(page) // 1024, p[0] / u[0], p[2] / u[2], p[3] / u[3]))
PYEOF

#!/usr/bin/env bash
# 37-scale: load and unload cost of a unit independent of the number of units its context
# already holds (issue 27, item 8: the context's name and address indexes, unitindex.c).
# bench/scale/scale_bench.c fills a context with copies of a one-function unit, then loads
# and unloads a unit with 30 host references 30 times at 100 and at 2,000 units loaded
# (medians). Each of load and unload at 2,000 must stay within 3x of its cost at 100
# (before the indexes: 20x for loads, 5x for unloads). tests/scale/t_index.c checks that
# the indexes answer as the walks did: newest definition first, the older one back after
# an unload, dependants counted. Ratios of medians in one process,
# so a busy machine slows both sides alike. x86_64: only (qemu-user's timing is not the
# loader's; sanitizers change the costs being compared).
set -u
. "$ROOT/tests/lib.sh"

[ "$TARGET:$SAN" = x86_64: ] || exit 0
expect scale-load scale-unload index-newest-first index-dependants index-unload-reverts

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
FX=$TMP/scale
mkdir -p "$FX" "$B/tests/scale"
unset OBJRT_REUSE OBJRT_PACK
if ! $GCC -O2 -fPIC -c "$ROOT/bench/scale/filler.c" -o "$FX/filler.o" 2>"$FX/cc.err" ||
   ! $GCC -O2 -fPIC -c "$ROOT/bench/scale/probe.c" -o "$FX/probe.o" 2>>"$FX/cc.err"; then
    fail "scale-load: fixtures: $(head -n 2 "$FX/cc.err" | tr '\n' ' ')"
    fail "scale-unload: fixtures"
    exit 0
fi
if $GCC -O2 -fPIC -DWHICH=1 -c "$ROOT/tests/scale/which.c" -o "$FX/a.o" 2>>"$FX/cc.err" &&
   $GCC -O2 -fPIC -DWHICH=2 -c "$ROOT/tests/scale/which.c" -o "$FX/b.o" 2>>"$FX/cc.err" &&
   $GCC -O2 -fPIC -c "$ROOT/tests/scale/user.c" -o "$FX/user.o" 2>>"$FX/cc.err" &&
   build_prog index-newest-first "$B/tests/scale/t_index" "$ROOT/tests/scale/t_index.c"; then
    timeout -s KILL 60 "$B/tests/scale/t_index" "$FX/a.o" "$FX/b.o" "$FX/user.o" "$FX/filler.o" \
        >"$FX/t_index.out" 2>"$FX/t_index.err"
    rc=$?
    grep -E '^(PASS|FAIL) ' "$FX/t_index.out"
    for c in index-newest-first index-dependants index-unload-reverts; do
        grep -Eq "^(PASS|FAIL) $c( |:|\$)" "$FX/t_index.out" ||
            fail "$c: t_index $(status_text "$rc"): $(oneline "$(cat "$FX/t_index.err")")"
    done
else
    fail "index-newest-first: fixtures: $(head -n 2 "$FX/cc.err" | tr '\n' ' ')"
fi
build_prog scale-load "$B/tests/scale/scale_bench" "$ROOT/bench/scale/scale_bench.c" || { fail "scale-unload: build"; exit 0; }
out=$(timeout -s KILL 120 "$B/tests/scale/scale_bench" "$FX/filler.o" "$FX/probe.o" 100,2000 30 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 2 ]; then
    fail "scale-load: scale_bench $(status_text "$rc"): $(oneline "$out")"
    fail "scale-unload: scale_bench $(status_text "$rc")"
    exit 0
fi
# ratio COLUMN NAME: PASS when the cost at 2,000 units is within 3x of the cost at 100
ratio() {
    printf '%s\n' "$out" | awk -v c="$1" -v name="$2" '
        NR == 1 { a = $c } NR == 2 { b = $c }
        END { r = a > 0 ? b / a : 1e9
              printf "%s %s: %.1f us at 100 units, %.1f us at 2000 (%.2fx, at most 3x)\n",
                     (r <= 3 ? "PASS" : "FAIL"), name, a, b, r }'
}
ratio 2 scale-load
ratio 3 scale-unload
exit 0

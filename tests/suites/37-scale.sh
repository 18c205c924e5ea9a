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
# Packed units (issue 40, item 8: Python's and numba's default): at 1,000 and at 20,000
# small units sharing pages, the probe's load and unload, a random filler unit unloaded and
# loaded again, the fill's mean load and objrt_free per unit, each within 3x of its cost at
# 1,000 (before the address index was a tree and the arena's search skipped full blocks and
# pages: 4.5x to 67x). The filler has no unwind tables there: deregistering a unit's
# .eh_frame walks libgcc's own list of registered objects (GCC 12), which is not objrt's to
# make flat (docs/limits.md). Control: the same run with a walk of every unit planted in
# each timed operation (scale_bench's `control`) must exceed the bound.
set -u
. "$ROOT/tests/lib.sh"

[ "$TARGET:$SAN" = x86_64: ] || exit 0
expect scale-load scale-unload index-newest-first index-dependants index-unload-reverts \
    scale-packed-load scale-packed-unload scale-packed-free scale-packed-control

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
FX=$TMP/scale
mkdir -p "$FX" "$B/tests/scale"
unset OBJRT_REUSE OBJRT_PACK
if ! $GCC -O2 -fPIC -c "$ROOT/bench/scale/filler.c" -o "$FX/filler.o" 2>"$FX/cc.err" ||
   ! $GCC -O2 -fPIC -fno-asynchronous-unwind-tables -fno-unwind-tables \
        -c "$ROOT/bench/scale/filler.c" -o "$FX/filler-nu.o" 2>>"$FX/cc.err" ||
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

# packed: 1,000 and 20,000 units; columns: 2 probe load, 3 probe unload, 4 random unit
# loaded again, 5 random unit unloaded, 6 the fill's mean load, 7 objrt_free per unit.
# packed_ratio OUT NAME BOUND COLUMN...: "ok" when every column at 20,000 is within BOUND
# times its value at 1,000, else "over"; then the figures.
packed_ratio() {
    printf '%s\n' "$1" | awk -v name="$2" -v bound="$3" -v cols="$4" '
        NR == 1 { split($0, a) } NR == 2 { split($0, b) }
        END { split("- probe-load probe-unload random-reload random-unload fill free", what)
              n = split(cols, c, ","); ok = 1; msg = ""
              for (i = 1; i <= n; i++) {
                  k = c[i]; r = a[k] > 0 ? b[k] / a[k] : 1e9; if (r > bound) ok = 0
                  msg = msg sprintf(" %s %.1f->%.1f us (%.2fx)", what[k], a[k], b[k], r) }
              printf "%s %s:%s, at most %sx\n", ok ? "ok" : "over", name, msg, bound }'
}
packed() {
    timeout -s KILL 300 "$B/tests/scale/scale_bench" "$FX/filler-nu.o" "$FX/probe.o" 1000,20000 50 packed "$@" 2>&1
}
out=$(packed)
rc=$?
if [ "$rc" -ne 0 ] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 2 ]; then
    for c in scale-packed-load scale-packed-unload scale-packed-free scale-packed-control; do
        fail "$c: scale_bench packed $(status_text "$rc"): $(oneline "$out")"
    done
    exit 0
fi
for spec in "scale-packed-load 2,4,6" "scale-packed-unload 3,5" "scale-packed-free 7"; do
    set -- $spec
    r=$(packed_ratio "$out" "$1" 3 "$2")
    case $r in ok*) echo "PASS ${r#ok }" ;; *) echo "FAIL ${r#over }" ;; esac
done
ctl=$(packed control)
rc=$?
if [ "$rc" -ne 0 ] || [ "$(printf '%s\n' "$ctl" | wc -l)" -ne 2 ]; then
    fail "scale-packed-control: scale_bench packed control $(status_text "$rc"): $(oneline "$ctl")"
    exit 0
fi
r=$(packed_ratio "$ctl" scale-packed-control 3 2,3,4,5)
case $r in
    over*) echo "PASS ${r#over } (a walk of every unit per operation planted: caught)" ;;
    *) echo "FAIL ${r#ok } (a walk of every unit per operation planted: not caught)" ;;
esac
exit 0

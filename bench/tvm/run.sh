#!/usr/bin/env bash
# TVM host-side benchmark: what calling a TVM kernel through objrt costs.
#  1. a packed call on a 1-element float32 tensor through TVMFuncCall, against the packed
#     function called by pointer and a plain C call of the same loop (ns per call);
#  2. `objrt call --repeat` against the same kernel called from a C host through
#     TVMFuncCall with the same timing method (us per call), float32[1] and float32[1M].
# Everything runs ROUNDS times, the harnesses interleaved, medians reported with the load
# average. Usage: bench/tvm/run.sh [BUILD]
set -eu
. "$(dirname "$0")/../lib.sh" "$@"
ROUNDS=${ROUNDS:-5}
CALLS=${CALLS:-2000000}
bench_out tvm
SRC=$ROOT/bench/tvm
bench_old_kernel "$OUT/kernel.o"
gcc -O2 -std=c11 -D_GNU_SOURCE -fPIC -I"$ROOT/include" -I"$ROOT/src" "$SRC/bench_tvm.c" \
    "$BUILD/libobjrt.a" -ldl -lpthread -o "$OUT/bench_tvm"
/usr/bin/python3 - "$OUT" <<'PY'
import sys, numpy as np
for n in (1, 1 << 20):
    for k in "ab":
        np.save("%s/%s%d.npy" % (sys.argv[1], k, n), np.arange(n, dtype=np.float32))
PY
export TVM_NUM_THREADS=1
: > "$OUT/raw.txt"
for r in $(seq "$ROUNDS"); do
    "$OUT/bench_tvm" overhead "$OUT/kernel.o" "$CALLS" >> "$OUT/raw.txt"
    for n in 1 1048576; do
        reps=$([ $n = 1 ] && echo 2000000 || echo 300)
        "$BUILD/objrt" call "$OUT/kernel.o" -f add_packed --in "$OUT/a$n.npy" --in "$OUT/b$n.npy" \
            --out "c=float32[$n]" -o "$OUT" --repeat $reps |
            sed -n "s/^add_packed: median \([0-9.]*\) us.*/cli$n \1/p" >> "$OUT/raw.txt"
        "$OUT/bench_tvm" repeat "$OUT/kernel.o" $n $reps | sed "s/^c /c$n /" >> "$OUT/raw.txt"
    done
done
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
d=$(med direct); p=$(med packed); f=$(med funccall)
{
echo "TVM host API: median of $ROUNDS interleaved rounds ($(date -u +%F)), load average $(loadavg)"
printf '%-52s %10s %16s\n' "call on a 1-element float32 add (ns per call)" ns "over direct C"
printf '%-52s %10s %16s\n' "direct C call (add_direct)" "$d" -
printf '%-52s %10s %16s\n' "packed function by pointer (arg checks)" "$p" "+$(sub "$p" "$d")"
printf '%-52s %10s %16s\n' "TVMFuncCall on a TVMModGetFunction handle" "$f" "+$(sub "$f" "$d")"
echo
printf '%-34s %16s %16s %10s\n' "add_packed, time per call (us)" "objrt call" "C host" "cli/C"
for n in 1 1048576; do
    printf '%-34s %16s %16s %10s\n' "float32[$n]" "$(med cli$n)" "$(med c$n)" "$(ratio "$(med cli$n)" "$(med c$n)")"
done
} | tee "$OUT/results.txt"

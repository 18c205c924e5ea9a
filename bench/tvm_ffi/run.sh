#!/usr/bin/env bash
# TVM-FFI benchmark (issue 22): a call of a 1-element float32 add through
# TVMFFIFunctionCall (TVM 0.26 kernel, tests/tvm_ffi/kernel.c) against a direct C call and
# the old TVMFuncCall path (bench/tvm/kernel.c), in ns per call; and a load + unload of the
# TVM-FFI unit against the old-ABI one, in us. ROUNDS rounds, medians, with the load
# average. Usage: bench/tvm_ffi/run.sh [BUILD]
set -eu
. "$(dirname "$0")/../lib.sh" "$@"
ROUNDS=${ROUNDS:-5}
CALLS=${CALLS:-2000000}
bench_out tvm_ffi
bench_old_kernel "$OUT/old.o"
gcc -O2 -std=gnu11 -I"$ROOT/include" -DTVM=26 -c "$ROOT/tests/tvm_ffi/kernel.c" -o "$OUT/ffi.o"
gcc -O2 -std=c11 -D_GNU_SOURCE -I"$ROOT/include" -I"$ROOT/src" "$ROOT/bench/tvm_ffi/bench_ffi.c" "$BUILD/libobjrt.a" \
    -ldl -lpthread -ljansson -o "$OUT/bench_ffi"
export TVM_NUM_THREADS=1
: > "$OUT/raw.txt"
for r in $(seq "$ROUNDS"); do
    "$OUT/bench_ffi" calls "$OUT/old.o" "$OUT/ffi.o" "$CALLS" >> "$OUT/raw.txt"
    "$OUT/bench_ffi" load "$OUT/old.o" "$OUT/ffi.o" 200 >> "$OUT/raw.txt"
done
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f", a - b }'; }
d=$(med direct); o=$(med funccall); f=$(med ffi)
{
echo "TVM-FFI: median of $ROUNDS rounds ($(date -u +%F)), load average $(loadavg)"
printf '%-56s %10s %14s\n' "1-element float32 add, ns per call" ns "vs TVMFuncCall"
printf '%-56s %10s %14s\n' "direct C call (add_direct)" "$d" "$(sub "$d" "$o")"
printf '%-56s %10s %14s\n' "TVMFuncCall, old packed ABI (add_packed)" "$o" -
printf '%-56s %10s %14s\n' "TVMFFIFunctionCall, TVM 0.26 kernel (__tvm_ffi_add)" "$f" "$(sub "$f" "$o")"
printf '%-56s %10s %14s\n' "objrt_load + objrt_unload, us: old-ABI unit" "$(med load-old)" -
printf '%-56s %10s %14s\n' "objrt_load + objrt_unload, us: TVM-FFI unit" "$(med load-ffi)" "$(sub "$(med load-ffi)" "$(med load-old)")"
} | tee "$OUT/results.txt"

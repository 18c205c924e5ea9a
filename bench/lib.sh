# bench/lib.sh - the setup the benchmark scripts share. Sourced, never run (bench/run.sh
# runs bench/*/run.sh only), as the first thing a bench/NAME/run.sh does after `set`:
#     . "$(dirname "$0")/../lib.sh" "$@"
# It sets ROOT (the repository) and BUILD (the script's first argument, default build,
# made absolute), and defines what more than one script does alike:
#   bench_out NAME            OUT=$BUILD/bench/NAME, created; libobjrt.a built if missing
#   bench_old_kernel OBJ      bench/tvm/kernel.c (the old packed ABI's add) compiled to OBJ
#   med KEY                   the median of the values on the lines "KEY VALUE" of
#                             $OUT/raw.txt ("nan" when there is none)
#   bench_scratch NAME        W, a new scratch directory /tmp/objrt-bench-NAME.*, removed
#                             when the script exits
#   bench_harness NAME SRC EXE   SRC compiled with $CC (default cc) and -Werror against
#                             libobjrt.a into EXE; on failure "bench/NAME: build failed"
#                             and the script exits 1
#   loadavg                   the 1, 5 and 15 minute load averages, as one line
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac

bench_out() {
    OUT=$BUILD/bench/$1
    mkdir -p "$OUT"
    [ -f "$BUILD/libobjrt.a" ] || make -C "$ROOT" -s all >/dev/null
}

bench_old_kernel() {
    gcc -O2 -std=c11 -I"$ROOT/include" -I"$ROOT/tests/tvm/kernels" -c "$ROOT/bench/tvm/kernel.c" -o "$1"
}

med() {
    awk -v m="$1" '$1 == m { print $2 }' "$OUT/raw.txt" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

bench_scratch() {
    W=$(mktemp -d "/tmp/objrt-bench-$1.XXXXXX")
    trap 'rm -rf "$W"' EXIT
}

bench_harness() {
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I"$ROOT/include" "$2" \
        "$BUILD/libobjrt.a" -ldl -lpthread -ljansson -o "$3" || { echo "bench/$1: build failed" >&2; exit 1; }
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

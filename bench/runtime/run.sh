#!/usr/bin/env bash
# Kernel runtime benchmark: objrt's pool and workspaces against libgomp, LLVM's libomp,
# malloc and posix_memalign, all built here and run interleaved (ROUNDS rounds, median)
# so they share the machine's background load. Usage: bench/runtime/run.sh [BUILD]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
CC=${CC:-gcc}
ROUNDS=${ROUNDS:-5}
OUT=$BUILD/bench/runtime
SRC=$ROOT/bench/runtime
mkdir -p "$OUT"
[ -f "$BUILD/libobjrt.a" ] || make -C "$ROOT" -s all >/dev/null
CFLAGS="-O3 -march=native -std=c11 -D_GNU_SOURCE -I$ROOT/include -I$SRC"
$CC $CFLAGS -c "$SRC/matmul.c" -o "$OUT/matmul.o"
$CC $CFLAGS "$SRC/bench_pool.c" "$OUT/matmul.o" "$BUILD/libobjrt.a" -ldl -lpthread -o "$OUT/bench_objrt"
$CC $CFLAGS -fopenmp "$SRC/bench_omp.c" "$OUT/matmul.o" -o "$OUT/bench_libgomp"
clang $CFLAGS -fopenmp=libomp "$SRC/bench_omp.c" "$OUT/matmul.o" -o "$OUT/bench_libomp"

threads=$(nproc)
export TVM_NUM_THREADS=$threads OMP_NUM_THREADS=$threads
: > "$OUT/raw.txt"
for r in $(seq "$ROUNDS"); do
    for b in objrt libgomp libomp; do
        "$OUT/bench_$b" | sed "s/^/$b /" >> "$OUT/raw.txt"
    done
done
# median of one metric of one harness over the rounds
med() { awk -v b="$1" -v m="$2" '$1 == b && $2 == m { print $3 }' "$OUT/raw.txt" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
for b in objrt libgomp libomp; do
    c=$(awk -v b=$b '$1 == b && $2 == "matmul_check" { print $3; exit }' "$OUT/raw.txt")
    [ "$c" = "$(awk '$1 == "objrt" && $2 == "matmul_check" { print $3; exit }' "$OUT/raw.txt")" ] ||
        { echo "bench-runtime: matmul result of $b differs from objrt's" >&2; exit 1; }
done
fj=$(med objrt forkjoin_ns); fjg=$(med libgomp forkjoin_ns); fjl=$(med libomp forkjoin_ns)
ba=$(med objrt barrier_ns); bag=$(med libgomp barrier_ns); bal=$(med libomp barrier_ns)
mm=$(med objrt matmul_gflops); mmg=$(med libgomp matmul_gflops); mml=$(med libomp matmul_gflops)
{
echo "kernel runtime: objrt vs OpenMP, $threads threads, median of $ROUNDS interleaved rounds ($(date -u +%F))"
printf '%-34s %10s %10s %10s %14s %13s\n' metric objrt libgomp libomp objrt/libgomp objrt/libomp
printf '%-34s %10s %10s %10s %14s %13s\n' "fork/join, empty launch (ns)" "$fj" "$fjg" "$fjl" "$(ratio "$fj" "$fjg")" "$(ratio "$fj" "$fjl")"
printf '%-34s %10s %10s %10s %14s %13s\n' "barrier (ns)" "$ba" "$bag" "$bal" "$(ratio "$ba" "$bag")" "$(ratio "$ba" "$bal")"
printf '%-34s %10s %10s %10s %14s %13s\n' "matmul 512 f32 (GFLOP/s, higher=better)" "$mm" "$mmg" "$mml" "$(ratio "$mm" "$mmg")" "$(ratio "$mm" "$mml")"
echo
printf '%-34s %10s %10s %14s %18s\n' "workspace alloc+free pair (ns)" objrt malloc posix_memalign "memalign/objrt"
for pat in lifo shuffled; do
    w=$(med objrt ws_${pat}_ns); m=$(med objrt malloc_${pat}_ns); p=$(med objrt memalign_${pat}_ns)
    printf '%-34s %10s %10s %14s %17sx\n' "  64 B - 4 MiB, $pat" "$w" "$m" "$p" "$(ratio "$p" "$w")"
done
echo
awk -v r="$(ratio "$fj" "$fjg")" 'BEGIN { printf "target fork/join <= 0.5x libgomp: %s (%.2fx)\n", (r <= 0.5 ? "met" : "NOT met"), r }'
awk -v r="$(ratio "$(med objrt memalign_lifo_ns)" "$(med objrt ws_lifo_ns)")" \
    'BEGIN { printf "target LIFO workspace >= 4x faster than posix_memalign: %s (%.1fx)\n", (r >= 4 ? "met" : "NOT met"), r }'
} | tee "$OUT/results.txt"

#!/usr/bin/env bash
# Kernel runtime benchmark: objrt's pool and workspaces against libgomp, LLVM's libomp,
# malloc and posix_memalign, all built here and run interleaved so they share the
# machine's background load. Usage: bench/runtime/run.sh [BUILD]
#
# Two modes, alternating inside every round:
#   idle  nothing added by us (the machine's own background load, shown as load average)
#   busy  one busy-looping process pinned with taskset to CPU 0, so one of the pool's
#         threads competes for its CPU: the case of a shared or oversubscribed machine
# Each figure is the median over ROUNDS rounds (default 5) of each harness's own median;
# the 1-minute load average is sampled before every run and its median printed beside
# the mode. Env: ROUNDS, CC.
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
HARNESSES="objrt libgomp libomp"

# The busy neighbour: a shell loop pinned to CPU 0, ended by its own pid.
spinner=
start_busy() { taskset -c 0 sh -c 'while :; do :; done' & spinner=$!; sleep 0.2; }
stop_busy() { [ -z "$spinner" ] || { kill "$spinner" 2>/dev/null; wait "$spinner" 2>/dev/null || true; spinner=; }; }
trap stop_busy EXIT
loadavg() { cut -d' ' -f1 /proc/loadavg; }

: > "$OUT/raw.txt"
for r in $(seq "$ROUNDS"); do
    for mode in idle busy; do
        [ "$mode" = busy ] && start_busy
        for b in $HARNESSES; do
            metrics="forkjoin small barrier matmul"
            [ "$b:$mode" = objrt:idle ] && metrics="$metrics ws"
            echo "$mode $b load $(loadavg)" >> "$OUT/raw.txt"
            # shellcheck disable=SC2086
            "$OUT/bench_$b" $metrics | sed "s/^/$mode $b /" >> "$OUT/raw.txt"
        done
        stop_busy
    done
done

# med MODE HARNESS METRIC: median over the rounds
med() { awk -v m="$1" -v b="$2" -v k="$3" '$1 == m && $2 == b && $3 == k { print $4 }' "$OUT/raw.txt" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
medload() { awk -v m="$1" '$1 == m && $3 == "load" { print $4 }' "$OUT/raw.txt" | sort -g |
            awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "n/a" }'; }
for mode in idle busy; do
    for b in $HARNESSES; do
        c=$(awk -v m=$mode -v b=$b '$1 == m && $2 == b && $3 == "matmul_check" { print $4; exit }' "$OUT/raw.txt")
        [ "$c" = "$(awk '$1 == "idle" && $2 == "objrt" && $3 == "matmul_check" { print $4; exit }' "$OUT/raw.txt")" ] ||
            { echo "bench-runtime: matmul result of $b ($mode) differs from objrt's" >&2; exit 1; }
    done
done

row() {   # row MODE LABEL METRIC
    local o g l
    o=$(med "$1" objrt "$3"); g=$(med "$1" libgomp "$3"); l=$(med "$1" libomp "$3")
    printf '%-5s %-36s %9s %9s %9s %13s %12s\n' "$1" "$2" "$o" "$g" "$l" "$(ratio "$o" "$g")" "$(ratio "$o" "$l")"
}
{
echo "kernel runtime: objrt vs OpenMP, $threads threads, median of $ROUNDS interleaved rounds ($(date -u '+%F %H:%M') UTC)"
echo "modes: idle = machine as it is (median 1-min load $(medload idle)); busy = plus one spinning process pinned to CPU 0 (median load $(medload busy))"
printf '%-5s %-36s %9s %9s %9s %13s %12s\n' mode metric objrt libgomp libomp objrt/libgomp objrt/libomp
for mode in idle busy; do
    row $mode "fork/join, empty tasks (ns)" forkjoin_ns
    row $mode "fork/join, ~1 us tasks (ns)" small_ns
    row $mode "barrier (ns)" barrier_ns
    row $mode "matmul 512 f32 (GFLOP/s, higher=better)" matmul_gflops
    printf '%-5s %-36s %9s%%  (empty) %s%% (~1 us): tasks > 0 run by the caller itself\n' $mode \
        "objrt tasks taken by the caller" "$(med $mode objrt forkjoin_stolen_pct)" "$(med $mode objrt small_stolen_pct)"
done
echo
printf '%-34s %10s %10s %14s %18s\n' "workspace alloc+free pair (ns)" objrt malloc posix_memalign "memalign/objrt"
for pat in lifo shuffled; do
    w=$(med idle objrt ws_${pat}_ns); m=$(med idle objrt malloc_${pat}_ns); p=$(med idle objrt memalign_${pat}_ns)
    printf '%-34s %10s %10s %14s %17sx\n' "  64 B - 4 MiB, $pat" "$w" "$m" "$p" "$(ratio "$p" "$w")"
done
echo
for mode in idle busy; do
    for m in forkjoin_ns barrier_ns; do
        awk -v r="$(ratio "$(med $mode objrt $m)" "$(med $mode libgomp $m)")" -v what="$mode ${m%_ns}" \
            'BEGIN { printf "target %s <= 0.5x libgomp: %s (%sx)\n", what, (r != "n/a" && r <= 0.5 ? "met" : "NOT met"), r }'
    done
done
for mode in idle busy; do
    slower=
    for m in forkjoin_ns small_ns barrier_ns; do
        awk -v r="$(ratio "$(med $mode objrt $m)" "$(med $mode libgomp $m)")" 'BEGIN { exit !(r == "n/a" || r > 1) }' &&
            slower="$slower ${m%_ns}"
    done
    echo "target $mode: never slower than libgomp: $([ -z "$slower" ] && echo met || echo "NOT met (slower:$slower)")"
done
awk -v r="$(ratio "$(med idle objrt memalign_lifo_ns)" "$(med idle objrt ws_lifo_ns)")" \
    'BEGIN { printf "target LIFO workspace >= 4x faster than posix_memalign: %s (%sx)\n", (r >= 4 ? "met" : "NOT met"), r }'
} | tee "$OUT/results.txt"

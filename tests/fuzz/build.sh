#!/usr/bin/env bash
# Build the libFuzzer harness without make, and a seed corpus from real objects.
#   tests/fuzz/build.sh OUTDIR   ->  OUTDIR/fuzz_load, OUTDIR/corpus/
# The library sources are compiled straight into the harness with the fuzzer's
# instrumentation (a prebuilt libobjrt.a would not be coverage-instrumented).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: build.sh OUTDIR}
mkdir -p "$OUT/corpus"
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$ROOT/include -I$ROOT/src -D_GNU_SOURCE -std=c11"
clang $FLAGS -o "$OUT/fuzz_load" "$ROOT/tests/fuzz/fuzz_load.c" \
    "$ROOT"/src/loader/*.c "$ROOT"/src/runtime/*.c -ldl -lpthread -ljansson

# Seeds: the robustness fixtures as gcc and clang objects, -fno-pic and -fPIC, and an archive.
FIX=$ROOT/tests/unit/fixtures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for src in basic tls missing dup_a weak_a reach_data reach_call ar_main ar_one ar_two; do
    gcc -O2 -c "$FIX/$src.c" -o "$OUT/corpus/gcc-$src.o"
    clang -O1 -c "$FIX/$src.c" -o "$OUT/corpus/clang-$src.o"
done
gcc -O2 -fno-pic -c "$FIX/basic.c" -o "$OUT/corpus/gcc-nopic-basic.o"
gcc -O2 -fPIC -c "$FIX/basic.c" -o "$OUT/corpus/gcc-pic-basic.o"
gcc -O0 -g -c "$FIX/basic.c" -o "$OUT/corpus/gcc-debug-basic.o"
gcc -O2 -c -DCODE_BYTES=100 -DDATA_BYTES=60 -DALIGN=64 "$FIX/align.c" -o "$OUT/corpus/gcc-align.o"
rm -f "$OUT/corpus/libar.a"
ar rcs "$OUT/corpus/libar.a" "$OUT/corpus/gcc-ar_one.o" "$OUT/corpus/gcc-ar_two.o"

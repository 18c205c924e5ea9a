#!/usr/bin/env bash
# make demo: compile the demo kernels with each compiler in a few code models, load them
# into the demo host with objrt, and check every result.
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
W=$(mktemp -d /tmp/objrt-demo.XXXXXX)
trap 'rm -rf "$W"' EXIT
gcc -O2 -fPIC -Wall -Iinclude examples/demo/host.c "$BUILD/libobjrt.a" -ldl -lpthread -lm -o "$W/host"
status=0
for cc in gcc clang; do
    command -v $cc >/dev/null || continue
    for mode in "-O2" "-O3 -fPIC" "-O2 -mcmodel=large"; do
        mkdir -p "$W/k"
        $cc $mode -c examples/demo/kernels_blas.c -o "$W/k/blas.o"
        $cc $mode -c examples/demo/kernels_misc.c -o "$W/k/misc.o"
        echo "== kernels built by $cc $mode"
        "$W/host" "$W/k/blas.o" "$W/k/misc.o" || status=1
    done
done
echo "== the same kernels as an archive, run by the CLI's layout report"
ar rcs "$W/kernels.a" "$W/k/blas.o" "$W/k/misc.o"
"$BUILD/objrt" layout "$W/k/blas.o" "$W/k/misc.o" | tail -n 12
[ $status -eq 0 ] && echo "demo: all results correct" || echo "demo: FAILED"
exit $status

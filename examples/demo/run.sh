#!/usr/bin/env bash
# make demo: compile the demo kernels with each compiler in a few code models, load them
# into the demo host with objrt, and check every result; then the same kernels packed in
# an archive, loaded with an object that references them (members pulled as ld would).
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
echo "== the same kernels as an archive: uses.o references them, objrt pulls the members"
rm -f "$W/kernels.a"
ar rcs "$W/kernels.a" "$W/k/blas.o" "$W/k/misc.o"
gcc -O2 -c examples/demo/uses.c -o "$W/uses.o"
"$W/host" "$W/uses.o" "$W/kernels.a" || status=1
echo "== its plan, as the CLI's layout report prints it"
"$BUILD/objrt" layout "$W/uses.o" "$W/kernels.a" | tail -n 12 || status=1
[ $status -eq 0 ] && echo "demo: all results correct" || echo "demo: FAILED"
exit $status

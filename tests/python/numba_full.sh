#!/usr/bin/env bash
# numba's whole CPU test suite under MCJIT and under objrt (`make check-numba-full`):
#   tests/python/numba_full.sh BUILD [RELEASE...]
# RELEASE: host (Debian 12: numba 0.56), trixie (0.61), sid (0.65, Python 3.14) on x86_64, and
# sid-arm64 (0.65 under qemu-aarch64 -L ROOT with BUILD's aarch64 twin, build-aarch64 next to
# it by default: ARM_BUILD) for the modules exercising code placement. Default: all four.
# Every module of numba.tests whose name starts with test_ (its npyufunc, doc_examples and gdb
# packages too; numba's CUDA tests live elsewhere) runs in a fresh python3 under MCJIT, then in
# another under `python3 -m objrt.numba` (tests/python/numba_run.py records every test's
# outcome); tests/python/numba_compare.py --full prints one line per module: each run's tests,
# failures, errors, skips and seconds, and whether every test had the same outcome. A module
# whose outcomes differ for a reason that is not objrt's is listed with the reason in
# tests/python/numba-full-known.txt; any other difference fails the run (exit 1).
# Env: NUMBA_FULL_MODULES (names without numba.tests., instead of all), NUMBA_FULL_TIMEOUT
# (seconds per run, default 3600), NUMBA_FULL_OUT (default BUILD/numba-full: logs, JSON and
# RELEASE.txt, the table). The roots come from scripts/numba-root.sh (cached). Releases run one
# after another; run several of this script at once for parallel releases.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}; shift || true
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
ARM_BUILD=${ARM_BUILD:-$BUILD-aarch64}
releases=${*:-host trixie sid sid-arm64}
OUT=${NUMBA_FULL_OUT:-$BUILD/numba-full}
LIMIT=${NUMBA_FULL_TIMEOUT:-3600}
KNOWN=$ROOT/tests/python/numba-full-known.txt
# arm64 under qemu is about ten times slower: the modules where code and data placement and
# reach decide (many modules per process, big functions, cross-module calls, freed units).
ARM_MODULES="test_blackscholes test_mandelbrot test_closure test_recursion test_nrt test_cfunc
  test_generators test_dyn_array npyufunc.test_ufuncbuilding npyufunc.test_gufunc"
status=0

# snapshot DIR [BUILD]: the checkout's python/, tests/python/ and libobjrt.so copied to DIR, so
# that the checkout can change while the run goes on.
snapshot() {
    rm -rf "$1" && mkdir -p "$1/tests" "$1/lib" && cp -r "$ROOT/python" "$1/" &&
        cp -r "$ROOT/tests/python" "$1/tests/" && cp -P "${2:-$BUILD}"/libobjrt.so* "$1/lib/"
}

# prun ARG...: the release's python3 with the checkout's package and tests (at $SRC as it
# sees them) and libobjrt.so; set per release below.
release_env() {
    local rel=$1
    W=/tmp/objrt-numba-full.$rel.$$
    case $rel in
    host)
        R=; WO=$OUT/$rel; W=$WO; SRC=$OUT/$rel.src; snapshot "$SRC" || return 1
        prun() { (cd "$W" && timeout -k 30 "$LIMIT" env PYTHONPATH="$SRC/python:$SRC/tests/python" \
            OBJRT_LIBRARY="$SRC/lib/libobjrt.so" /usr/bin/python3 "$@"); } ;;
    trixie|sid)
        R=$(bash "$ROOT/scripts/numba-root.sh" "$rel") || return 1
        SRC=$W/src; WO=$R$W
        snapshot "$R$SRC" || return 1
        # A mount namespace of the run's own: /proc, /dev and a tmpfs /dev/shm (numba's
        # parallel tests and multiprocessing need them), gone when the run ends.
        prun() { timeout -k 30 "$LIMIT" unshare -m sh -c 'mount -t proc proc "$0/proc" &&
            mount --rbind /dev "$0/dev" && mount -t tmpfs shm "$0/dev/shm" && exec chroot "$0" "$@"' "$R" \
            env -C "$W" PYTHONPATH="$SRC/python:$SRC/tests/python" HOME="$W" \
            OBJRT_LIBRARY="$SRC/lib/libobjrt.so" python3 "$@"; } ;;
    sid-arm64)
        R=$(bash "$ROOT/scripts/numba-root.sh" "$rel") || return 1
        [ -f "$ARM_BUILD/libobjrt.so" ] || { echo "numba_full: no $ARM_BUILD/libobjrt.so (make TARGET=aarch64 all)" >&2; return 1; }
        WO=$OUT/$rel; W=$WO; SRC=$OUT/$rel.src; snapshot "$SRC" "$ARM_BUILD" || return 1
        prun() { (cd "$W" && timeout -k 30 "$LIMIT" env PYTHONPATH="$SRC/python:$SRC/tests/python" \
            OBJRT_LIBRARY="$SRC/lib/libobjrt.so" qemu-aarch64 -L "$R" "$R/usr/bin/python3" "$@"); } ;;
    *) echo "numba_full: unknown release '$rel' (host trixie sid sid-arm64)" >&2; return 1 ;;
    esac
    mkdir -p "$WO" "$OUT/$rel"
}

modules_of() {
    if [ -n "${NUMBA_FULL_MODULES:-}" ]; then printf '%s\n' $NUMBA_FULL_MODULES; return; fi
    if [ "$1" = sid-arm64 ]; then printf '%s\n' $ARM_MODULES; return; fi
    prun -c 'import pkgutil, numba.tests as t
for m in sorted(pkgutil.walk_packages(t.__path__, "")):
    if m.name.rsplit(".", 1)[-1].startswith("test_"): print(m.name)'
}

one_release() {
    local rel=$1 m t0 t1 t2 line version table
    release_env "$rel" || { echo "numba_full $rel: no root or build" >&2; return 1; }
    table=$OUT/$rel.txt
    version=$(prun -c 'import numba, llvmlite, platform, sys; print("numba %s / llvmlite %s, Python %d.%d, %s"
        % (numba.__version__, llvmlite.__version__, *sys.version_info[:2], platform.machine()))' 2>&1)
    {
        echo "# $rel: $version; $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
        printf '%-44s %-28s %-28s %s\n' "# module" "MCJIT tests/F/E/skip s" "objrt tests/F/E/skip s" "outcome"
    } | tee "$table"
    for m in $(modules_of "$rel"); do
        t0=$(date +%s)
        prun "$SRC/tests/python/numba_run.py" "numba.tests.$m" "$W/$m.mcjit.json" >"$WO/$m.mcjit.log" 2>&1
        echo $? >"$WO/$m.mcjit.rc"
        t1=$(date +%s)
        prun -m objrt.numba --stats "$SRC/tests/python/numba_run.py" "numba.tests.$m" "$W/$m.objrt.json" \
            >"$WO/$m.objrt.log" 2>&1
        echo $? >"$WO/$m.objrt.rc"
        t2=$(date +%s)
        [ "$WO" = "$OUT/$rel" ] || cp "$WO/$m".* "$OUT/$rel/" 2>/dev/null
        line=$(/usr/bin/python3 "$ROOT/tests/python/numba_compare.py" --full "$m" "$OUT/$rel/$m" \
            $((t1 - t0)) $((t2 - t1)) "$rel" "$version" "$KNOWN")
        echo "$line" | tee -a "$table"
        case $line in *" DIFFERS"*) status=1 ;; esac
    done
    echo "# $rel done $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$table"
    [ -z "$R" ] || [ "$WO" = "$OUT/$rel" ] || rm -rf "${WO:?}"
}

for rel in $releases; do one_release "$rel" || status=1; done
exit $status

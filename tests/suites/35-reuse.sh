#!/usr/bin/env bash
# 35-reuse: an unloaded unit's reservation kept for the next load of its context (place.c,
# issue 13). tests/reuse/t_reuse.c loads shapes of tests/reuse/unit.c compiled here (same
# size with content or with padding/.bss where the other has bytes, one page wider, a
# 2 MiB .bss, data aligned to 1 MiB, 30 and 65 MiB .bss, 1.3 and 3.5 MB of .rodata: a
# last 2 MiB block mostly written, which place.c reserves whole and cuts back; on x86_64
# also compiled -fno-pic, whose absolute references put it in a window below 4 GiB) and,
# on x86_64, the -fno-pic abs32 fixture of 30-robustness (a window below 2 GiB). Configs: x86_64:, x86_64:asan,
# and aarch64: under qemu-user, where the guest's /proc/self/maps and RSS are not faithful
# (see 30-robustness): those cases are left out there.
set -u
. "$ROOT/tests/lib.sh"

TFLAGS=""
case "$TARGET:$SAN" in
    x86_64: | x86_64:asan) ;;
    aarch64:) TFLAGS="-DT_NO_MAPS" ;;
    *) exit 0 ;;
esac

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
SRC=$ROOT/tests/reuse
FX=$TMP/reuse
mkdir -p "$FX" "$B/tests/reuse"
export ASAN_OPTIONS="detect_leaks=1:exitcode=86:abort_on_error=0"
unset OBJRT_REUSE OBJRT_PACK

shape() {   # shape NAME FLAGS...: $FX/NAME.o from unit.c
    local name=$1; shift
    $GCC -O2 -fPIC -fcommon "$@" -c "$SRC/unit.c" -o "$FX/$name.o" 2>>"$FX/fixtures.err"
}
if ! { shape big -DCODE_FILL=2048 -DRO_BYTES=2048 -DDATA_BYTES=2048 -DBSS_BYTES=512 -DCOMMON_BYTES=256 &&
       shape small && shape wide -DDATA_BYTES=6000 && shape hugebss -DBSS_BYTES=2097152 &&
       shape aligned -DDATA_ALIGN=1048576 && shape bss30m -DBSS_BYTES=31457280 &&
       shape bss65m -DBSS_BYTES=68157440 &&
       shape ro1m3 -DRO_BYTES=1363148 && shape ro3m3 -DRO_BYTES=3460300 &&
       { [ "$TARGET" != x86_64 ] || shape ro1m3low -fno-pic -DRO_BYTES=1363148; } &&
       { [ "$TARGET" != x86_64 ] ||
         $GCC -O2 -fno-pic -c "$ROOT/tests/robustness/fixtures/abs32.c" -o "$FX/abs32.o" 2>>"$FX/fixtures.err"; }; }; then
    fail "reuse-fixtures: $(head -n 2 "$FX/fixtures.err" | tr '\n' ' ')"
    exit 0
fi
# shellcheck disable=SC2086
build_prog reuse-build "$B/tests/reuse/t_reuse" "$SRC/t_reuse.c" -- -O1 -I"$ROOT/tests/robustness" $TFLAGS ||
    exit 0
# shellcheck disable=SC2086
run_cases t_reuse 300 $RUN "$B/tests/reuse/t_reuse" "$FX"
if grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$TMP/t_reuse.err"; then
    fail "t_reuse-process: sanitizer report: $(grep -m 2 -E 'runtime error:|ERROR: ' "$TMP/t_reuse.err" | tr '\n' ' ')"
fi
exit 0

#!/usr/bin/env bash
# 34-pack: small units share pages (objrt_options.pack_small; issue 8). tests/pack/t_pack.c
# loads 1000 small units compiled here from tests/pack/unit.c (20 variants: table sizes,
# code lengths, alignments) into one context at plan pages of 4, 16 and 64 KiB, with a
# thread polling /proc/self/maps for w+x mappings; checks values against the formulas,
# bytes mapped per unit, neighbours' bounds, random-order unloads and that the memory goes
# back; a fork in the middle of a session. Configs: x86_64:, x86_64:asan, and aarch64:
# under qemu-user, where threads and fork hang and the guest's /proc/self/maps is not
# faithful (see 30-robustness): there the cases that read the maps, fork and the controls
# are left out (t_pack.c, T_NO_THREADS).
set -u
. "$ROOT/tests/lib.sh"

N=1000 TFLAGS=""
case "$TARGET:$SAN" in
    x86_64: | x86_64:asan) ;;
    aarch64:) TFLAGS="-DT_NO_FORK -DT_NO_THREADS" ;;
    *) exit 0 ;;
esac

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
SRC=$ROOT/tests/pack
FX=$TMP/pack
mkdir -p "$FX"
export ASAN_OPTIONS="detect_leaks=1:exitcode=86:abort_on_error=0"
unset OBJRT_PACK

if ! why=$(bash "$SRC/make-units.sh" "$FX" "$GCC" 2>&1); then
    fail "pack-fixtures: $(printf '%s' "$why" | tr '\n' ' ')"
    exit 0
fi
# shellcheck disable=SC2086
build_prog pack-build "$B/tests/pack/t_pack" "$SRC/t_pack.c" -- $TFLAGS || exit 0
for page in 4096 16384 65536; do
    # shellcheck disable=SC2086
    run_cases "t_pack-$page" 600 $RUN "$B/tests/pack/t_pack" "$FX" "$page" "$N"
done

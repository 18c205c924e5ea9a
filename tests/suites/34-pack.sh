#!/usr/bin/env bash
# 34-pack: small units share pages (objrt_options.pack_small; issue 8). tests/pack/t_pack.c
# loads 1000 small units compiled here from tests/pack/unit.c (20 variants: table sizes,
# code lengths, alignments) into one context at plan pages of 4, 16 and 64 KiB, with a
# thread polling /proc/self/maps for w+x mappings; checks values against the formulas,
# bytes mapped per unit, neighbours' bounds, random-order unloads and that the memory goes
# back. Configs: x86_64: and x86_64:asan (the W^X poller and threads do not work under
# qemu-user: see 30-robustness).
set -u
. "$ROOT/tests/lib.sh"

case "$TARGET:$SAN" in
    x86_64: | x86_64:asan) ;;
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
build_prog pack-build "$B/tests/pack/t_pack" "$SRC/t_pack.c" || exit 0
for page in 4096 16384 65536; do
    run_cases "t_pack-$page" 600 "$B/tests/pack/t_pack" "$FX" "$page" 1000
done

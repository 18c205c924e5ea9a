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

# The variants: the same formulas as t_pack.c (ntab, nstep, tabv).
ok=1
for v in $(seq 0 19); do
    ntab=$((4 + (v * 37) % 120)) nstep=$((1 + (v * 5) % 24))
    { printf '#define TAB'; for k in $(seq 0 $((ntab - 1))); do printf ' %d,' $(((k * 7 + v) % 101)); done; echo; } >"$FX/tab$v.h"
    extra=""
    [ "$v" = 7 ] && extra="-DTAB_ALIGN=256"
    [ "$v" = 13 ] && extra="-DG_ALIGN=128"
    # shellcheck disable=SC2086
    $GCC -O2 -fPIC -DV=$v -DNTAB=$ntab -DNSTEP=$nstep $extra -include "$FX/tab$v.h" \
        -c "$SRC/unit.c" -o "$FX/u$v.o" 2>"$FX/u$v.err" || ok=0
done
if [ "$ok" = 0 ]; then
    fail "pack-fixtures: $(cat "$FX"/u*.err | head -n 2 | tr '\n' ' ')"
    exit 0
fi
build_prog pack-build "$B/tests/pack/t_pack" "$SRC/t_pack.c" || exit 0
for page in 4096 16384 65536; do
    run_cases "t_pack-$page" 600 "$B/tests/pack/t_pack" "$FX" "$page" 1000
done

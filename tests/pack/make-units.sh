#!/usr/bin/env bash
# tests/pack/make-units.sh OUTDIR CC - the 20 variants of tests/pack/unit.c as OUTDIR/u0.o ..
# u19.o (used by tests/suites/34-pack.sh and bench/pack). Variant v: a table of
# 4 + (37 v mod 120) ints (k * 7 + v) mod 101, 1 + (5 v mod 24) steps of code; variant 7's
# table aligned to 256, variant 13's g to 128. t_pack.c and pack_bench.c use the same
# formulas. Prints the first compiler errors and exits 1 on failure.
set -u
out=$1 cc=$2
src=$(cd "$(dirname "$0")" && pwd)/unit.c
mkdir -p "$out"
for v in $(seq 0 19); do
    ntab=$((4 + (v * 37) % 120)) nstep=$((1 + (v * 5) % 24))
    { printf '#define TAB'; for k in $(seq 0 $((ntab - 1))); do printf ' %d,' $(((k * 7 + v) % 101)); done; echo; } >"$out/tab$v.h"
    extra=""
    [ "$v" = 7 ] && extra="-DTAB_ALIGN=256"
    [ "$v" = 13 ] && extra="-DG_ALIGN=128"
    # shellcheck disable=SC2086
    $cc -O2 -fPIC -DV=$v -DNTAB=$ntab -DNSTEP=$nstep $extra -include "$out/tab$v.h" \
        -c "$src" -o "$out/u$v.o" 2>"$out/u$v.err" || { head -n 2 "$out/u$v.err"; exit 1; }
done

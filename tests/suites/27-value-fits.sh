#!/usr/bin/env bash
# 27-value-fits: the one overflow rule (objrt_value_fits, src/arch/arch.h), precomputed per
# relocation type, agrees with its definition (objrt_howto_range, 128-bit) on every type of
# both backends' tables, at every bound and on random values; a type whose span is one too
# large is the control. x86_64 configurations (both tables are compiled into every build).
set -u
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] || exit 0
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
INTERNALS=1 build_prog t_fits "$B/tests/value-fits/t_fits" "$ROOT/tests/value-fits/t_fits.c" || { expect t_fits; exit 0; }
run_cases t_fits 60 "$B/tests/value-fits/t_fits"

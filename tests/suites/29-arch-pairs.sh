#!/usr/bin/env bash
# 29-arch-pairs: paired relocations (F_PAIRED, src/arch/arch.h) through a synthetic backend
# registered as a third architecture would be (tests/arch/pair_arch.c: x86_64 plus a HI/LO
# and an ADD/SUB pair of private types): the loaded functions return the address of the
# data the reference R_X86_64_PC32 gives; a missing or wrong partner is refused by name; a
# difference out of range is an overflow error; planted bugs in pair_value are caught.
# x86_64 configurations (the backend delegates to the x86_64 one).
set -u
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] || exit 0
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
INTERNALS=1 build_prog t_pairs "$B/tests/arch/t_pairs" "$ROOT/tests/arch/t_pairs.c" "$ROOT/tests/arch/pair_arch.c" ||
    { expect t_pairs; exit 0; }
run_cases t_pairs 60 "$B/tests/arch/t_pairs"

#!/usr/bin/env bash
# The third probe's defects (issue 40) that concern names and lifecycles, each case failing
# on the code before its fix, each with a control: names of any length compared whole.
# x86_64 (plain, asan, tsan).
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] || exit 0
P=$ROOT/tests/probe3
B=$ROOT/$BUILD
cd "$TMP"

# ---- item 1: names of any length compared whole ---------------------------------------------
if $GCC -O2 -fPIC -I"$ROOT/include" -c "$P/ffi_unit.c" -o ffi_unit.o 2>cc.err &&
   $GCC -O2 -fPIC -I"$ROOT/include" -c "$P/syslib_unit.c" -o syslib_unit.o 2>>cc.err &&
   build_prog long-names "$B/tests/probe3/t_names" "$P/t_names.c" -- -I"$P"; then
    run_cases t_names 60 "$B/tests/probe3/t_names" ffi_unit.o syslib_unit.o
else
    fail "long-names: fixtures: $(head -n 2 cc.err | tr '\n' ' ')"
fi
exit 0

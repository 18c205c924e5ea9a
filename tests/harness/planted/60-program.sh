# Planted: a C test program (planted_cases.c) that crashes, hangs or prints nothing,
# run through run_cases; PLANT_MODE says which.
. "$ROOT/tests/lib.sh"
build_prog planted-build "$TMP/planted_cases" "$ROOT/tests/harness/planted_cases.c" -- -I"$ROOT/tests/robustness" || exit 0
run_cases planted "${PLANT_SECS:-30}" "$TMP/planted_cases" "$PLANT_MODE"
exit 0

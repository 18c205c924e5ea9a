#!/usr/bin/env bash
# numba on AArch64 (issue 23): Debian 12's arm64 python3-numba 0.56 / llvmlite 0.39 (LLVM's
# MCJIT memory manager, before llvmlite's fix) in the root scripts/numba-root.sh
# bookworm-arm64 builds (cached in /var/cache/objrt; its own ld.so.cache, one glibc), run
# with qemu-aarch64 -L ROOT, with objrt's aarch64 build. aarch64: configuration only.
#   make check:        numba's test_blackscholes then test_mandelbrot in one process: MCJIT
#                      must crash (the seed's bug: otherwise the case proves nothing) and
#                      objrt must pass every test. tests/python/numba_spread.py: small
#                      functions compiled while address space is reserved, so MCJIT's code
#                      drifts from its data: MCJIT must be right within 4 GiB and fail at
#                      the first function beyond; objrt right throughout (the judge's
#                      refusals proven on planted logs).
#   make check-numba:  (NUMBA_MODULES=all) also test_recursion and test_closure, each under
#                      MCJIT and objrt with the same outcome, or MCJIT crashed and objrt
#                      passed every test (test_closure crashes under MCJIT here; it also
#                      has packed units reusing chunks: tests/pack/t_reload.c's case).
# suite-timeout: 7200
. tests/lib.sh
[ "$TARGET" = aarch64 ] && [ -z "$SAN" ] || exit 0
LIB=$ROOT/$BUILD/libobjrt.so
expect numba-arm64-root numba-arm64-blackscholes+mandelbrot numba-arm64-spread \
    numba-arm64-spread-judge
slow=""
case ${NUMBA_MODULES:-quick} in
    quick) ;;
    all) slow="test_recursion test_closure" ;;
    *) slow=$NUMBA_MODULES ;;                   # e.g. NUMBA_MODULES=test_closure
esac
for m in $slow; do expect "numba-arm64-$m"; done

if ! R=$(bash "$ROOT/scripts/numba-root.sh" bookworm-arm64 2>"$TMP/root.err"); then
    fail "numba-arm64-root: scripts/numba-root.sh bookworm-arm64 failed: $(tail -n 3 "$TMP/root.err" | tr '\n' ' ')"
    exit 0
fi
# py ARG...: the root's python3 under qemu, with the checkout's objrt package and tests.
py() {
    (cd "$TMP" && PYTHONPATH="$ROOT/python:$ROOT/tests/python" OBJRT_LIBRARY="$LIB" \
        timeout 3000 qemu-aarch64 -L "$R" "$R/usr/bin/python3" "$@")
}
v=$(py -c 'import numba, llvmlite, platform; print(platform.machine(), numba.__version__, llvmlite.__version__)' 2>&1)
case $v in "aarch64 0.56."*" 0.39."*) pass "numba-arm64-root (machine numba llvmlite: $v)" ;;
    *) fail "numba-arm64-root: expected aarch64, numba 0.56, llvmlite 0.39 in $R, got '$(oneline "$v")'"; exit 0 ;; esac

# pair NAME MODULES: MODULES (comma-separated) in one process under MCJIT, then under objrt.
pair() {
    py "$ROOT/tests/python/numba_run.py" "$2" "$TMP/$1.mcjit.json" >"$TMP/$1.mcjit.log" 2>&1
    echo $? >"$TMP/$1.mcjit.rc"
    py -m objrt.numba --stats "$ROOT/tests/python/numba_run.py" "$2" "$TMP/$1.objrt.json" >"$TMP/$1.objrt.log" 2>&1
    echo $? >"$TMP/$1.objrt.rc"
}

# The seed's bug through numba's own tests: MCJIT must die, objrt must pass them all.
pair bm numba.tests.test_blackscholes,numba.tests.test_mandelbrot
mrc=$(cat "$TMP/bm.mcjit.rc") orc=$(cat "$TMP/bm.objrt.rc")
why=$(/usr/bin/python3 - "$TMP/bm.objrt.json" "$TMP/bm.objrt.log" "$mrc" "$TMP/bm.mcjit.json" <<'PYEOF'
import json, os, re, sys
ob_path, log, mrc, mc_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
why = []
if mrc < 128 or os.path.exists(mc_path):
    why.append("MCJIT did not crash (exit %d): the case shows nothing" % mrc)
try:
    ob = json.load(open(ob_path))
except (OSError, ValueError):
    ob = None
if ob is None:
    why.append("the objrt run wrote no results")
else:
    if ob.pop("_mcjit_engines") != 0:
        why.append("the objrt run created an MCJIT engine")
    bad = sorted(t for t, v in ob.items() if v != "ok")
    if len(ob) < 3 or bad:
        why.append("objrt: %d tests, not ok: %s" % (len(ob), bad[:3]))
m = re.search(r"^objrt\.numba: units=(\d+) .*$", open(log).read(), re.M)
if not m or int(m.group(1)) == 0:
    why.append("no --stats line with units > 0")
print("; ".join(why) if why else "ok %d tests; %s" % (len(ob), m.group(0)))
PYEOF
)
case $why in
    ok*) pass "numba-arm64-blackscholes+mandelbrot (MCJIT: $(status_text "$mrc"); objrt: ${why#ok })" ;;
    *) fail "numba-arm64-blackscholes+mandelbrot: $why (objrt exit $orc: $(tail -n 2 "$TMP/bm.objrt.log" | tr '\n' ' '))" ;;
esac

# The seed's bug in a program of one's own: functions drift from their data past 4 GiB.
SPREAD="$ROOT/tests/python/numba_spread.py"
judge() { /usr/bin/python3 "$SPREAD" --check "$@"; }
py "$SPREAD" 30 192 >"$TMP/spread.mcjit.log" 2>&1; mrc=$?
py -m objrt.numba --stats "$SPREAD" 30 192 >"$TMP/spread.objrt.log" 2>&1; orc=$?
mj=$(judge mcjit "$TMP/spread.mcjit.log" "$mrc") oj=$(judge objrt "$TMP/spread.objrt.log" "$orc")
stats=$(grep -m1 '^objrt.numba: units=[1-9]' "$TMP/spread.objrt.log")
case $mj/$oj in
    ok*/ok*) [ -n "$stats" ] && pass "numba-arm64-spread (MCJIT: ${mj#ok }; objrt: ${oj#ok }; $stats)" \
        || fail "numba-arm64-spread: no --stats line with units > 0 in the objrt run" ;;
    *) fail "numba-arm64-spread: MCJIT: $mj; objrt: $oj ($(tail -n 2 "$TMP/spread.objrt.log" | tr '\n' ' '))" ;;
esac
# The judge refuses what would prove nothing: planted logs, each must be refused.
plant() { printf '%s\n' "$@" >"$TMP/planted.log"; }
refused=0
plant "fn 1 code=0x1 env=0x2 distance=1.00 GiB" "ok 1" "fn 2 code=0x1 env=0x2 distance=2.00 GiB"
case $(judge mcjit "$TMP/planted.log" 139) in ok*) ;; *) refused=$((refused + 1)) ;; esac  # crash within reach
plant "fn 1 code=0x1 env=0x2 distance=1.00 GiB" "ok 1" "done 1 correct=1 span=5.00 GiB"
case $(judge mcjit "$TMP/planted.log" 0) in ok*) ;; *) refused=$((refused + 1)) ;; esac    # never spread
plant "fn 1 code=0x1 env=0x2 distance=4.50 GiB" "ok 1" "done 1 correct=1 span=5.00 GiB"
case $(judge mcjit "$TMP/planted.log" 0) in ok*) ;; *) refused=$((refused + 1)) ;; esac    # right beyond reach
plant "fn 1 code=0x1 env=0x2 distance=0.00 GiB" "WRONG 1 got 1 expected 2" "done 1 correct=0 span=5.00 GiB"
case $(judge objrt "$TMP/planted.log" 0) in ok*) ;; *) refused=$((refused + 1)) ;; esac    # objrt wrong
plant "fn 1 code=0x1 env=0x2 distance=0.00 GiB" "ok 1" "done 1 correct=1 span=0.50 GiB"
case $(judge objrt "$TMP/planted.log" 0) in ok*) ;; *) refused=$((refused + 1)) ;; esac    # no pressure
plant "fn 1 code=0x1 env=0x2 distance=1.00 GiB" "ok 1" "fn 2 code=0x1 env=0x2 distance=4.10 GiB"
case $(judge mcjit "$TMP/planted.log" 139) in ok*) refused=$((refused + 1)) ;; esac          # the good shape
[ "$refused" = 6 ] && pass "numba-arm64-spread-judge (5 planted logs refused, the crash beyond reach accepted)" \
    || fail "numba-arm64-spread-judge: $refused of 6 planted verdicts as expected"

# Slow modules: the same outcome under both JITs (numba_compare.py, as 70-python), or a
# crash of MCJIT where objrt passes them all (checked as above).
for m in $slow; do
    pair "$m" "numba.tests.$m"
    mrc=$(cat "$TMP/$m.mcjit.rc")
    if [ ! -s "$TMP/$m.mcjit.json" ] && [ "$mrc" -gt 128 ] && [ -s "$TMP/$m.objrt.json" ]; then
        why=$(/usr/bin/python3 - "$TMP/$m.objrt.json" <<'PYEOF'
import json, sys
ob = json.load(open(sys.argv[1]))
n = ob.pop("_mcjit_engines")
bad = sorted(t for t, v in ob.items() if v not in ("ok", "skip", "xfail"))
print("objrt created %d MCJIT engines; not ok: %s" % (n, bad[:3]) if n or bad or not ob else "ok %d tests" % len(ob))
PYEOF
)
        case $why in
            ok*) pass "numba-arm64-$m (MCJIT: $(status_text "$mrc"); objrt: ${why#ok } pass; $(grep -m1 '^objrt.numba:' "$TMP/$m.objrt.log"))" ;;
            *) fail "numba-arm64-$m: MCJIT $(status_text "$mrc"), and $why" ;;
        esac
        continue
    fi
    if [ ! -s "$TMP/$m.mcjit.json" ] || [ ! -s "$TMP/$m.objrt.json" ]; then
        fail "numba-arm64-$m: a run did not finish (MCJIT exit $(cat "$TMP/$m.mcjit.rc"), objrt exit $(cat "$TMP/$m.objrt.rc")): $(tail -n 2 "$TMP/$m.objrt.log" | tr '\n' ' ')"
        continue
    fi
    /usr/bin/python3 "$ROOT/tests/python/numba_compare.py" "numba-arm64-$m" "$TMP/$m.mcjit.json" "$TMP/$m.objrt.json" "$TMP/$m.objrt.log"
done

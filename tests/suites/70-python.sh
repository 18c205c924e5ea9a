# Python: the objrt package (ctypes over libobjrt.so), objrt.llvm's engine, numba on objrt.
# x86_64 without sanitizers only (the ASan/TSan runtimes would have to be preloaded into
# python3). numba's own test modules run under MCJIT and under `python3 -m objrt.numba`:
# every test must have the same outcome. Twice: with the host's numba (Debian 12, 0.56) and
# with Debian 13's numba 0.61 in the root scripts/numba-root.sh builds (chroot; cached in
# /var/cache/objrt, built once in about 1.5 minutes). The quick modules run here;
# NUMBA_MODULES=all (make check-numba) runs every module of tests/python/numba-modules.txt
# (NUMBA_MODULES="test_a test_b" runs those, for both numba releases).
# suite-timeout: 14400
. tests/lib.sh
[ "$TARGET" = x86_64 ] && [ -z "$SAN" ] || exit 0
PY=/usr/bin/python3
LIB=$ROOT/$BUILD/libobjrt.so
export PYTHONPATH=$ROOT/python:$ROOT/tests/python
unset OBJRT_LIBRARY

# The case files declare their cases in list mode (T_LIST=1) and report them; run_cases
# (tests/lib.sh) fails every declared case a crashed or hung process did not report.
py_cases() { run_cases "$1" 900 env -C "$TMP" "$PY" "$ROOT/tests/python/$1.py" "$TMP"; }

list=$ROOT/tests/python/numba-modules.txt
case ${NUMBA_MODULES:-quick} in
    all) mods=$(grep -v '^#' "$list" | awk '{print $1}'); mods61=$mods ;;
    quick) mods=$(grep -v '^#' "$list" | awk '$2 == "quick" {print $1}')
           mods61=$(grep -v '^#' "$list" | awk '$3 == "quick" {print $1}') ;;
    *) mods=$NUMBA_MODULES; mods61=$mods ;;     # e.g. NUMBA_MODULES="test_nrt test_lists"
esac
expect py-import-checkout py-import-override-missing py-import-override pip-install make-install-python \
    py-pth-objrt-numba-env
expect_harness py-pth-objrt-numba-env-control
for m in $mods; do expect "numba-$m"; done
for m in $mods61; do expect "numba-0.61-$m"; done
expect_harness numba-compare-flipped-control numba-compare-swapped-control

# ---- finding the library ------------------------------------------------------------------
got=$(cd "$TMP" && "$PY" -c 'import objrt; print(objrt.library_path)' 2>&1)
if [ "$(realpath -m "$got")" = "$(realpath "$LIB")" ]; then pass "py-import-checkout (finds $BUILD/libobjrt.so)"
else fail "py-import-checkout: found '$got', expected $LIB"; fi
expect_fail py-import-override-missing \
    "ImportError.*$TMP/none.so" env OBJRT_LIBRARY="$TMP/none.so" "$PY" -c 'import objrt'
check py-import-override env OBJRT_LIBRARY="$LIB" "$PY" -c \
    "import objrt, sys; sys.exit(objrt.library_path != '$LIB')"

# ---- the API and the engine -----------------------------------------------------------------
py_cases api_cases
py_cases engine_cases
py_cases numba_cases

# ---- installing: pip offline, make install --------------------------------------------------
if (cd "$ROOT" && "$PY" -m pip install -q --no-index --no-build-isolation --target "$TMP/site" ./python) >"$TMP/pip.log" 2>&1 \
   && (cd "$TMP" && PYTHONPATH=$TMP/site OBJRT_LIBRARY=$LIB "$PY" -c \
       "import objrt, objrt.llvm, objrt.numba; assert objrt.__file__.startswith('$TMP/site')"); then
    pass "pip-install (--no-index --no-build-isolation ./python; the installed package imports)"
else fail "pip-install: $(tail -n 2 "$TMP/pip.log" | tr '\n' ' ')"; fi
# The .pth hook the package installs: OBJRT_NUMBA=1 enables objrt.numba in a process that
# never imports objrt (site.addsitedir runs .pth lines as site.py does for site-packages).
pth_probe() {
    (cd "$TMP" && env "$@" OBJRT_LIBRARY="$LIB" PYTHONPATH= "$PY" -c "import site; site.addsitedir('$TMP/site')
import numba, sys
numba.njit(lambda x: x + 1)(1)
m = sys.modules.get('objrt.numba'); l = sys.modules.get('objrt.llvm')
print(bool(m and m.enabled()), bool(l and l.totals.units > 0))" 2>&1)
}
got=$(pth_probe OBJRT_NUMBA=1)
if [ -f "$TMP/site/objrt-numba.pth" ] && [ "$got" = "True True" ]; then pass "py-pth-objrt-numba-env (OBJRT_NUMBA=1: units linked by objrt)"
else fail "py-pth-objrt-numba-env: got '$got'"; fi
got=$(pth_probe OBJRT_NUMBA=0)
if [ "$got" = "False False" ]; then hpass "py-pth-objrt-numba-env-control"
else hfail "py-pth-objrt-numba-env-control: OBJRT_NUMBA=0 gave '$got'"; fi
rm -rf "$ROOT/python/build" "$ROOT"/python/*.egg-info
make -C "$ROOT" --no-print-directory -s install-python PREFIX=/opt/objrt DESTDIR="$TMP/inst" >"$TMP/inst.log" 2>&1
site=$(ls -d "$TMP"/inst/opt/objrt/lib/python3.*/dist-packages 2>/dev/null)
if [ -n "$site" ] && grep -q 'LIBRARY = "/opt/objrt/lib/libobjrt.so"' "$site/objrt/_installed.py" \
   && (cd "$TMP" && PYTHONPATH=$site "$PY" -c 'import objrt' 2>&1 | grep -q '/opt/objrt/lib/libobjrt.so: no such file'); then
    pass "make-install-python (\$PREFIX/lib/python3.X/dist-packages, looking for \$PREFIX/lib/libobjrt.so)"
else fail "make-install-python: $(tail -n 2 "$TMP/inst.log" | tr '\n' ' ')"; fi

# ---- numba's own tests: objrt vs MCJIT --------------------------------------------------------
# numba_modules TAG SRC W WO MODULE...: each module under MCJIT and under objrt, outcomes
# compared. nrun runs python3 (its arguments) in W, where SRC is the checkout's python/ and
# tests/python/ as nrun sees them; WO is W as seen from here.
numba_modules() {
    local tag=$1 src=$2 w=$3 wo=$4 m mod rc; shift 4
    for m in "$@"; do
        mod=numba.tests.$m
        nrun "$src/tests/python/numba_run.py" "$mod" "$w/$m.mcjit.json" >"$wo/$m.mcjit.log" 2>&1
        nrun -m objrt.numba --stats "$src/tests/python/numba_run.py" "$mod" "$w/$m.objrt.json" >"$wo/$m.objrt.log" 2>&1
        rc=$?
        if [ ! -s "$wo/$m.mcjit.json" ] || [ ! -s "$wo/$m.objrt.json" ]; then
            fail "$tag$m: a run did not finish (objrt exit $rc): $(tail -n 2 "$wo/$m.objrt.log" | tr '\n' ' ')"
            continue
        fi
        "$PY" "$ROOT/tests/python/numba_compare.py" "$tag$m" "$wo/$m.mcjit.json" "$wo/$m.objrt.json" "$wo/$m.objrt.log"
    done
}
nrun() { (cd "$TMP" && timeout 1800 "$PY" "$@"); }
# shellcheck disable=SC2086
numba_modules numba- "$ROOT" "$TMP" "$TMP" $mods
# Negative control of the comparison: one outcome flipped, and the runs swapped, must fail.
m=$(printf '%s\n' $mods | head -n 1)
if [ -s "$TMP/$m.mcjit.json" ]; then
    "$PY" - "$TMP/$m.objrt.json" "$TMP/flipped.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
k = sorted(t for t in d if not t.startswith("_"))[0]
d[k] = "fail" if d[k] == "ok" else "ok"
json.dump(d, open(sys.argv[2], "w"))
PYEOF
    out=$("$PY" "$ROOT/tests/python/numba_compare.py" ctl "$TMP/$m.mcjit.json" "$TMP/flipped.json" "$TMP/$m.objrt.log")
    case $out in "FAIL ctl: 1 outcomes differ"*) hpass "numba-compare-flipped-control";;
        *) hfail "numba-compare-flipped-control: got '$out'";; esac
    out=$("$PY" "$ROOT/tests/python/numba_compare.py" ctl "$TMP/$m.objrt.json" "$TMP/$m.mcjit.json" "$TMP/$m.objrt.log")
    case $out in "FAIL ctl: the MCJIT run created no MCJIT engine; the objrt run created an MCJIT engine"*)
        hpass "numba-compare-swapped-control";;
        *) hfail "numba-compare-swapped-control: got '$out'";; esac
fi

# ---- numba 0.61 (Debian 13) in its own root: the same comparison, objrt.numba's own cases ----
# libobjrt.so built here runs there (Debian 13's glibc is newer). The checkout's python/,
# tests/python/ and the library are copied into the root under $TMP (no bind mounts: nothing
# to leave behind when the suite is killed); the root's python3 runs them through chroot.
expect py-0.61-root
if ! R=$(bash "$ROOT/scripts/numba-root.sh" trixie 2>"$TMP/root.err"); then
    fail "py-0.61-root: scripts/numba-root.sh trixie failed: $(tail -n 3 "$TMP/root.err" | tr '\n' ' ')"
    exit 0
fi
W=$TMP
mkdir -p "$R$W/src/tests" "$R$W/src/lib"
cp -r "$ROOT/python" "$R$W/src/" && cp -r "$ROOT/tests/python" "$R$W/src/tests/" &&
    cp -P "$ROOT/$BUILD"/libobjrt.so* "$R$W/src/lib/"
v=$(chroot "$R" python3 -c 'import numba, llvmlite; print(numba.__version__, llvmlite.__version__)' 2>&1)
case $v in 0.61.*" "0.44.*) pass "py-0.61-root (numba llvmlite: $v)" ;;
    *) fail "py-0.61-root: expected numba 0.61 / llvmlite 0.44 in $R, got '$v'" ;; esac
nrun() {
    timeout 1800 chroot "$R" env -C "$W" PYTHONPATH="$W/src/python:$W/src/tests/python" \
        OBJRT_LIBRARY="$W/src/lib/libobjrt.so" python3 "$@"
}
run_cases numba61_cases 900 chroot "$R" env -C "$W" PYTHONPATH="$W/src/python:$W/src/tests/python" \
    OBJRT_LIBRARY="$W/src/lib/libobjrt.so" T_CASE_PREFIX=0.61- python3 "$W/src/tests/python/numba_cases.py" "$W"
# shellcheck disable=SC2086
numba_modules numba-0.61- "$W/src" "$W" "$R$W" $mods61
rm -rf "${R:?}$W"

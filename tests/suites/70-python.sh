# Python: the objrt package (ctypes over libobjrt.so), objrt.llvm's engine, numba on objrt.
# x86_64 without sanitizers only (the ASan/TSan runtimes would have to be preloaded into
# python3). numba's own tests run under MCJIT and under `python3 -m objrt.numba`: every test
# must have the same outcome. Three numba releases: the host's (Debian 12, 0.56), Debian 13's
# 0.61 and sid's 0.65 in the roots scripts/numba-root.sh builds (chroot; cached in
# /var/cache/objrt). tests/python/numba-modules.txt says which tests run for which release:
# the "check" ones here, all in one process per JIT and release; NUMBA_MODULES=all (make
# check-numba) runs every name of the list in a process of its own (NUMBA_MODULES="test_a
# test_b.TestC" runs those, for every release).
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

# names COLUMN: the list's names for a release's column (2: 0.56, 3: 0.61, 4: 0.65).
list=$ROOT/tests/python/numba-modules.txt
names() {
    case ${NUMBA_MODULES:-check} in
        all) grep -v '^#' "$list" | awk -v c="$1" '$c != "-" {print $1}' ;;
        check) grep -v '^#' "$list" | awk -v c="$1" '$c == "check" {print $1}' ;;
        *) printf '%s\n' $NUMBA_MODULES ;;
    esac
}
mods=$(names 2) mods61=$(names 3) mods65=$(names 4)
expect py-import-checkout py-import-override-missing py-import-override pip-install make-install-python \
    py-pth-objrt-numba-env
expect_harness py-pth-objrt-numba-env-control
for m in $mods; do expect "numba-$m"; done
for m in $mods61; do expect "numba-0.61-$m"; done
for m in $mods65; do expect "numba-0.65-$m"; done
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
# numba_modules TAG SRC W WO NAME...: the names under MCJIT and under objrt, outcomes compared
# name by name; in one process per JIT (make check) or one per name (NUMBA_MODULES set).
# nrun runs python3 (its arguments) in W, where SRC is the checkout's python/ and
# tests/python/ as nrun sees them; WO is W as seen from here.
numba_modules() {
    local tag=$1 src=$2 w=$3 wo=$4 m g
    shift 4
    if [ -z "${NUMBA_MODULES:-}" ]; then
        numba_pair "$tag" "$src" "$w" "$wo" group "$(printf 'numba.tests.%s\n' "$@" | paste -sd,)" "$@"
    else
        for m in "$@"; do numba_pair "$tag" "$src" "$w" "$wo" "$m" "numba.tests.$m" "$m"; done
    fi
}
numba_pair() {
    local tag=$1 src=$2 w=$3 wo=$4 g=$5 what=$6 m rc t0 t1
    shift 6
    t0=$(date +%s)
    nrun "$src/tests/python/numba_run.py" "$what" "$w/$g.mcjit.json" >"$wo/$g.mcjit.log" 2>&1
    t1=$(date +%s)
    nrun -m objrt.numba --stats "$src/tests/python/numba_run.py" "$what" "$w/$g.objrt.json" >"$wo/$g.objrt.log" 2>&1
    rc=$?
    echo "numba ${tag%-} $g: MCJIT $((t1 - t0)) s, objrt $(($(date +%s) - t1)) s"
    for m in "$@"; do
        if [ ! -s "$wo/$g.mcjit.json" ] || [ ! -s "$wo/$g.objrt.json" ]; then
            fail "$tag$m: a run did not finish (objrt exit $rc): $(tail -n 2 "$wo/$g.objrt.log" | tr '\n' ' ')"
            continue
        fi
        "$PY" "$ROOT/tests/python/numba_compare.py" "$tag$m" "$wo/$g.mcjit.json" "$wo/$g.objrt.json" \
            "$wo/$g.objrt.log" "numba.tests.$m."
    done
}
nrun() { (cd "$TMP" && timeout 1800 "$PY" "$@"); }
# shellcheck disable=SC2086
numba_modules numba- "$ROOT" "$TMP" "$TMP" $mods
# Negative control of the comparison: one outcome flipped, and the runs swapped, must fail.
m=group; [ -n "${NUMBA_MODULES:-}" ] && m=$(printf '%s\n' $mods | head -n 1)
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

# ---- numba 0.61 (Debian 13) and 0.65 (sid) in their roots: the same comparison, objrt.numba's
# own cases. libobjrt.so built here runs there (their glibc is newer). The checkout's python/,
# tests/python/ and the library are copied into the root under $TMP; the root's python3 runs
# them through chroot in a mount namespace of its own with /proc, /dev and a tmpfs /dev/shm
# (numba's caching and parallel tests need them; gone when the run ends).
in_root() {     # in_root ROOT-NAME RELEASE LLVMLITE NAME...
    local name=$1 rel=$2 llrel=$3 v
    shift 3
    expect "py-$rel-root"
    if ! R=$(bash "$ROOT/scripts/numba-root.sh" "$name" 2>"$TMP/root.err"); then
        fail "py-$rel-root: scripts/numba-root.sh $name failed: $(tail -n 3 "$TMP/root.err" | tr '\n' ' ')"
        return
    fi
    W=$TMP/$name
    mkdir -p "$R$W/src/tests" "$R$W/src/lib"
    cp -r "$ROOT/python" "$R$W/src/" && cp -r "$ROOT/tests/python" "$R$W/src/tests/" &&
        cp -P "$ROOT/$BUILD"/libobjrt.so* "$R$W/src/lib/"
    v=$(chroot "$R" python3 -c 'import numba, llvmlite; print(numba.__version__, llvmlite.__version__)' 2>&1)
    case $v in "$rel".*" $llrel".*) pass "py-$rel-root (numba llvmlite: $v)" ;;
        *) fail "py-$rel-root: expected numba $rel / llvmlite $llrel in $R, got '$v'" ;; esac
    # shellcheck disable=SC2016
    ROOTRUN=(unshare -m sh -c 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" &&
        mount -t tmpfs shm "$0/dev/shm" && exec chroot "$0" "$@"' "$R"
        env -C "$W" HOME="$W" PYTHONPATH="$W/src/python:$W/src/tests/python"
        OBJRT_LIBRARY="$W/src/lib/libobjrt.so")
    run_cases "numba${rel#0.}_cases" 900 "${ROOTRUN[@]}" T_CASE_PREFIX="$rel-" python3 \
        "$W/src/tests/python/numba_cases.py" "$W"
    # shellcheck disable=SC2068
    numba_modules "numba-$rel-" "$W/src" "$W" "$R$W" $@
    rm -rf "${R:?}$W"
}
nrun() { timeout 1800 "${ROOTRUN[@]}" python3 "$@"; }
# shellcheck disable=SC2086
in_root trixie 0.61 0.44 $mods61
# shellcheck disable=SC2086
in_root sid 0.65 0.47 $mods65

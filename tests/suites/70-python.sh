# Python: the objrt package (ctypes over libobjrt.so), objrt.llvm's engine, numba on objrt.
# x86_64 without sanitizers only (Python for arm64 is not installed; the ASan/TSan runtimes
# would have to be preloaded into python3). numba's own test modules run under MCJIT and
# under `python3 -m objrt.numba`: every test must have the same outcome. The quick modules
# run here; NUMBA_MODULES=all (make check-numba) runs every module of
# tests/python/numba-modules.txt.
. tests/lib.sh
[ "$TARGET" = x86_64 ] && [ -z "$SAN" ] || exit 0
PY=/usr/bin/python3
LIB=$ROOT/$BUILD/libobjrt.so
export PYTHONPATH=$ROOT/python:$ROOT/tests/python
unset OBJRT_LIBRARY

# A case file prints its own PASS/FAIL lines; a crash or a missing line must show as FAIL.
run_cases() {
    local file=$1 want=$2 out rc
    out=$(cd "$TMP" && timeout 600 "$PY" "$ROOT/tests/python/$file" "$TMP" 2>"$TMP/$file.err"); rc=$?
    printf '%s\n' "$out" | grep -E '^(PASS|FAIL) '
    local n; n=$(printf '%s\n' "$out" | grep -cE '^(PASS|FAIL) ')
    [ "$rc" -eq 0 ] || fail "$file: exited $rc after $n cases: $(tail -n 2 "$TMP/$file.err" | tr '\n' ' ')"
    [ "$n" -eq "$want" ] || fail "$file: $n cases reported, expected $want"
}

# ---- finding the library ------------------------------------------------------------------
got=$(cd "$TMP" && "$PY" -c 'import objrt; print(objrt.library_path)' 2>&1)
if [ "$(realpath -m "$got")" = "$(realpath "$LIB")" ]; then pass "py-import finds $BUILD/libobjrt.so from the checkout"
else fail "py-import: found '$got', expected $LIB"; fi
expect_fail "py-import OBJRT_LIBRARY overrides (a missing one is an error naming it)" \
    "ImportError.*$TMP/none.so" env OBJRT_LIBRARY="$TMP/none.so" "$PY" -c 'import objrt'
check "py-import OBJRT_LIBRARY=<path> is used" env OBJRT_LIBRARY="$LIB" "$PY" -c \
    "import objrt, sys; sys.exit(objrt.library_path != '$LIB')"

# ---- the API and the engine -----------------------------------------------------------------
run_cases api_cases.py 19
run_cases engine_cases.py 12

# ---- installing: pip offline, make install --------------------------------------------------
if (cd "$ROOT" && "$PY" -m pip install -q --no-index --no-build-isolation --target "$TMP/site" ./python) >"$TMP/pip.log" 2>&1 \
   && (cd "$TMP" && PYTHONPATH=$TMP/site OBJRT_LIBRARY=$LIB "$PY" -c \
       "import objrt, objrt.llvm, objrt.numba; assert objrt.__file__.startswith('$TMP/site')"); then
    pass "pip install --no-index ./python: the installed package imports"
else fail "pip install: $(tail -n 2 "$TMP/pip.log" | tr '\n' ' ')"; fi
rm -rf "$ROOT/python/build" "$ROOT"/python/*.egg-info
make -C "$ROOT" --no-print-directory -s install-python PREFIX=/opt/objrt DESTDIR="$TMP/inst" >"$TMP/inst.log" 2>&1
site=$(ls -d "$TMP"/inst/opt/objrt/lib/python3.*/dist-packages 2>/dev/null)
if [ -n "$site" ] && grep -q 'LIBRARY = "/opt/objrt/lib/libobjrt.so"' "$site/objrt/_installed.py" \
   && (cd "$TMP" && PYTHONPATH=$site "$PY" -c 'import objrt' 2>&1 | grep -q '/opt/objrt/lib/libobjrt.so: no such file'); then
    pass "make install-python: package in \$PREFIX/lib/python3.X/dist-packages, looks for \$PREFIX/lib/libobjrt.so"
else fail "make install-python: $(tail -n 2 "$TMP/inst.log" | tr '\n' ' ')"; fi

# ---- numba's own tests: objrt vs MCJIT --------------------------------------------------------
if [ "${NUMBA_MODULES:-quick}" = all ]; then mods=$(grep -v '^#' "$ROOT/tests/python/numba-modules.txt" | awk '{print $1}')
else mods=$(grep -v '^#' "$ROOT/tests/python/numba-modules.txt" | awk '$2 == "quick" {print $1}'); fi
for m in $mods; do
    mod=numba.tests.$m
    (cd "$TMP" && timeout 1800 "$PY" "$ROOT/tests/python/numba_run.py" "$mod" "$TMP/$m.mcjit.json") >"$TMP/$m.mcjit.log" 2>&1
    (cd "$TMP" && timeout 1800 "$PY" -m objrt.numba --stats "$ROOT/tests/python/numba_run.py" "$mod" "$TMP/$m.objrt.json") >"$TMP/$m.objrt.log" 2>&1
    rc=$?
    if [ ! -s "$TMP/$m.mcjit.json" ] || [ ! -s "$TMP/$m.objrt.json" ]; then
        fail "numba-$m: a run did not finish (objrt exit $rc): $(tail -n 2 "$TMP/$m.objrt.log" | tr '\n' ' ')"
        continue
    fi
    "$PY" "$ROOT/tests/python/numba_compare.py" "numba-$m" "$TMP/$m.mcjit.json" "$TMP/$m.objrt.json" "$TMP/$m.objrt.log"
done
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
    case $out in "FAIL ctl: 1 outcomes differ"*) pass "numba compare control: a flipped outcome is reported";;
        *) fail "numba compare control: got '$out'";; esac
    out=$("$PY" "$ROOT/tests/python/numba_compare.py" ctl "$TMP/$m.objrt.json" "$TMP/$m.mcjit.json" "$TMP/$m.objrt.log")
    case $out in "FAIL ctl: the MCJIT run created no MCJIT engine; the objrt run created an MCJIT engine"*)
        pass "numba compare control: a run on the wrong JIT is reported";;
        *) fail "numba compare control (swapped): got '$out'";; esac
fi

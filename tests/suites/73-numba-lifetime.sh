# numba on objrt across releases (issue 35): tests/python/numba_life_cases.py (the release
# gate, code numba hands to numpy and C kept alive: ufunc loops, cfunc addresses, NRT
# objects' destructors and method tables, first-class function pointers; the OBJRT_NUMBA
# switch and --stats) with
# the host's numba 0.56 (Debian 12), Debian 13's 0.61 and sid's 0.65 in the roots
# scripts/numba-root.sh builds (chroot, cached in /var/cache/objrt), with this build's
# libobjrt.so copied in as 70-python does. Negative control of the gate: with
# OBJRT_NUMBA_GATE=0.61, sid's numba 0.65 must be refused.
# numba's own ufunc tests under MCJIT and under objrt, every outcome the same
# (tests/python/numba_run.py, numba_compare.py): make check runs test_ufuncbuilding with the
# host's numba, and with the lifetime rule off (OBJRT_NUMBA_PIN=0) it must fail;
# NUMBA_MODULES=all (or NUMBA_LIFE=all) runs every module of LIFE_ALL below in one process
# (as a user's program would meet them) with each of the three releases.
# suite-timeout: 5400
. tests/lib.sh
[ "$TARGET" = x86_64 ] && [ -z "$SAN" ] || exit 0
PY=/usr/bin/python3
LIB=$ROOT/$BUILD/libobjrt.so
unset OBJRT_LIBRARY OBJRT_NUMBA OBJRT_NUMBA_UNLOAD OBJRT_NUMBA_GATE

LIFE_QUICK=numba.tests.npyufunc.test_ufuncbuilding
LIFE_ALL=$LIFE_QUICK,numba.tests.npyufunc.test_vectorize_decor,numba.tests.npyufunc.test_gufunc,numba.tests.npyufunc.test_dufunc,numba.tests.npyufunc.test_parallel_ufunc_issues,numba.tests.npyufunc.test_parallel_low_work,numba.tests.test_cfunc
full=""
[ "${NUMBA_MODULES:-}" = all ] || [ "${NUMBA_LIFE:-}" = all ] && full=1
# numba_tests TAG SRC W WO MODULES [VAR=VALUE]: MODULES (comma-separated, one process) under
# MCJIT and under objrt through nrun (python3 in W, with the environment XENV; SRC the
# checkout's copy as nrun sees it, WO W from here); prints numba_compare.py's verdict.
# VAR=VALUE goes to the objrt run.
numba_tests() {
    local tag=$1 src=$2 w=$3 wo=$4 mods=$5 rc
    XENV=LC_ALL=C.UTF-8 nrun "$src/tests/python/numba_run.py" "$mods" "$w/$tag.mcjit.json" >"$wo/$tag.mcjit.log" 2>&1
    XENV=${6:-LC_ALL=C.UTF-8} nrun -m objrt.numba --stats "$src/tests/python/numba_run.py" "$mods" \
        "$w/$tag.objrt.json" >"$wo/$tag.objrt.log" 2>&1
    rc=$?
    if [ ! -s "$wo/$tag.mcjit.json" ] || [ ! -s "$wo/$tag.objrt.json" ]; then
        echo "FAIL $tag: a run did not finish (objrt: $(status_text $rc)): $(tail -n 2 "$wo/$tag.objrt.log" | tr '\n' ' ')"
        return
    fi
    "$PY" "$ROOT/tests/python/numba_compare.py" "$tag" "$wo/$tag.mcjit.json" "$wo/$tag.objrt.json" "$wo/$tag.objrt.log"
}

# ---- OBJRT_NUMBA=1 where users start Python ------------------------------------------------
# switch_cases V PYV SW HOST XRUN...: installs the package as a user would, into the
# directory SW as XRUN (a command prefix running a program in the release's system, host or
# chroot) sees it, HOST as seen from here: `pip install ./python` (offline, the host's pip, --target
# the venv's site-packages) into a venv with and without --system-site-packages, and `make
# install` with PYSITE in a user site directory (PYTHONUSERBASE: like a venv's, it is on
# sys.path before Debian's dist-packages). Each Python then starts with OBJRT_NUMBA=1: where
# numba is importable its code must link through objrt, with nothing on stderr; in the venv
# without it, the program runs and one line says why. Control: the probe without the
# variable must see MCJIT.
PROBE='import numba, sys
print(numba.njit(lambda x: x + 1)(1), end=" ")
m = sys.modules.get("objrt.numba"); l = sys.modules.get("objrt.llvm")
print(bool(m and m.enabled()), bool(l and l.totals.units > 0))'
switch_cases() {
    local v=$1 pyv=$2 sw=$3 host=$4 out err; shift 4
    expect "numba-$v-switch-venv-system-site" "numba-$v-switch-venv-alone" "numba-$v-switch-make-install"
    expect_harness "numba-$v-switch-unset-control"
    rm -rf "$host"; mkdir -p "$host"
    for venv in vs vp; do
        "$@" /usr/bin/python3 -m venv --without-pip $([ $venv = vs ] && echo --system-site-packages) "$sw/$venv" >"$host/$venv.log" 2>&1
        (cd "$ROOT" && "$PY" -m pip install -q --no-index --no-build-isolation \
            --target "$host/$venv/lib/python$pyv/site-packages" ./python) >>"$host/$venv.log" 2>&1
    done
    rm -rf "$ROOT/python/build" "$ROOT"/python/*.egg-info
    make -C "$ROOT" --no-print-directory -s install PREFIX="$sw/usr" DESTDIR="${host%"$sw"}" \
        PYSITE="$sw/ub/lib/python$pyv/site-packages" >"$host/inst.log" 2>&1
    # probe NAME WANT-OUT ENV...: the probe in that Python must print WANT-OUT, stderr empty.
    probe() {
        local name=$1 want=$2; shift 2
        out=$("${XRUN[@]}" env "$@" -c "$PROBE" 2>"$host/err") err=$(cat "$host/err")
        if [ "$out" = "$want" ] && [ -z "$err" ]; then pass "$name"
        else fail "$name: got '$out', expected '$want'; stderr: $(oneline "$err") ($(oneline "$(cat "$host"/*.log)"))"; fi
    }
    XRUN=("$@"); probe "numba-$v-switch-venv-system-site" "2 True True" OBJRT_NUMBA=1 "$sw/vs/bin/python"
    probe "numba-$v-switch-make-install" "2 True True" OBJRT_NUMBA=1 PYTHONUSERBASE="$sw/ub" /usr/bin/python3
    out=$("$@" env OBJRT_NUMBA=1 "$sw/vp/bin/python" -c 'print("ran")' 2>"$host/err") err=$(cat "$host/err")
    if [ "$out" = ran ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && \
        [[ $err == "objrt.numba: not enabled (numba runs on MCJIT): OBJRT_NUMBA=1, but numba and llvmlite cannot be imported by $sw/vp/bin/python" ]]; then
        pass "numba-$v-switch-venv-alone (one line: numba and llvmlite cannot be imported)"
    else fail "numba-$v-switch-venv-alone: got '$out'; stderr: $(oneline "$err")"; fi
    out=$("$@" "$sw/vs/bin/python" -c "$PROBE" 2>&1)
    if [ "$out" = "2 False False" ]; then hpass "numba-$v-switch-unset-control"
    else hfail "numba-$v-switch-unset-control: without OBJRT_NUMBA got '$out'"; fi
}
switch_cases 0.56 "$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" "$TMP/sw-0.56" "$TMP/sw-0.56" \
    env -C "$TMP" -u PYTHONPATH

# ---- numba 0.56, the host's --------------------------------------------------------------
run_cases life-0.56 1800 env -C "$TMP" PYTHONPATH="$ROOT/python:$ROOT/tests/python" \
    OBJRT_LIBRARY="$LIB" T_CASE_PREFIX=0.56- "$PY" "$ROOT/tests/python/numba_life_cases.py" "$TMP"
nrun() { (cd "$TMP" && env "$XENV" PYTHONPATH="$ROOT/python:$ROOT/tests/python" OBJRT_LIBRARY="$LIB" timeout 3600 "$PY" "$@"); }
expect numba-0.56-ufunc-tests
expect_harness numba-0.56-ufunc-tests-unpinned-control
numba_tests numba-0.56-ufunc-tests "$ROOT" "$TMP" "$TMP" "$LIFE_QUICK"
# The control: test_ufuncbuilding with the lifetime rule off must not match MCJIT.
out=$(numba_tests numba-0.56-ufunc-tests-unpinned-control "$ROOT" "$TMP" "$TMP" "$LIFE_QUICK" OBJRT_NUMBA_PIN=0)
case $out in FAIL*) hpass "numba-0.56-ufunc-tests-unpinned-control ($(printf '%s' "${out#*: }" | cut -c1-100))" ;;
    *) hfail "numba-0.56-ufunc-tests-unpinned-control: the unpinned run matched MCJIT: $out" ;; esac
if [ -n "$full" ]; then
    expect numba-0.56-ufunc-cfunc-all
    numba_tests numba-0.56-ufunc-cfunc-all "$ROOT" "$TMP" "$TMP" "$LIFE_ALL"
fi

# ---- numba 0.61 (trixie) and 0.65 (sid), each in its root -----------------------------------
# in_root NAME: copies the checkout's python/, tests/python/ and the library into the root
# NAME under $TMP (removed at the end); sets R (the root) and W (the copy, as seen inside).
in_root() {
    R=$(bash "$ROOT/scripts/numba-root.sh" "$1" 2>"$TMP/$1.err") || return 1
    W=$TMP/$1
    mkdir -p "$R$W/src/tests" "$R$W/src/lib" &&
        cp -r "$ROOT/python" "$R$W/src/" && cp -r "$ROOT/tests/python" "$R$W/src/tests/" &&
        cp -P "$ROOT/$BUILD"/libobjrt.so* "$R$W/src/lib/"
}
# rrun CMD...: CMD (at most 15 minutes) in the current root, in W, with the copy's package
# and library.
rrun() {
    timeout 900 chroot "$R" env -C "$W" PYTHONPATH="$W/src/python:$W/src/tests/python" \
        OBJRT_LIBRARY="$W/src/lib/libobjrt.so" "$@"
}
SMALL='import numba; print(numba.njit(lambda x: x + 1)(41))'
for rel in 0.61:trixie 0.65:sid; do
    v=${rel%%:*} name=${rel#*:}
    expect "$v-root"
    [ "$v" = 0.65 ] && expect numba-0.65-on-objrt && expect_harness numba-0.65-gate-0.61-control
    if ! in_root "$name"; then
        fail "$v-root: scripts/numba-root.sh $name failed: $(tail -n 3 "$TMP/$name.err" | tr '\n' ' ')"
        continue
    fi
    got=$(rrun python3 -c 'import numba; print(numba.__version__)' 2>&1)
    switch_cases "$v" "$(chroot "$R" python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" "$W/sw-$v" "$R$W/sw-$v" \
        chroot "$R" env -C "$W" -u PYTHONPATH
    case $got in "$v".*) pass "$v-root (numba $got)" ;;
        *) fail "$v-root: expected numba $v in $R, got '$got'" ;; esac
    if [ "$v" = 0.65 ]; then
        out=$(rrun python3 -m objrt.numba --stats -c "$SMALL" 2>&1)
        case $out in "42"*"objrt.numba: units="[1-9]*) pass "numba-0.65-on-objrt" ;;
            *) fail "numba-0.65-on-objrt: $(oneline "$out")" ;; esac
        out=$(rrun OBJRT_NUMBA_GATE=0.61 python3 -m objrt.numba --stats -c "$SMALL" 2>&1)
        case $? in 1) case $out in "objrt.numba supports numba 0.56 to 0.61; this is numba 0.65"*)
                hpass numba-0.65-gate-0.61-control ;;
                *) hfail "numba-0.65-gate-0.61-control: $(oneline "$out")" ;; esac ;;
            *) hfail "numba-0.65-gate-0.61-control: not refused: $(oneline "$out")" ;; esac
    fi
    run_cases "life-$v" 1800 chroot "$R" env -C "$W" PYTHONPATH="$W/src/python:$W/src/tests/python" \
        OBJRT_LIBRARY="$W/src/lib/libobjrt.so" T_CASE_PREFIX="$v-" python3 "$W/src/tests/python/numba_life_cases.py" "$W"
    if [ -n "$full" ]; then
        expect "numba-$v-ufunc-cfunc-all"
        nrun() { timeout 3600 chroot "$R" env -C "$W" "$XENV" PYTHONPATH="$W/src/python:$W/src/tests/python" \
            OBJRT_LIBRARY="$W/src/lib/libobjrt.so" python3 "$@"; }
        numba_tests "numba-$v-ufunc-cfunc-all" "$W/src" "$W" "$R$W" "$LIFE_ALL"
    fi
    rm -rf "${R:?}$W"
done

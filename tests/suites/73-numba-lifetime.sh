# numba on objrt across releases (issue 35): tests/python/numba_life_cases.py (the release
# gate, code numba hands to numpy and C kept alive, the OBJRT_NUMBA switch and --stats) with
# the host's numba 0.56 (Debian 12), Debian 13's 0.61 and sid's 0.65 in the roots
# scripts/numba-root.sh builds (chroot, cached in /var/cache/objrt), with this build's
# libobjrt.so copied in as 70-python does. Negative control of the gate: with
# OBJRT_NUMBA_GATE=0.61, sid's numba 0.65 must be refused.
# suite-timeout: 5400
. tests/lib.sh
[ "$TARGET" = x86_64 ] && [ -z "$SAN" ] || exit 0
PY=/usr/bin/python3
LIB=$ROOT/$BUILD/libobjrt.so
unset OBJRT_LIBRARY OBJRT_NUMBA OBJRT_NUMBA_UNLOAD OBJRT_NUMBA_GATE

# ---- numba 0.56, the host's --------------------------------------------------------------
run_cases life-0.56 1800 env -C "$TMP" PYTHONPATH="$ROOT/python:$ROOT/tests/python" \
    OBJRT_LIBRARY="$LIB" T_CASE_PREFIX=0.56- "$PY" "$ROOT/tests/python/numba_life_cases.py" "$TMP"

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
    rm -rf "${R:?}$W"
done

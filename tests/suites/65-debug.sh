#!/usr/bin/env bash
# 65-debug: what a user sees when something goes wrong in loaded code, and the contracts
# an embedding host relies on (issue 11): unload refuses while a dependant is bound
# (t_deps), objrt_addr_info for globals, locals and addresses between symbols (t_addr),
# lookup misses and symbol iteration (t_syms), the crash report of `objrt run` (text and
# exit status), GDB through the JIT interface (bt with file:line, a breakpoint set by name
# before the load, the unit gone after unload), -flto inputs, the exported symbols of
# libobjrt.so against the headers, and the CLI's conventional messages.
# Configs: x86_64: (all), x86_64:asan (C API tests), aarch64: (C API tests and the crash
# report, under qemu); nothing for tsan.
set -u
. "$ROOT/tests/lib.sh"

case "$TARGET:$SAN" in
    x86_64: | x86_64:asan | aarch64:) ;;
    *) exit 0 ;;
esac

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
SRC=$ROOT/tests/debug
FX=$TMP/fx
BIN=$B/tests/debug
mkdir -p "$FX" "$BIN"
if [ ! -f "$B/libobjrt.a" ]; then
    fail "debug-build: $B/libobjrt.a missing (run make first)"
    exit 0
fi
TFLAGS=""
[ "$SAN" = asan ] && TFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
[ "$TARGET" = aarch64 ] && TFLAGS="-DT_NO_FORK -DT_NO_THREADS"
export ASAN_OPTIONS="detect_leaks=1:exitcode=86:abort_on_error=0"

fixture() {   # fixture NAME [FLAGS...]: $FX/NAME.o from $SRC/fixtures/NAME.c
    local name=$1; shift
    $GCC "$@" -c "$SRC/fixtures/$name.c" -o "$FX/$name.o" 2>"$FX/$name.err" ||
        { fail "debug-fixture-$name: $(tail -n 2 "$FX/$name.err" | tr '\n' ' ')"; return 1; }
}

build_test() {   # build_test NAME: $BIN/NAME from $SRC/NAME.c
    local name=$1
    # shellcheck disable=SC2086
    $GCC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g $TFLAGS -I"$ROOT/include" \
        "$SRC/$name.c" "$B/libobjrt.a" -ldl -lpthread -o "$BIN/$name" 2>"$TMP/$name.build" ||
        { fail "$name-build: $(grep -m 2 -E 'error|undefined' "$TMP/$name.build" | tr '\n' ' ')"; return 1; }
}

# run_test NAME ARGS...: relays the program's PASS/FAIL lines; a crash, a timeout, a
# sanitizer report or a status other than 0 (or 1 with a FAIL line) is one more FAIL.
run_test() {
    local name=$1; shift
    [ -x "$BIN/$name" ] || return 0
    local out=$TMP/$name.out err=$TMP/$name.stderr rc nfail
    # shellcheck disable=SC2086
    timeout 120 $RUN "$BIN/$name" "$@" >"$out" 2>"$err"; rc=$?
    grep -E '^(PASS|FAIL) ' "$out"
    nfail=$(grep -c '^FAIL ' "$out")
    if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && [ "$nfail" -gt 0 ]; }; then
        fail "$name-process: exited $rc: $(tail -n 3 "$err" | tr '\n' ' ')"
    elif grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$err"; then
        fail "$name-process: sanitizer report: $(grep -m 2 -E 'runtime error:|ERROR: ' "$err" | tr '\n' ' ')"
    elif ! grep -q '^PASS ' "$out"; then
        fail "$name-process: no PASS line"
    fi
}

# ---- unload and dependants ------------------------------------------------------------
for f in dep_a dep_b dep_c; do fixture $f -O2; done
build_test t_deps && run_test t_deps "$FX"
exit 0

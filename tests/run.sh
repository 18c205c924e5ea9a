#!/usr/bin/env bash
# Run every suite in tests/suites/ for each configuration given, e.g.
#   tests/run.sh x86_64: x86_64:asan aarch64:
# (TARGET:SAN). Prints every PASS/FAIL line and ends with "N passed, N failed".
# A suite that exits non-zero without reporting a FAIL counts as one failure.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export ROOT
passed=0; failed=0
only=${SUITES:-}
for cfg in "$@"; do
    TARGET=${cfg%%:*}; SAN=${cfg#*:}
    BUILD=build; [ "$TARGET" = aarch64 ] && [ "$(uname -m)" != aarch64 ] && BUILD=build-aarch64
    [ -n "$SAN" ] && BUILD=$BUILD-$SAN
    if [ "$TARGET" = aarch64 ] && [ "$(uname -m)" != aarch64 ]; then
        RUN="qemu-aarch64 -L /usr/aarch64-linux-gnu"; GCC=aarch64-linux-gnu-gcc
        CLANG="clang --target=aarch64-linux-gnu"
    else
        RUN=""; GCC=gcc; CLANG=clang
    fi
    OBJRT="${RUN:+$RUN }$ROOT/$BUILD/objrt"
    export TARGET SAN BUILD RUN GCC CLANG OBJRT
    for suite in "$ROOT"/tests/suites/*.sh; do
        sname=$(basename "$suite" .sh)
        [ -n "$only" ] && ! [[ " $only " == *" $sname "* ]] && continue
        TMP=$(mktemp -d "/tmp/objrt-$sname.XXXXXX"); export TMP
        out="$TMP.log"
        ( cd "$ROOT" && bash "$suite" ) > "$out" 2>"$TMP.err"; rc=$?
        p=$(grep -c '^PASS ' "$out"); f=$(grep -c '^FAIL ' "$out")
        sed -n "s/^\(PASS\|FAIL\) /&[$cfg $sname] /p" "$out"
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
            echo "FAIL [$cfg $sname] suite exited $rc: $(tail -n 3 "$TMP.err" | tr '\n' ' ')"; f=1
        fi
        passed=$((passed + p)); failed=$((failed + f))
        rm -rf "$TMP" "$out" "$TMP.err"
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

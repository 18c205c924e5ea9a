#!/usr/bin/env bash
# Run every suite in tests/suites/ for each configuration given, e.g.
#   tests/run.sh x86_64: x86_64:asan aarch64:
# (TARGET:SAN). Prints every result line tagged with its configuration and suite, then
#   harness: N passed, N failed      (self-checks of the test machinery, counted apart)
#   N passed, N failed               (objrt's tests; always the last line)
# and exits non-zero when anything failed. The contract a suite follows is in tests/lib.sh:
# every case a suite declared (EXPECT lines) and did not report is a FAIL by name; a suite
# that exits non-zero or outlives its timeout is one more FAIL.
# Environment: SUITES="10-loader 50-runtime" runs only those; SUITES_DIR replaces
# tests/suites (the harness self-checks use it); SUITE_TIMEOUT (seconds, default 3600).
# One case: CASE=NAME (or a shell pattern, e.g. CASE='ws-*') reports only the cases of
# that name, e.g.  CASE=ws-reuse SUITES=50-runtime tests/run.sh x86_64:
# C test programs (tests/report.h) then run only that case; a shell suite still runs its
# steps but only the case's lines count; no case of that name in the suites run is a FAIL.
# A C test program that failed is kept, and a line "RERUN [cfg suite] COMMAND" says how to
# run it again by hand (tests/lib.sh run_cases).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export ROOT
SUITES_DIR=${SUITES_DIR:-$ROOT/tests/suites}
passed=0; failed=0; hpassed=0; hfailed=0
only=${SUITES:-}
export CASE=${CASE:-}
matched=0

# tally TAG LOG: print LOG's result lines tagged, then a FAIL for every declared name that
# has no result line; the last line printed is "p f hp hf nw" (the counts; nw: declared
# names CASE selects). With CASE, only the lines of the cases it selects count.
tally() {
    awk -v tag="$1" -v pat="$CASE" '
        function sel(r,   i) {      # does CASE select the case of result or name r?
            if (pat == "") return 1
            for (i = 1; i <= length(r); i++)
                if (substr(r, i, 2) == ": " || substr(r, i, 2) == " (") { r = substr(r, 1, i - 1); break }
            return r ~ globre
        }
        BEGIN { globre = pat; gsub(/[][\\.^$+{}()|]/, "\\\\&", globre)
                gsub(/\*/, ".*", globre); gsub(/\?/, ".", globre); globre = "^" globre "$" }
        /^RERUN / { print "RERUN " tag " " substr($0, 7); next }
        function key(r,   i) {      # every name a result line can stand for: the whole
            seen[r] = 1             # rest, and each prefix ending before ": " or " ("
            for (i = 1; i <= length(r); i++)
                if (substr(r, i, 2) == ": " || substr(r, i, 2) == " (") seen[substr(r, 1, i - 1)] = 1
        }
        /^EXPECT / { n = substr($0, 8); h = 0
            if (n ~ /^HARNESS /) { n = substr(n, 9); h = 1 }
            if (!sel(n)) next
            if (!(n in want)) { want[n] = h; order[++nw] = n }
            next }
        /^(PASS|FAIL) / { if (!sel(substr($0, 6))) next
            print $1 " " tag " " substr($0, 6); if ($1 == "PASS") p++; else f++
            key(substr($0, 6)); next }
        /^HARNESS (PASS|FAIL) / { if (!sel(substr($0, 14))) next
            print "HARNESS " $2 " " tag " " substr($0, 14)
            if ($2 == "PASS") hp++; else hf++; key(substr($0, 14)); next }
        END {
            for (i = 1; i <= nw; i++) {
                n = order[i]
                if (n in seen) continue
                if (want[n]) { print "HARNESS FAIL " tag " " n ": no result (the suite or the process running the case died, hung or skipped it)"; hf++ }
                else { print "FAIL " tag " " n ": no result (the suite or the process running the case died, hung or skipped it)"; f++ }
            }
            if (nw == 0 && p + f + hp + hf > 0) print "NOTE " tag " declares no cases (EXPECT lines, tests/lib.sh): a case that dies unreported goes unnoticed"
            print p + 0, f + 0, hp + 0, hf + 0, nw + 0
        }' "$2"
}

for cfg in "$@"; do
    TARGET=${cfg%%:*}; SAN=${cfg#*:}
    BUILD=build; [ "$TARGET" = aarch64 ] && [ "$(uname -m)" != aarch64 ] && BUILD=build-aarch64
    [ -n "$SAN" ] && BUILD=$BUILD-$SAN
    if [ "$TARGET" = aarch64 ] && [ "$(uname -m)" != aarch64 ]; then
        # -L /: the multiarch ld.so with the multiarch libc.so.6 its ld.so.cache finds (libc6:arm64).
        # -L /usr/aarch64-linux-gnu would pair the cross ld.so with that libc (two glibc
        # builds in one process), which hangs pthread_create and fork.
        RUN="qemu-aarch64 -L /"; GCC=aarch64-linux-gnu-gcc
        CLANG="clang --target=aarch64-linux-gnu"
    else
        RUN=""; GCC=gcc; CLANG=clang
    fi
    OBJRT="${RUN:+$RUN }$ROOT/$BUILD/objrt"
    export TARGET SAN BUILD RUN GCC CLANG OBJRT
    for suite in "$SUITES_DIR"/*.sh; do
        sname=$(basename "$suite" .sh)
        [ -n "$only" ] && ! [[ " $only " == *" $sname "* ]] && continue
        TMP=$(mktemp -d "/tmp/objrt-$sname.XXXXXX"); export TMP
        out="$TMP.log"
        limit=$(sed -n 's/^# suite-timeout: *\([0-9][0-9]*\).*/\1/p' "$suite" | head -n 1)
        limit=${limit:-${SUITE_TIMEOUT:-3600}}
        # timeout signals the suite's whole process group (not only bash), KILL 10 s later.
        ( cd "$ROOT" && timeout -k 10 "$limit" bash "$suite" ) > "$out" 2>"$TMP.err"; rc=$?
        tally "[$cfg $sname]" "$out" > "$TMP.tally"
        sed '$d' "$TMP.tally"
        read -r p f hp hf nw < <(tail -n 1 "$TMP.tally")
        matched=$((matched + nw + p + f + hp + hf))
        said=$(tail -n 3 "$TMP.err" | tr '\n' ' '); said=${said:+: $said}
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            echo "FAIL [$cfg $sname] suite ran longer than its $limit s timeout and was killed$said"; f=$((f + 1))
        elif [ "$rc" -ne 0 ]; then
            echo "FAIL [$cfg $sname] suite exited $rc$said"; f=$((f + 1))
        fi
        passed=$((passed + p)); failed=$((failed + f))
        hpassed=$((hpassed + hp)); hfailed=$((hfailed + hf))
        rm -rf "$TMP" "$out" "$TMP.err" "$TMP.tally"
    done
done
if [ -n "$CASE" ] && [ "$matched" -eq 0 ]; then
    echo "FAIL CASE=$CASE: no case of that name in the suites run"; failed=$((failed + 1))
fi
echo "harness: $hpassed passed, $hfailed failed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$hfailed" -eq 0 ]

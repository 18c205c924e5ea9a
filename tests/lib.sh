# tests/lib.sh - the shell side of the test harness, sourced by every suite
# (tests/report.h is the C side; tests/run.sh runs the suites and counts).
#
# ---- What a suite is ------------------------------------------------------------------
# tests/suites/NN-name.sh, run by tests/run.sh once per configuration TARGET:SAN with:
#   ROOT     repository root          BUILD   build dir of this configuration (build, build-asan, build-aarch64)
#   TARGET   x86_64 | aarch64         SAN     "" | asan | tsan
#   OBJRT    the CLI to test, with its runner prefix (qemu for aarch64)
#   RUN      prefix to run a target binary ("" or "qemu-aarch64 -L /")
#   GCC, CLANG  compilers producing target objects;  TMP  a scratch dir of this suite
# It prints nothing (and exits 0) for a configuration it does not cover.
#
# ---- What it prints (one line per check) --------------------------------------------------
#   PASS <name>   or   PASS <name> (<note>)          FAIL <name>: <why>
# and, for a self-check of the test machinery (a negative control showing that a checker
# can fail, or that a fixture is what a test assumes; no objrt behaviour is tested):
#   HARNESS PASS <name>                             HARNESS FAIL <name>: <why>
# run.sh counts those apart ("harness: N passed, N failed"), never in the product total.
#
# ---- What a new suite must do: declare its cases before running them ----------------------
#   expect NAME...            (or expect_harness NAME...) prints "EXPECT NAME". Every declared
#                             name with no PASS/FAIL line by the end of the suite is reported
#                             by run.sh as "FAIL NAME: no result ...": a suite or a process that
#                             dies, hangs or prints nothing fails each case it owed by name.
#   run_cases LABEL SECS CMD...  runs a C test program (built with build_prog, reporting with
#                             tests/report.h): declares the names the program lists in its
#                             list mode (T_LIST=1), relays its lines, and fails every name it
#                             did not report, saying why (signal, timeout, exit status).
#                             After a failure it prints "RERUN LABEL: COMMAND", the command
#                             that runs the program again (a program built in $TMP is kept
#                             under $BUILD/tests/failed/ first); tests/run.sh shows it.
# Names are unique within a suite and contain no ": " or " (" (a result line's name ends
# there). A suite that declares nothing still runs (run.sh prints a NOTE); a suite that
# exits non-zero, is killed or runs longer than its timeout (SUITE_TIMEOUT, default 3600 s;
# a line "# suite-timeout: SECONDS" in the suite overrides it) is one more FAIL.
#
# ---- Building a test program ---------------------------------------------------------------
#   build_prog NAME OUT SRC... [-- FLAGS...]   the one way: the target compiler, the
#                             configuration's sanitizer, -Werror, against $BUILD/libobjrt.a;
#                             prints "FAIL NAME: <compiler errors>" and returns 1 on failure.
#                             A program that calls objrt's internals (src/ headers' functions,
#                             local in libobjrt.a) is built with INTERNALS=1 before build_prog:
#                             against $BUILD/libobjrt_internal.a, the same objects.

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
hpass() { echo "HARNESS PASS $*"; }
hfail() { echo "HARNESS FAIL $*"; }
expect() { local n; for n in "$@"; do echo "EXPECT $n"; done; }
expect_harness() { local n; for n in "$@"; do echo "EXPECT HARNESS $n"; done; }

# _check PASSFN FAILFN NAME CMD...: PASSFN when CMD succeeds, else FAILFN with its last lines.
_check() {
    local okf=$1 badf=$2 name=$3; shift 3
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -eq 0 ]; then $okf "$name"
    else $badf "$name: $(status_text "$rc"): $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"; fi
}
# check NAME CMD...: PASS when CMD succeeds, FAIL with its last output lines otherwise.
check() { _check pass fail "$@"; }
# hcheck NAME CMD...: the same for a harness self-check.
hcheck() { _check hpass hfail "$@"; }
# expect_fail NAME PATTERN CMD...: CMD must fail and its output must match PATTERN (grep -E).
expect_fail() {
    local name=$1 pat=$2; shift 2
    local out
    if out=$("$@" 2>&1); then fail "$name: succeeded, expected failure matching '$pat'"; return; fi
    if printf '%s' "$out" | grep -Eq -- "$pat"; then pass "$name"; else fail "$name: output did not match '$pat': $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"; fi
}
# expect_status NAME STATUS CMD...: CMD must exit with exactly STATUS (a signal is 128+N).
expect_status() {
    local name=$1 want=$2 out rc; shift 2
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" = "$want" ]; then pass "$name"; else fail "$name: exit $rc ($(status_text "$rc")), expected $want: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"; fi
}

# status_text RC: what an exit status of a (timeout-wrapped) process means.
status_text() {
    case $1 in
        0) echo "success" ;;
        124) echo "timed out" ;;
        137) echo "killed (SIGKILL; a timeout -s KILL)" ;;
        12[5-7]) echo "could not be run (status $1)" ;;
        *) if [ "$1" -gt 128 ]; then echo "killed by signal $(($1 - 128)) (SIG$(kill -l $(($1 - 128)) 2>/dev/null))"
           else echo "exit status $1"; fi ;;
    esac
}

# sanflags: the compiler flags of the configuration's sanitizer (as the Makefile's SANFLAGS).
sanflags() {
    case ${SAN:-} in
        asan) echo "-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" ;;
        tsan) echo "-fsanitize=thread" ;;
    esac
}

# build_prog NAME OUT SRC... [-- FLAGS...]: see the header. FLAGS come last (so -O1 wins).
build_prog() {
    local name=$1 out=$2; shift 2
    local srcs=() b
    while [ $# -gt 0 ] && [ "$1" != -- ]; do srcs+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    case $BUILD in /*) b=$BUILD ;; *) b=$ROOT/$BUILD ;; esac
    mkdir -p "$(dirname "$out")"
    # shellcheck disable=SC2046,SC2086
    if ! $GCC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g $(sanflags) \
            -I"$ROOT/include" -I"$ROOT/src" -I"$ROOT/tests" "${srcs[@]}" "$@" \
            "$b/$([ "${INTERNALS:-}" = 1 ] && echo libobjrt_internal.a || echo libobjrt.a)" \
            -ldl -lpthread -ljansson -o "$out" 2>"$out.build-log"; then
        fail "$name: $(grep -m 2 -E 'error|undefined' "$out.build-log" | tr '\n' ' ')"
        return 1
    fi
}

# run_cases LABEL SECS CMD...: see the header. The program's stderr is kept in
# $TMP/LABEL.err (for sanitizer checks); its exit status is returned.
# A process that lists nothing is a FAIL "LABEL: lists no cases". A crash, a timeout, or an
# exit status other than 0 (or 1 with a FAIL line) fails every case it did not report, or
# LABEL itself when it reported them all.
run_cases() {
    local label=$1 secs=$2; shift 2
    local list=$TMP/$label.list out=$TMP/$label.out err=$TMP/$label.err rc lrc
    T_LIST=1 timeout -s KILL 60 "$@" >"$list" 2>"$err"; lrc=$?
    grep -E '^EXPECT ' "$list"
    if [ "$lrc" -ne 0 ] || ! grep -q '^EXPECT ' "$list"; then
        fail "$label: lists no cases (T_LIST=1 run: $(status_text "$lrc")): $(tail -n 2 "$err" | tr '\n' ' ')"
        return 1
    fi
    timeout -s KILL "$secs" "$@" >"$out" 2>"$err"; rc=$?
    grep -E '^(HARNESS )?(PASS|FAIL) ' "$out"
    local why="" missing=0 kind name
    [ "$rc" -eq 137 ] && why="$label was killed (SIGKILL: still running after $secs s, or out of memory)"
    [ -z "$why" ] && [ "$rc" -gt 128 ] && why="$label $(status_text "$rc")"
    [ -z "$why" ] && [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && grep -Eq '^(HARNESS )?FAIL ' "$out"; } &&
        why="$label exited $rc"
    local said; said=$(grep -m 3 -E 'ERROR|SUMMARY|runtime error|ssert|rror' "$err" | tr '\n' ' ' | cut -c1-300)
    [ -n "$why" ] && [ -n "$said" ] && why="$why: $said"
    while read -r _ kind name; do
        [ "$kind" = HARNESS ] || name="$kind${name:+ $name}"
        if ! _reported "$name" "$out"; then
            missing=$((missing + 1))
            if [ "$kind" = HARNESS ]; then hfail "$name: no result: ${why:-$label ended without reporting it}"
            else fail "$name: no result: ${why:-$label ended without reporting it}"; fi
        fi
    done < <(grep -E '^EXPECT ' "$list")
    [ "$missing" -eq 0 ] && [ -n "$why" ] && fail "$label: $why"
    if [ -n "$why" ] || [ "$missing" -gt 0 ] || grep -Eq '^(HARNESS )?FAIL ' "$out"; then
        _rerun "$label" "$(grep -m 1 -E '^(HARNESS )?FAIL ' "$out" | sed -E 's/^(HARNESS )?FAIL //; s/(: | \().*//')" "$@"
    fi
    return "$rc"
}
# _rerun LABEL CASE CMD...: after a failure, keep CMD's program where the suite's scratch
# dir does not go away (it is in $TMP, which tests/run.sh removes) and print a RERUN line
# with the command that runs it again (CASE=the first failing case; tests/report.h).
_rerun() {
    local label=$1 case=$2 a kept b cmd=""; shift 2
    case $BUILD in /*) b=$BUILD ;; *) b=$ROOT/$BUILD ;; esac
    for a in "$@"; do
        if [ -f "$a" ] && [ -x "$a" ] && [[ $a == "$TMP"/* ]]; then
            kept=$b/tests/failed/$(basename "$TMP" | sed 's/\.[^.]*$//')/$(basename "$a")
            mkdir -p "$(dirname "$kept")" && cp "$a" "$kept" && a=$kept
        fi
        cmd+=" $(printf '%q' "$a")"
    done
    echo "RERUN $label: cd $ROOT && ${case:+CASE=$(printf '%q' "$case") }${cmd# }"
}
# _reported NAME FILE: FILE has a result line for NAME.
_reported() {
    awk -v n="$1" '{ sub(/^HARNESS /, "") }
        ($1 == "PASS" || $1 == "FAIL") { r = substr($0, 6)
            if (r == n || index(r, n ": ") == 1 || index(r, n " (") == 1) { f = 1; exit } }
        END { exit !f }' "$2"
}

# ---- comparing a run with the native one (suites that run programs both ways) ----------
# oneline TEXT: the last 3 lines of TEXT as one line (at most 400 characters), for messages.
oneline() { printf '%s' "$1" | tail -n 3 | tr '\n' ' ' | cut -c1-400; }
# run_to PREFIX CMD...: CMD's stdout, stderr and status into PREFIX.{out,err,rc}; a run
# longer than $LIMIT seconds (the suite's, default 300) is killed and its status is 124.
run_to() {
    local p=$1; shift
    timeout "${LIMIT:-300}" "$@" >"$p.out" 2>"$p.err"
    echo $? >"$p.rc"
}
# differs EXPECTED ACTUAL: why the stdout or status of two run_to prefixes differ (prints
# nothing when they match).
differs() {
    if ! cmp -s "$1.out" "$2.out"; then
        echo "stdout differs: $(diff "$1.out" "$2.out" | grep -m 2 '^[<>]' | tr '\n' ' ') | $(oneline "$(cat "$2.err")")"
    elif [ "$(cat "$1.rc")" != "$(cat "$2.rc")" ]; then
        echo "status $(cat "$2.rc"), expected $(cat "$1.rc"): $(oneline "$(cat "$2.err")")"
    fi
}
# same NAME EXPECTED ACTUAL: PASS when stdout and status match, else FAIL saying how.
same() {
    local why; why=$(differs "$2" "$3")
    if [ -z "$why" ]; then pass "$1"; else fail "$1: $why"; fi
}

# ---- gdb on a target program (suites that check what a debugger sees) -------------------
# gdb_name: the gdb that reads this configuration's programs (gdb-multiarch under qemu).
gdb_name() { if [ -n "$RUN" ]; then echo gdb-multiarch; else echo gdb; fi; }
# gdb_batch CMD... -- PROG ARG...: gdb's output, under a hard kill timeout of $GDB_SECS
# seconds (default 60; a gdb blocked in read ignores SIGTERM); the status is timeout's.
# Each CMD is one -ex command; the command RUN starts the program. Under qemu the program
# runs in qemu's gdb server ($RUN, with its -L /) and gdb-multiarch connects to it, reading
# files from this machine's root (no sysroot), as gdb does natively.
gdb_batch() {
    local cmds=() start=run secs=${GDB_SECS:-60}
    [ -n "$RUN" ] && start='continue'
    while [ "$1" != -- ]; do
        if [ "$1" = RUN ]; then cmds+=(-ex "$start"); else cmds+=(-ex "$1"); fi
        shift
    done
    shift
    if [ -z "$RUN" ]; then
        timeout -k 5 "$secs" gdb -q -nx -batch "${cmds[@]}" --args "$@" 2>&1
        return
    fi
    local port=$((20000 + RANDOM % 20000)) qpid rc
    # shellcheck disable=SC2086
    $RUN -g "$port" "$@" >/dev/null 2>&1 &
    qpid=$!
    timeout -k 5 "$secs" gdb-multiarch -q -nx -batch -ex 'set sysroot' -ex "target remote :$port" \
        "${cmds[@]}" "$1" 2>&1
    rc=$?
    kill "$qpid" 2>/dev/null
    wait "$qpid" 2>/dev/null
    return $rc
}

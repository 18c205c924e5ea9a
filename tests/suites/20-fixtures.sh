#!/usr/bin/env bash
# Compiler fixtures: every program under tests/fixtures/progs/ is compiled by gcc and clang in
# every mode of tests/fixtures/modes.sh at every optimisation level, linked and run natively,
# then run through `objrt run`; stdout and exit status must be identical. Also: a -fno-pic
# direct reference to libc's `stdout` (loaded correctly or refused naming `stdout`), and
# LLVM-JIT-style objects (llvmlite, static relocation model) run with `objrt run -e`.
# Applies to x86_64 and aarch64 (plain and asan); prints nothing for tsan.
. "$ROOT/tests/lib.sh"
FIX=$ROOT/tests/fixtures
. "$FIX/common.sh"
. "$FIX/modes.sh"

[ "${SAN:-}" = tsan ] && exit 0
case $TARGET in x86_64 | aarch64) ;; *) exit 0 ;; esac
fixture_modes

# ---- harness self-check: the comparison must be able to fail ------------------------------
selftest() {
    local d=$TMP/selftest; mkdir -p "$d"
    printf 'a\nb\n' >"$d/n"; printf 'a\nc\n' >"$d/o"; : >"$d/e"
    compare_runs "$d/n" 3 "$d/n" 3 "$d/e" >/dev/null || return 1     # identical: accepted
    compare_runs "$d/n" 3 "$d/o" 3 "$d/e" >/dev/null && return 1     # stdout differs
    compare_runs "$d/n" 3 "$d/n" 4 "$d/e" >/dev/null && return 1     # exit differs
    return 0
}
expect_harness "fixture harness rejects differing stdout or exit status"
hcheck "fixture harness rejects differing stdout or exit status" selftest

# ---- the matrix ----------------------------------------------------------------------------
# A C++ fixture needs a C++ compiler with target headers (no aarch64 libstdc++ headers here).
cxx_ok() {
    local drv
    drv=$(driver "$1" cxx) || return 1
    printf '#include <string>\nint main(){std::string s("x");return (int)s.size()-1;}\n' >"$TMP/probe.cc"
    # shellcheck disable=SC2086
    $drv -c "$TMP/probe.cc" -o "$TMP/probe.o" >/dev/null 2>&1
}
declare -A have_cxx
for cc in gcc clang; do cxx_ok $cc && have_cxx[$cc]=1; done

jobs=$TMP/jobs; : >"$jobs"
n=0
for dir in "$FIX"/progs/*/; do
    fx=$(basename "$dir")
    for cc in gcc clang; do
        if compgen -G "$dir*.cc" >/dev/null && [ -z "${have_cxx[$cc]:-}" ]; then
            echo "note: fixture $fx skipped for $cc: no C++ compiler/headers for $TARGET" >&2
            continue
        fi
        for m in "${MODES[@]}"; do
            for opt in "${OPTS[@]}"; do
                n=$((n + 1))
                printf '%d\t%s\t%s\t%s\t%s\t%s\n' "$n" "$fx" "$cc" "${m%%|*}" "$opt" "${m#*|}" >>"$jobs"
            done
        done
    done
done
while IFS=$'\t' read -r _ fx cc mode opt _; do expect "fixture $fx $cc $mode $opt"; done <"$jobs"
xargs -d '\n' -P "$(nproc)" -n 1 bash "$FIX/run-one.sh" <"$jobs" | sort -n -k1,1 | cut -f2-

# ---- direct references to host data (stdout) ---------------------------------------------
# Non-PIC code reads `stdout` with a direct PC-relative (x86_64 PC32) or page-relative
# (AArch64 ADRP) access, which cannot go through a GOT; so does gcc's default PIE code on
# x86_64 (it assumes copy relocations). Each case has one expected outcome: on x86_64 the
# -fno-pic object also holds 32-bit absolute addresses of its strings (the unit must lie below
# 2 GiB) while PC32 to stdout needs it within 2 GiB of libc: no address satisfies both, so
# objrt must refuse it (exit 125, naming `stdout`); every other direct-reference object
# (x86_64 PIE, AArch64 ADRP) must be placed in reach and print like the native run.
# stdout_direct CC MODE: MODE "default" is tested only where the compiler emits a direct
# reference (otherwise there is nothing to check: a note on stderr, no line).
stdout_direct() {
    local cc=$1 mode=$2 drv flags=$2
    local d=$TMP/stdout-direct/$cc/$(slug "$mode")
    [ "$mode" = default ] && flags=
    mkdir -p "$d"
    drv=$(driver "$cc" c) || { echo "FAIL fixture stdout-direct $cc: no compiler"; return; }
    local name="fixture stdout-direct $cc $mode -O2"
    # shellcheck disable=SC2086
    if ! $drv $flags -O2 -c "$FIX/special/stdout-nopic.c" -o "$d/s.o" 2>"$d/cc.err"; then
        echo "FAIL $name: compile: $(oneline "$(cat "$d/cc.err")")"; return
    fi
    # Negative control: the object must really hold a non-GOT reference to stdout.
    if ! readelf -rW "$d/s.o" | grep -E ' stdout [-+] ' | grep -Evq 'GOT'; then
        if [ "$mode" = default ]; then
            echo "note: $cc default mode reaches stdout through the GOT on $TARGET: not a direct-reference case" >&2
        else
            echo "FAIL $name: object has no direct (non-GOT) relocation against stdout"
        fi
        return
    fi
    # shellcheck disable=SC2086
    $drv -no-pie -o "$d/prog" "$d/s.o" && (cd "$d" && timeout 30 $RUN ./prog >native.out 2>&1); local nrc=$?
    if [ "$nrc" != 19 ]; then echo "FAIL $name: native run exited $nrc, expected 19"; return; fi
    (cd "$d" && timeout 30 $OBJRT run "$d/s.o" >objrt.out 2>objrt.err); local orc=$?
    if [ "$TARGET:$mode" = "x86_64:-fno-pic -fno-pie" ]; then
        if [ "$orc" = 125 ] && grep -q "stdout" "$d/objrt.err" && ! [ -s "$d/objrt.out" ]; then
            echo "PASS $name (refused: $(oneline "$(cat "$d/objrt.err")"))"
        else
            echo "FAIL $name: exit $orc, expected a refusal (125) naming 'stdout' and no output: $(oneline "$(cat "$d/objrt.err")")"
        fi
    elif why=$(compare_runs "$d/native.out" "$nrc" "$d/objrt.out" "$orc" "$d/objrt.err"); then
        echo "PASS $name (loaded correctly)"
    else
        echo "FAIL $name: expected to load and print like the native run: $why"
    fi
}
for cc in gcc clang; do
    stdout_direct $cc "-fno-pic -fno-pie"
    stdout_direct $cc default
done

# ---- archive controls: the members that must not be pulled really are poison ---------------
# Given as plain objects (always linked), lib_b_dup.o duplicates main_value and
# lib_c_missing.o leaves a symbol undefined: both must be refused, by ld and by objrt. This
# is what makes the archive fixture's member selection meaningful.
archive_controls() {
    local d=$TMP/archive-controls src=$FIX/progs/archive
    mkdir -p "$d"
    for f in main lib_a_pong lib_b_dup lib_c_missing lib_d_ping lib_e_used lib_f_helper lib_g_data; do
        $GCC -O2 -c "$src/$f.c" -o "$d/$f.o" || { echo "FAIL fixture archive controls: compile $f"; return; }
    done
    local base=("$d/main.o" "$d/lib_a_pong.o" "$d/lib_d_ping.o" "$d/lib_e_used.o" "$d/lib_f_helper.o" "$d/lib_g_data.o")
    local extra pat
    for extra in lib_b_dup:main_value lib_c_missing:objrt_fixture_no_such_symbol; do
        pat=${extra#*:}; extra=${extra%%:*}
        if $GCC -o "$d/prog" "${base[@]}" "$d/$extra.o" >/dev/null 2>&1; then
            echo "FAIL fixture archive control $extra.o: native link accepted it"; continue
        fi
        (cd "$d" && timeout 30 $OBJRT run "${base[@]}" "$d/$extra.o" >"$d/out" 2>"$d/err"); local rc=$?
        if [ "$rc" = 125 ] && grep -q "$pat" "$d/err" && ! [ -s "$d/out" ]; then
            echo "PASS fixture archive control $extra.o given directly is refused (names $pat)"
        else
            echo "FAIL fixture archive control $extra.o: exit $rc, expected 125 naming $pat: $(oneline "$(cat "$d/err")")"
        fi
    done
}
archive_controls

# ---- LLVM JIT-style objects (llvmlite) --------------------------------------------------------
PY=/usr/bin/python3
triple=$TARGET-unknown-linux-gnu
llvm_obj() {
    local cm=$1 d=$TMP/llvm/$1 name="fixture llvm-jit codemodel=$1 $triple"
    mkdir -p "$d"
    if ! err=$($PY "$FIX/llvm/jit_object.py" --triple "$triple" --codemodel "$cm" -o "$d/jit.o" 2>&1); then
        echo "FAIL $name: llvmlite: $(oneline "$err")"; return
    fi
    $PY "$FIX/llvm/jit_object.py" --triple "$triple" --print-expected >"$d/expected.out"
    printf 'int jit_main(void);\nint main(void) { return jit_main(); }\n' >"$d/driver.c"
    # Native side: the same object linked behind a tiny main must already be right.
    # shellcheck disable=SC2086
    if ! err=$($GCC -no-pie -o "$d/prog" "$d/driver.c" "$d/jit.o" 2>&1); then
        echo "FAIL $name: native link: $(oneline "$err")"; return
    fi
    (cd "$d" && timeout 30 $RUN ./prog >native.out 2>&1); local nrc=$?
    if [ "$nrc" != 42 ] || ! cmp -s "$d/native.out" "$d/expected.out"; then
        echo "FAIL $name: native run exited $nrc: $(oneline "$(cat "$d/native.out")")"; return
    fi
    (cd "$d" && timeout 30 $OBJRT run -e jit_main "$d/jit.o" >objrt.out 2>objrt.err); local orc=$?
    if why=$(compare_runs "$d/expected.out" 42 "$d/objrt.out" "$orc" "$d/objrt.err"); then
        echo "PASS $name"
    else
        echo "FAIL $name: $why"
    fi
}
if $PY -c 'import llvmlite.binding' 2>/dev/null; then
    for cm in jitdefault large; do llvm_obj $cm; done
else
    echo "FAIL fixture llvm-jit: $PY cannot import llvmlite.binding"
fi
exit 0

#!/usr/bin/env bash
# 57-tvm-deploy: TVM output as each release ships it, run unmodified by `objrt call`
# (issue 25). Fixtures of our own in the shape of each release's generated code
# (tests/tvm/deploy/), compiled at test time; each result is compared with a native link
# of the same object (tests/tvm/deploy/native.c: byte-identical) and with numpy
# (tests/tvm/deploy/ref.py), and each guard has a negative control.
. "$ROOT/tests/lib.sh"
case "$TARGET:$SAN" in
    x86_64: | x86_64:asan | aarch64:) ;;
    *) exit 0 ;;
esac
PY=/usr/bin/python3
S=$ROOT/tests/tvm/deploy
D=$TMP/data
mkdir -p "$D/objrt" "$D/native"
[ "$TARGET" = aarch64 ] && export TVM_NUM_THREADS=1
export ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}"

expect math-libm-by-default math-native-link math-capi-hint-names-add-library \
    outdir-created-mkdir-p outdir-not-a-directory-before-running outdir-under-a-file
expect_harness math-libm-by-default-wrong-reference-detected
expect aot08-native-packed aot08-native-run-model aot08-packed-run-by-unit aot08-run-model-unpacked \
    aot08-unpacked-flag aot-ambiguous-refused-naming-choices aot-ambiguous-packed-flag-runs
expect_harness aot08-packed-run-by-unit-wrong-reference-detected \
    aot08-run-model-unpacked-wrong-reference-detected aot08-unpacked-flag-wrong-reference-detected \
    aot-ambiguous-packed-flag-runs-wrong-reference-detected
[ -z "$SAN" ] && expect crash-in-kernel-reported crash-in-kernel-signal-status

$PY "$S/ref.py" inputs "$D" || { fail "deploy-inputs: ref.py inputs failed"; exit 0; }
KFLAGS="-O2 -std=c11 -fPIC -Wall -Wextra -Werror -I$ROOT/include"

# kernel NAME SRC [FLAGS]: compile a fixture into $TMP/NAME.o (fails the suite's cases by name
# through their own checks when it does not compile)
kernel() { local n=$1 src=$2; shift 2; $GCC $KFLAGS "$@" -c "$S/$src" -o "$TMP/$n.o" 2>"$TMP/$n.log" || cat "$TMP/$n.log"; }
# native NAME KIND ENTRY KERNEL.o ARGS...: the kernel linked by ld with native.c, run on ARGS
native() {
    local n=$1 kind=$2 entry=$3 obj=$4; shift 4
    rm -f "$D"/native/*.npy
    build_prog "$n-native-build" "$TMP/native-$n" "$S/native.c" "$ROOT/src/cli/npy.c" "$obj" \
        -- -I"$ROOT/src/cli" -DENTRY="$entry" -lm || return 1
    $RUN "$TMP/native-$n" "$kind" "$D/native" "$@"
}
# call_ok NAME CASE ARGS...: objrt call succeeds; outputs match numpy and the native link
call_ok() {
    local name=$1 case=$2 out; shift 2
    rm -f "$D"/objrt/*.npy
    if ! out=$(timeout 120 $OBJRT call "$@" -o "$D/objrt" 2>&1); then
        fail "$name: objrt call failed: $(oneline "$out")"; return
    fi
    if grep -Eq 'Sanitizer|runtime error:' <<<"$out"; then fail "$name: sanitizer report"; return; fi
    if ! out=$($PY "$S/ref.py" check "$D" "$case" 2>&1); then fail "$name: $out"; return; fi
    pass "$name"
    if $PY "$S/ref.py" check "$D" "$case" --control >/dev/null 2>&1; then
        hfail "$name-wrong-reference-detected: ref.py accepted a wrong reference"
    else hpass "$name-wrong-reference-detected"; fi
}

# --- item 3: libm linked by default, as TVM's export_library links it
kernel math math_kernel.c
if native math packed tvmgen_default_fused_sigmoid_tanh "$TMP/math.o" "$D/x.npy" -- y="$D/y_t.npy"
then pass math-native-link
else fail "math-native-link: the native link failed"; fi
call_ok math-libm-by-default math "$TMP/math.o" -f tvmgen_default_fused_sigmoid_tanh --in "$D/x.npy" --out 'y=float32[1000]'
# a C API host (here `objrt run`, which adds nothing by default) is told what to call
expect_fail math-capi-hint-names-add-library "hint: 'expf' is libm's: objrt_add_library\(ctx, \"m\"\)" \
    $OBJRT run -e tvmgen_default_fused_sigmoid_tanh "$TMP/math.o"

# --- item 4: -o DIR made as mkdir -p, checked before anything runs
rm -rf "$TMP/o1"
out=$($OBJRT call "$TMP/math.o" -f tvmgen_default_fused_sigmoid_tanh --in "$D/x.npy" --out 'y=float32[1000]' -o "$TMP/o1/a/b" 2>&1)
[ -f "$TMP/o1/a/b/y.npy" ] && pass outdir-created-mkdir-p || fail "outdir-created-mkdir-p: $(oneline "$out")"
: >"$TMP/afile"
# --repeat 1000000000 would take minutes: the check must come before the first call
out=$(timeout 20 $OBJRT call "$TMP/math.o" -f tvmgen_default_fused_sigmoid_tanh --in "$D/x.npy" \
    --out 'y=float32[1000]' --repeat 1000000000 -o "$TMP/afile" 2>&1); rc=$?
if [ $rc = 125 ] && grep -q -- "-o $TMP/afile: exists and is not a directory" <<<"$out"
then pass outdir-not-a-directory-before-running; else fail "outdir-not-a-directory-before-running: exit $rc: $(oneline "$out")"; fi
expect_fail outdir-under-a-file "-o $TMP/afile/x: Not a directory" \
    $OBJRT call "$TMP/math.o" -f tvmgen_default_fused_sigmoid_tanh -o "$TMP/afile/x"
# --- item 1: AOT entries of every release called by their own convention
kernel aot08 aot08.c
kernel aot08x aot08.c -DNO_MARKER
AOTIO=("$D/a.npy" "$D/b.npy" -- output="$D/o_t.npy")
AOTARGS=(--in "$D/a.npy" --in "$D/b.npy" --out 'output=float32[4,16]')
native aot08 packed tvmgen_default_run "$TMP/aot08.o" "${AOTIO[@]}" && pass aot08-native-packed \
    || fail "aot08-native-packed: the native link of the packed entry failed"
call_ok aot08-packed-run-by-unit aot "$TMP/aot08.o" -f tvmgen_default_run "${AOTARGS[@]}"
native aot08 unpacked tvmgen_default_run_model "$TMP/aot08.o" "${AOTIO[@]}" && pass aot08-native-run-model \
    || fail "aot08-native-run-model: the native link of run_model failed"
call_ok aot08-run-model-unpacked aot "$TMP/aot08.o" -f tvmgen_default_run_model "${AOTARGS[@]}"
call_ok aot08-unpacked-flag aot "$TMP/aot08.o" --unpacked -f tvmgen_default_run_model "${AOTARGS[@]}"
expect_fail aot-ambiguous-refused-naming-choices "cannot tell which AOT interface.*neither.*--packed.*--aot.*--unpacked" \
    $OBJRT call "$TMP/aot08x.o" -f tvmgen_default_run "${AOTARGS[@]}"
native aot08x packed tvmgen_default_run "$TMP/aot08x.o" "${AOTIO[@]}" >/dev/null
call_ok aot-ambiguous-packed-flag-runs aot "$TMP/aot08x.o" --packed -f tvmgen_default_run "${AOTARGS[@]}"

# --- a fatal signal in a kernel: objrt run's report, and the signal's status
if [ -z "$SAN" ]; then
    kernel crash crash_kernel.c -g
    out=$($OBJRT call "$TMP/crash.o" -f faulting_kernel -o "$TMP" 2>&1); rc=$?
    grep -Eq '^objrt: SIGSEGV at .*crash.o:faulting_kernel\+0x[0-9a-f]+' <<<"$out" && pass crash-in-kernel-reported \
        || fail "crash-in-kernel-reported: $(oneline "$out")"
    [ $rc = 139 ] && pass crash-in-kernel-signal-status || fail "crash-in-kernel-signal-status: exit $rc, expected 139"
fi
exit 0

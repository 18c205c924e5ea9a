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

[ -z "$SAN" ] && expect math-capi-hint-names-add-library   # ASan's runtime brings libm in
expect math-libm-by-default math-native-link \
    outdir-created-mkdir-p outdir-not-a-directory-before-running outdir-under-a-file
expect_harness math-libm-by-default-wrong-reference-detected
expect aot08-capi-run-refused aot08-capi-run-model-unpacked
expect aot08-native-packed aot08-native-run-model aot08-packed-run-by-unit aot08-run-model-unpacked \
    aot08-unpacked-flag aot-ambiguous-refused-naming-choices aot-ambiguous-packed-flag-runs
expect_harness aot08-packed-run-by-unit-wrong-reference-detected \
    aot08-run-model-unpacked-wrong-reference-detected aot08-unpacked-flag-wrong-reference-detected \
    aot-ambiguous-packed-flag-runs-wrong-reference-detected
expect inout-written-back inout-input-file-untouched inout-without-flag-not-written \
    align-kernel-asserting-128 align-check-refuses-64-mod-128 align-check-accepts-128 \
    align-unchecked-kernel-refuses-64-mod-128 dtype-numpy-spellings dtype-big-endian-refused \
    arg-error-names-missing-out arg-error-names-files-and-dtypes list-functions-and-abi \
    list-aot-entries did-you-mean did-you-mean-none-when-far
expect_harness inout-written-back-wrong-reference-detected align-kernel-asserting-128-wrong-reference-detected
expect graph-linked-params graph-param-never-set-fails graph-linked-params-overridden-by-set-input
expect_harness graph-linked-params-wrong-reference-detected
expect crt-registry-f-by-name crt-registry-0.7-one-byte-count crt-registry-runtime-systemlib \
    crt-registry-bad-pointer-refused crt-registry-listed headers-old-tvmarray-ctx headers-compile-alone
expect_harness crt-registry-f-by-name-wrong-reference-detected \
    crt-registry-0.7-one-byte-count-wrong-reference-detected headers-old-tvmarray-ctx-wrong-reference-detected
[ "$TARGET:$SAN" = x86_64: ] && expect crt-registry-python
[ -z "$SAN" ] && expect crt-registry-f-by-name-native-link
expect archive-loaded-whole archive-long-member-name tar-export-library tar-c-source-explained \
    archive-native-whole-archive
expect_harness archive-loaded-whole-wrong-reference-detected tar-export-library-wrong-reference-detected \
    archive-long-member-name-wrong-reference-detected
expect npz-in-stored npz-in-deflated npz-out npz-graph-in-and-out npz-crc-mismatch-refused \
    npz-out-is-a-zip-numpy-reads
expect_harness npz-in-stored-wrong-reference-detected npz-in-deflated-wrong-reference-detected
[ "$TARGET:$SAN" = x86_64: ] && expect examples-tvm-demo
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
    # npy.c is the CLI's, which opens files through base/ (objrt_fopen_regular): internals
    INTERNALS=1 build_prog "$n-native-build" "$TMP/native-$n" "$S/native.c" "$ROOT/src/cli/npy.c" "$obj" \
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
[ -z "$SAN" ] && expect_fail math-capi-hint-names-add-library "hint: 'expf' is libm's: objrt_add_library\(ctx, \"m\"\)" \
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

# --- item 7: --inout hands an in-place update back
kernel inplace inplace_kernel.c
cp "$D/st.npy" "$TMP/st-before.npy"
call_ok inout-written-back inplace "$TMP/inplace.o" -f scale_in_place --inout "$D/st.npy" --out 's=float32[1]'
cmp -s "$D/st.npy" "$TMP/st-before.npy" && pass inout-input-file-untouched \
    || fail "inout-input-file-untouched: --inout rewrote its input file outside -o DIR"
rm -f "$D"/objrt/*.npy
$OBJRT call "$TMP/inplace.o" -f scale_in_place --in "$D/st.npy" --out 's=float32[1]' -o "$D/objrt" >/dev/null 2>&1
[ ! -e "$D/objrt/st.npy" ] && [ -e "$D/objrt/s.npy" ] && pass inout-without-flag-not-written \
    || fail "inout-without-flag-not-written: --in was written out, or the call failed"

# --- item 8: tensor data 128-byte aligned, and OBJRT_CHECK_ALIGN checks 128
kernel align align_kernel.c
call_ok align-kernel-asserting-128 align "$TMP/align.o" -f add_one_aligned128 --in "$D/x16.npy" --out 'y=float32[16]'
if build_prog align-host-build "$TMP/align_host" "$S/align_host.c"; then
    out=$(OBJRT_CHECK_ALIGN=1 $RUN "$TMP/align_host" "$TMP/align.o" 64 2>&1)
    grep -q "not 128-byte aligned" <<<"$out" && ! grep -q "^ok" <<<"$out" && pass align-check-refuses-64-mod-128 \
        || fail "align-check-refuses-64-mod-128: $(oneline "$out")"
    out=$(OBJRT_CHECK_ALIGN=1 $RUN "$TMP/align_host" "$TMP/align.o" 0 2>&1)
    [ "$out" = ok ] && pass align-check-accepts-128 || fail "align-check-accepts-128: $(oneline "$out")"
    out=$($RUN "$TMP/align_host" "$TMP/align.o" 64 2>&1)
    grep -q "add_one_aligned128: tensor data is not 128-byte aligned" <<<"$out" && pass align-unchecked-kernel-refuses-64-mod-128 \
        || fail "align-unchecked-kernel-refuses-64-mod-128: $(oneline "$out")"
fi

# --- item 7: numpy's dtype spellings; argument errors tied to the command line
ok=
for dt in f4 '<f4' '=f4' single float32; do
    $OBJRT call "$TMP/align.o" -f add_one_aligned128 --in "$D/x16.npy" --out "y=$dt[16]" -o "$D/objrt" >/dev/null 2>&1 || ok="$ok $dt"
done
for dt in float double f8 int '<i8' '?' u1; do   # numpy: float is float64, int int64
    rm -f "$D/objrt/y.npy"
    $OBJRT call "$TMP/align.o" -f add_one_aligned128 --in "$D/x16.npy" --out "y=$dt[16]" -o "$D/objrt" >/dev/null 2>&1
    [ "$($PY -c 'import sys, numpy; print(numpy.load(sys.argv[1]).dtype)' "$D/objrt/y.npy" 2>&1)" = \
      "$($PY -c 'import sys, numpy; print(numpy.dtype(sys.argv[1]))' "$dt")" ] || ok="$ok $dt"
done
[ -z "$ok" ] && pass dtype-numpy-spellings || fail "dtype-numpy-spellings: not taken as numpy does:$ok"
expect_fail dtype-big-endian-refused "--out y=>f4\[16\]: unknown DTYPE" $OBJRT call "$TMP/align.o" -f add_one_aligned128 --out 'y=>f4[16]'
expect_fail arg-error-names-missing-out "scale_in_place takes 2 tensor arguments, the command line gives 1 \(1 --in, 0 --out\)" \
    $OBJRT call "$TMP/inplace.o" -f scale_in_place --in "$D/st.npy" -o "$D/objrt"
expect_fail arg-error-names-files-and-dtypes "arg 0 = --in $D/x.npy \(float32\[1000\]\); arg 1 = --out y=int8\[3\] \(int8\[3\]\)" \
    $OBJRT call "$TMP/aot08.o" -f tvmgen_default_run --in "$D/x.npy" --out 'y=int8[3]' -o "$D/objrt"

# --- item 7: --list and did-you-mean
out=$($OBJRT call "$TMP/inplace.o" --list 2>&1)
grep -Eq '^scale_in_place +packed' <<<"$out" && pass list-functions-and-abi || fail "list-functions-and-abi: $(oneline "$out")"
out=$($OBJRT call "$TMP/aot08.o" --list 2>&1)
grep -Eq '^tvmgen_default_run +packed' <<<"$out" && grep -Eq '^tvmgen_default_run_model +unpacked' <<<"$out" \
    && pass list-aot-entries || fail "list-aot-entries: $(oneline "$out")"
expect_fail did-you-mean "did you mean 'scale_in_place'" $OBJRT call "$TMP/inplace.o" -f scale_inplace
out=$($OBJRT call "$TMP/inplace.o" -f zzz 2>&1)
grep -q "did you mean" <<<"$out" && fail "did-you-mean-none-when-far: $(oneline "$out")" || pass did-you-mean-none-when-far

# --- item 2: a link-params graph's weights come from _lookup_linked_param; none unset
kernel glp graph_lp.c
kernel glpx graph_lp.c -DNO_LINKED
call_ok graph-linked-params graph_lp "$TMP/glp.o" --graph "$D/g_lp.json" --in "x=$D/x16.npy"
expect_fail graph-param-never-set-fails "input 'p0' \(node 1\) was never set" \
    $OBJRT call "$TMP/glpx.o" --graph "$D/g_lp.json" --in "x=$D/x16.npy" -o "$D/objrt"
# set_input after the linked copy wins, as in TVM: p0 = x gives relu(2x) * 2 != the reference
$OBJRT call "$TMP/glp.o" --graph "$D/g_lp.json" --in "x=$D/x16.npy" --in "p0=$D/x16.npy" -o "$D/objrt" >/dev/null 2>&1
if [ -f "$D/objrt/output_0.npy" ] && ! $PY "$S/ref.py" check "$D" graph_lp >/dev/null 2>&1
then pass graph-linked-params-overridden-by-set-input; else fail graph-linked-params-overridden-by-set-input; fi

# --- items 5 and 6: a CRT system library's registry, compiled against objrt's TVM headers
# only (include/objrt, as installed: -I$PREFIX/include/objrt), as are 0.6-style TVMArray code
HFLAGS="-O2 -std=c11 -fPIC -Wall -Wextra -Werror -I$ROOT/include/objrt"
hkernel() { local n=$1 src=$2; shift 2; $GCC $HFLAGS "$@" -c "$S/$src" -o "$TMP/$n.o" 2>"$TMP/$n.log" || cat "$TMP/$n.log"; }
hkernel crt crt_syslib.c
hkernel crt8 crt_syslib.c -DCOUNT8
hkernel crtbad crt_syslib.c -DBAD_PTR
hkernel old old_tvmarray.c
n=0; for h in c_runtime_api.h c_backend_api.h crt/module.h crt/func_registry.h metadata_types.h; do
    printf '#include <tvm/runtime/%s>\nint main(void) { return 0; }\n' "$h" >"$TMP/h.c"
    $GCC -std=c11 -Wall -Wextra -Werror -I"$ROOT/include/objrt" -c "$TMP/h.c" -o "$TMP/h.o" 2>>"$TMP/h.log" && n=$((n + 1))
done
[ $n = 5 ] && pass "headers-compile-alone (5 headers)" || fail "headers-compile-alone: $(head -c 300 "$TMP/h.log")"
X16=(--in "$D/x16.npy" --in "$D/x16.npy" --out 'z=float32[16]')
if [ -z "$SAN" ]; then
    if native crt packed crt_axpy "$TMP/crt.o" "$D/x16.npy" "$D/x16.npy" -- z="$D/y16_t.npy"
    then pass crt-registry-f-by-name-native-link; else fail "crt-registry-f-by-name-native-link: failed"; fi
fi
call_ok crt-registry-f-by-name crt_axpy "$TMP/crt.o" -f crt_axpy "${X16[@]}"
rm -f "$D"/native/*.npy
call_ok crt-registry-0.7-one-byte-count crt_neg "$TMP/crt8.o" -f crt_neg --in "$D/x16.npy" --out 'y=float32[16]'
expect_fail crt-registry-bad-pointer-refused "TVMSystemLibEntryPoint\(\): function 1 \('crt_neg'\) does not point into the unit's code" \
    $OBJRT call "$TMP/crtbad.o" -f crt_axpy "${X16[@]}" -o "$D/objrt"
out=$($OBJRT call "$TMP/crt.o" --list 2>&1)
grep -Eq '^crt_neg +packed \(system-lib registration\)' <<<"$out" && ! grep -q TVMSystemLibEntryPoint <<<"$out" \
    && pass crt-registry-listed || fail "crt-registry-listed: $(oneline "$out")"
if build_prog crt-host-build "$TMP/crt_host" "$S/crt_host.c"; then
    out=$($RUN "$TMP/crt_host" "$TMP/crt.o" crt_axpy 2>&1)
    [ "$out" = "ok 0 7.5" ] && pass crt-registry-runtime-systemlib || fail "crt-registry-runtime-systemlib: $(oneline "$out")"
fi
if [ "$TARGET:$SAN" = x86_64: ]; then
    out=$(PYTHONPATH="$ROOT/python" OBJRT_LIBRARY="$ROOT/$BUILD/libobjrt.so" $PY -c '
import sys, numpy as np, objrt
u = objrt.Context().load(sys.argv[1])
x = np.arange(16, dtype=np.float32); z = np.zeros(16, np.float32)
u.packed("crt_axpy")(x, x, z)
print("ok" if (z == np.float32(3) * x + x).all() else "wrong %s" % z)' "$TMP/crt.o" 2>&1)
    [ "$out" = ok ] && pass crt-registry-python || fail "crt-registry-python: $(oneline "$out")"
fi
call_ok headers-old-tvmarray-ctx old_scale "$TMP/old.o" -f old_scale --in "$D/x16.npy" --out 'y=float32[16]'

# --- item 7: TVM's packaging: static archives (linked whole) and export_library's tar
rm -rf "$TMP/pk" && mkdir -p "$TMP/pk"
cp "$TMP/aot08.o" "$TMP/pk/lib0.o"; cp "$TMP/math.o" "$TMP/pk/devc.o"
cp "$TMP/aot08.o" "$TMP/pk/tvmgen_default_lib0_long_name.o"
ar rcs "$TMP/model.a" "$TMP/pk/devc.o" "$TMP/pk/lib0.o"
ar rcs "$TMP/long.a" "$TMP/pk/devc.o" "$TMP/pk/tvmgen_default_lib0_long_name.o"
(cd "$TMP/pk" && tar cf "$TMP/model.tar" lib0.o devc.o)
printf 'int f(void) { return 0; }\n' >"$TMP/pk/lib0.c"
(cd "$TMP/pk" && tar cf "$TMP/csrc.tar" lib0.c)
# nothing references tvmgen_default_run: ld's rule would pull no member
rm -f "$D"/native/*.npy
if INTERNALS=1 build_prog archive-native-build "$TMP/native-archive" "$S/native.c" "$ROOT/src/cli/npy.c" \
    -- -I"$ROOT/src/cli" -DENTRY=tvmgen_default_run -Wl,--whole-archive "$TMP/model.a" -Wl,--no-whole-archive -lm &&
    $RUN "$TMP/native-archive" packed "$D/native" "${AOTIO[@]}"
then pass archive-native-whole-archive; else fail "archive-native-whole-archive: the native --whole-archive link failed"; fi
call_ok archive-loaded-whole aot "$TMP/model.a" -f tvmgen_default_run "${AOTARGS[@]}"
call_ok archive-long-member-name aot "$TMP/long.a" -f tvmgen_default_run_model "${AOTARGS[@]}"
call_ok tar-export-library aot "$TMP/model.tar" -f tvmgen_default_run "${AOTARGS[@]}"
expect_fail tar-c-source-explained "csrc.tar: lib0.c is C source \(export_library of a \"c\" target\): compile it" \
    $OBJRT call "$TMP/csrc.tar" -f f -o "$D/objrt"

# --- item 7: .npz in and out, as np.savez and tvmc run use them
call_ok npz-in-stored aot "$TMP/aot08.o" -f tvmgen_default_run --in "$D/ab.npz" --out 'output=float32[4,16]'
call_ok npz-in-deflated aot "$TMP/aot08.o" -f tvmgen_default_run --in "$D/abz.npz" --out 'output=float32[4,16]'
rm -rf "$TMP/npzout" "$D"/objrt/*.npy
out=$($OBJRT call "$TMP/aot08.o" -f tvmgen_default_run "${AOTARGS[@]}" -o "$TMP/npzout/res.npz" 2>&1)
if [ -f "$TMP/npzout/res.npz" ] && $PY "$S/ref.py" unnpz "$TMP/npzout/res.npz" "$D/objrt" 2>/dev/null &&
   $PY "$S/ref.py" check "$D" aot >/dev/null 2>&1; then pass npz-out; else fail "npz-out: $(oneline "$out")"; fi
unzip -tq "$TMP/npzout/res.npz" >/dev/null 2>&1 || $PY -c 'import sys, zipfile; sys.exit(zipfile.ZipFile(sys.argv[1]).testzip() is not None)' "$TMP/npzout/res.npz" \
    && pass npz-out-is-a-zip-numpy-reads || fail "npz-out-is-a-zip-numpy-reads: the archive fails its CRC test"
rm -f "$D"/objrt/*.npy
out=$($OBJRT call "$TMP/glp.o" --graph "$D/g_lp.json" --in "$D/gx.npz" -o "$TMP/npzout/g.npz" 2>&1)
if $PY "$S/ref.py" unnpz "$TMP/npzout/g.npz" "$D/objrt" 2>/dev/null && $PY "$S/ref.py" check "$D" graph_lp >/dev/null 2>&1
then pass npz-graph-in-and-out; else fail "npz-graph-in-and-out: $(oneline "$out")"; fi
expect_fail npz-crc-mismatch-refused "--in $D/bad_crc.npz: member a.npy: CRC-32 mismatch" \
    $OBJRT call "$TMP/aot08.o" -f tvmgen_default_run --in "$D/bad_crc.npz" --out 'output=float32[4,16]' -o "$D/objrt"

# --- item 9: the examples/tvm model make demo runs (AOT and graph, against numpy)
if [ "$TARGET:$SAN" = x86_64: ]; then
    out=$(bash "$ROOT/examples/tvm/run.sh" "$BUILD" 2>&1)
    tail -n 1 <<<"$out" | grep -q '^tvm demo: all results correct$' && pass examples-tvm-demo \
        || fail "examples-tvm-demo: $(oneline "$out")"
fi

# --- item 1 in the C API: objrt_aot_run refuses 0.8's packed run; _unpacked calls run_model
if build_prog aot-host-build "$TMP/aot_host" "$S/aot_host.c"; then
    out=$($RUN "$TMP/aot_host" "$TMP/aot08.o" 2>&1)
    grep -q "^refused: objrt_aot_run: 'tvmgen_default_run' is TVM 0.8's packed entry" <<<"$out" \
        && pass aot08-capi-run-refused || fail "aot08-capi-run-refused: $(oneline "$out")"
    grep -q "^ok$" <<<"$out" && pass aot08-capi-run-model-unpacked || fail "aot08-capi-run-model-unpacked: $(oneline "$out")"
fi
# (objrt_aot_run on the >= 0.9 shape: 55-tvm-host's capi-aot cases)

# --- a fatal signal in a kernel: objrt run's report, and the signal's status
if [ -z "$SAN" ]; then
    kernel crash crash_kernel.c -g
    out=$($OBJRT call "$TMP/crash.o" -f faulting_kernel -o "$TMP" 2>&1); rc=$?
    grep -Eq '^objrt: SIGSEGV at .*crash.o:faulting_kernel\+0x[0-9a-f]+' <<<"$out" && pass crash-in-kernel-reported \
        || fail "crash-in-kernel-reported: $(oneline "$out")"
    [ $rc = 139 ] && pass crash-in-kernel-signal-status || fail "crash-in-kernel-signal-status: exit $rc, expected 139"
fi
exit 0

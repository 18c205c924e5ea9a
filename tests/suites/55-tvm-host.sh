#!/usr/bin/env bash
# TVM host side (issue 12): `objrt call` on TVM-shaped kernels (C and llvmlite IR: system-lib,
# DSO mode, __tvm_main__, AOT C interface), TVM's C host API from a host program, .npy
# reading and writing, every error with its negative control, hostile .npy files.
# Results are compared with numpy (tests/tvm/ref.py). x86_64: and x86_64:asan run everything;
# aarch64: runs the same under qemu.
. tests/lib.sh
case "$TARGET:$SAN" in
    x86_64:|x86_64:asan|aarch64:) ;;
    *) exit 0 ;;
esac
PY=/usr/bin/python3
T=$BUILD/tests/tvm
if ! out=$(make -s --no-print-directory TARGET="$TARGET" SAN="$SAN" all tvm-tests 2>&1); then
    fail "tvm-build: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
    exit 0
fi
if ! $PY -c 'import numpy' 2>/dev/null; then
    fail "tvm-numpy: $PY cannot import numpy (scripts/install-deps.sh installs python3-numpy)"
    exit 0
fi
export ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}"
D=$TMP/data
mkdir -p "$D"
$PY tests/tvm/ref.py inputs "$D" || { fail "tvm-inputs: ref.py inputs failed"; exit 0; }
H=$TMP/hostile
mkdir -p "$H"
$PY tests/tvm/ref.py hostile "$H" >"$H/list"
$PY tests/tvm/ref.py graph "$D"

# --- every case, declared before anything runs (tests/lib.sh)
calls=(call-syslib-add call-syslib-tvm-main call-syslib-matmul-workspace call-npy-format-2.0 \
    call-dso-tvm-main-int32 call-dso-bool-float64-workspace call-aot-c-three-operators call-ir-syslib-prefix \
    call-ir-syslib-prefixed-name call-ir-syslib-tvm-main call-ir-dso-slots-workspace call-ir-aot-three-operators \
    call-graph-executor)
errors=(err-kernel-wrong-dtype err-kernel-wrong-shape err-kernel-wrong-ndim err-kernel-wrong-out-dtype \
    err-kernel-own-message err-fortran-order err-object-array err-missing-function \
    err-no-tvm-main err-missing-npy err-out-bad-dtype err-out-bad-shape \
    err-out-name-path err-out-too-large err-out-dir-missing err-graph-missing-function \
    err-graph-params-shape err-graph-kernel-fails err-graph-input-wrong-shape err-graph-input-unnamed \
    err-graph-with-out err-repeat-zero err-unknown-option err-load-failure)
expect "${calls[@]}" "${errors[@]}" npy-roundtrip-every-dtype call-repeat-median
expect_harness "${calls[@]/%/-wrong-reference-detected}" npy-roundtrip-every-dtype-wrong-reference-detected
while IFS=$'\t' read -r n _; do expect "npy-hostile-$n"; done <"$H/list"
[ "$TARGET" = x86_64 ] && expect npy-truncated-at-every-byte npy-random-corruptions
for mode in syslib unit aot; do
    expect "capi-$mode" "capi-$mode-vs-numpy"
    expect_harness "capi-$mode-vs-numpy-wrong-reference-detected"
done
expect graph-create-load-run graph-one-output graph-set-input-wrong-dtype graph-set-input-unknown \
    graph-run-again graph-vs-numpy
expect_harness graph-vs-numpy-wrong-reference-detected
while IFS=$'\t' read -r _ g p _; do expect "graph-error-${g%.json}-${p%.bin}"; done <"$D/g_bad.tsv"

# call_ok NAME CASE ARGS...: objrt call succeeds and its outputs match numpy (ref.py CASE);
# HARNESS NAME-wrong-reference-detected: the same comparison fails against a wrong reference.
call_ok() {
    local name=$1 case=$2 out; shift 2
    rm -f "$D"/{c,mc,y,ym,ao,z,ys,io,output_0}.npy   # no stale output may pass
    if ! out=$(timeout 120 $OBJRT call "$@" -o "$D" 2>&1); then
        fail "$name: objrt call failed: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"; return
    fi
    if grep -Eq 'Sanitizer|runtime error:' <<<"$out"; then
        fail "$name: sanitizer report: $(grep -Em1 'Sanitizer|runtime error:' <<<"$out")"; return
    fi
    if ! out=$($PY tests/tvm/ref.py check "$D" "$case" 2>&1); then fail "$name: $out"; return; fi
    pass "$name"
    control "$name" "$case"
}
# control NAME CASE: the comparison of CASE must fail against a wrong reference.
control() {
    if $PY tests/tvm/ref.py check "$D" "$2" --control >/dev/null 2>&1; then
        hfail "$1-wrong-reference-detected: ref.py check accepted a wrong reference"
    else hpass "$1-wrong-reference-detected"; fi
}
# call_err NAME EXIT PATTERN ARGS...: objrt call exits with EXIT and prints PATTERN.
# -o is $D unless CALL_O names another (a second -o would be refused as a contradiction).
call_err() {
    local name=$1 want=$2 pat=$3 out rc; shift 3
    out=$(timeout 120 $OBJRT call -o "${CALL_O:-$D}" "$@" 2>&1); rc=$?
    if [ "$rc" != "$want" ]; then fail "$name: exit $rc, expected $want: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
    elif ! grep -Eq -- "$pat" <<<"$out"; then fail "$name: message did not match '$pat': $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
    elif grep -Eq 'Sanitizer|runtime error:' <<<"$out"; then fail "$name: sanitizer report"
    else pass "$name"; fi
}

# --- results against numpy: C kernels
call_ok call-syslib-add add $T/tvm_syslib.o -f add --in $D/a.npy --in $D/b.npy --out c=float32[1000]
call_ok call-syslib-tvm-main add $T/tvm_syslib.o --in $D/a.npy --in $D/b.npy --out c=float32[1000]
call_ok call-syslib-matmul-workspace matmul $T/tvm_syslib.o -f matmul --in $D/ma.npy --in $D/mb.npy --out mc=float32[33,9]
call_ok call-npy-format-2.0 add_v2 $T/tvm_syslib.o -f add --in $D/a_v2.npy --in $D/b.npy --out c=float32[1000]
call_ok call-dso-tvm-main-int32 affine $T/tvm_dso.o --in $D/x.npy --out y=int32[1000]
call_ok call-dso-bool-float64-workspace mask $T/tvm_dso.o -f mask_f64 --in $D/xf.npy --in $D/m.npy --out ym=float64[1000]
call_ok call-aot-c-three-operators aot_c $T/tvm_aot.o -f tvmgen_default_run --in $D/aa.npy --in $D/ab.npy --out ao=float32[4,16]
rt_args=()
for t in bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; do
    rt_args+=("$t")
done
rt_fail=
for t in "${rt_args[@]}"; do
    $OBJRT call $T/tvm_dso.o -f copy_bytes --in $D/rt_$t.npy --out y_$t=$t[3,4,5] -o "$D" 2>/dev/null || rt_fail="$rt_fail $t"
done
$OBJRT call $T/tvm_dso.o -f copy_bytes --in $D/rt0_float64.npy --out "y0=float64[]" -o "$D" 2>/dev/null || rt_fail="$rt_fail 0-d"
$OBJRT call $T/tvm_dso.o -f copy_bytes --in $D/rte_int16.npy --out "ye=int16[0,7]" -o "$D" 2>/dev/null || rt_fail="$rt_fail empty"
if [ -n "$rt_fail" ]; then fail "npy-roundtrip-every-dtype: objrt call failed for$rt_fail"
elif ! out=$($PY tests/tvm/ref.py check "$D" roundtrip 2>&1); then fail "npy-roundtrip-every-dtype: $out"
else pass npy-roundtrip-every-dtype; control npy-roundtrip-every-dtype roundtrip; fi

# --- results against numpy: LLVM IR through llvmlite (TVM's LLVM backend layout)
call_ok call-ir-syslib-prefix scale_add $T/ir_syslib.o -f scale_add --in $D/a.npy --in $D/b.npy --out z=float32[1000]
call_ok call-ir-syslib-prefixed-name scale_add $T/ir_syslib.o -f irlib_scale_add --in $D/a.npy --in $D/b.npy --out z=float32[1000]
call_ok call-ir-syslib-tvm-main scale_add $T/ir_syslib.o --in $D/a.npy --in $D/b.npy --out z=float32[1000]
call_ok call-ir-dso-slots-workspace softsign $T/ir_dso.o --in $D/s.npy --out ys=float32[1000]
call_ok call-ir-aot-three-operators aot_ir $T/ir_aot.o -f tvmgen_default_run --in $D/ia.npy --in $D/ib.npy --out io=float32[8,8]

# --- the graph executor from the CLI (the C API is tested below)
call_ok call-graph-executor graph_cli $T/tvm_graph.o --graph $D/g_graph.json --params $D/g_params.bin --in x=$D/gx.npy

# --- errors name the argument; each next to the passing call above as its control
call_err err-kernel-wrong-dtype 1 'add failed: add.A.dtype is expected to be float32' \
    $T/tvm_syslib.o -f add --in $D/a_f64.npy --in $D/b.npy --out c=float32[1000]
call_err err-kernel-wrong-shape 1 'add.B.shape\[0\] has an unsatisfied constraint' \
    $T/tvm_syslib.o -f add --in $D/a.npy --in $D/a_short.npy --out c=float32[1000]
call_err err-kernel-wrong-ndim 1 'add.A.ndim is expected to equal 1' \
    $T/tvm_syslib.o -f add --in $D/a_2d.npy --in $D/b.npy --out c=float32[1000]
call_err err-kernel-wrong-out-dtype 1 'softsign.Y.dtype is expected to be float32' \
    $T/ir_dso.o --in $D/s.npy --out ys=float64[1000]
call_err err-kernel-own-message 1 "always_fails failed: always_fails: the kernel's own message \(42\)" \
    $T/tvm_dso.o -f always_fails --in $D/a.npy
call_err err-fortran-order 125 "--in .*fortran.npy: fortran_order is True" \
    $T/tvm_syslib.o -f matmul --in $D/fortran.npy --in $D/mb.npy --out mc=float32[33,9]
call_err err-object-array 125 "--in .*object.npy: object array" \
    $T/tvm_dso.o -f copy_bytes --in $D/object.npy --out y=int64[2]
call_err err-missing-function 127 "-f no_such_kernel: the unit neither registers nor defines" \
    $T/tvm_syslib.o -f no_such_kernel --in $D/a.npy
call_err err-no-tvm-main 127 'no -f FUNC given and no usable __tvm_main__' \
    $T/tvm_aot.o --in $D/aa.npy
call_err err-missing-npy 125 "--in $D/nope.npy: No such file" \
    $T/tvm_syslib.o -f add --in $D/nope.npy
call_err err-out-bad-dtype 125 "--out c=float33\[4\]: unknown DTYPE" \
    $T/tvm_syslib.o -f add --out 'c=float33[4]'
call_err err-out-bad-shape 125 "--out c=float32\[4,-1\]: SHAPE" \
    $T/tvm_syslib.o -f add --out 'c=float32[4,-1]'
call_err err-out-name-path 125 "--out ../c=float32\[4\]: NAME may use" \
    $T/tvm_syslib.o -f add --out '../c=float32[4]'
call_err err-out-too-large 125 "--out c=float32\[4611686018427387904\]: .*overflow" \
    $T/tvm_syslib.o -f add --out 'c=float32[4611686018427387904]'
CALL_O=$D/a.npy/sub call_err err-out-dir-missing 125 "-o $D/a.npy/sub: Not a directory" \
    $T/tvm_syslib.o -f add --in $D/a.npy --in $D/b.npy --out 'c=float32[1000]'
call_err err-graph-missing-function 127 "--graph .*g_bad_func.json: graph: node 2 .*function 'fused_nope' is not in the module" \
    $T/tvm_graph.o --graph $D/g_bad_func.json
call_err err-graph-params-shape 125 "--params .*g_p_shape.bin: graph: input 'p0': shape \[8,4\] given, the graph has \[4,8\]" \
    $T/tvm_graph.o --graph $D/g_graph.json --params $D/g_p_shape.bin
call_err err-graph-kernel-fails 1 "node 5 \('tvmgen_default_fused_multiply', fused_fails\) failed: fused_fails: planted failure" \
    $T/tvm_graph.o --graph $D/g_fails.json --params $D/g_params.bin --in x=$D/gx.npy
call_err err-graph-input-wrong-shape 125 "--in x=.*a.npy: graph: input 'x': dtype|--in x=.*a.npy: graph: input 'x': shape \[1000\] given" \
    $T/tvm_graph.o --graph $D/g_graph.json --params $D/g_params.bin --in x=$D/a.npy
call_err err-graph-input-unnamed 125 "--in .*gx.npy: with --graph, inputs are NAME=FILE.npy" \
    $T/tvm_graph.o --graph $D/g_graph.json --in $D/gx.npy
call_err err-graph-with-out 125 "--graph takes no -f, --out" \
    $T/tvm_graph.o --graph $D/g_graph.json --out 'y=float32[4]'
call_err err-repeat-zero 125 "--repeat '0': too small; expected a whole number from 1 to" $T/tvm_syslib.o -f add --repeat 0
call_err err-unknown-option 125 "unknown option '--bogus'" $T/tvm_syslib.o --bogus
call_err err-load-failure 125 "objrt: .*a.npy" $D/a.npy -f add
out=$($OBJRT call $T/tvm_syslib.o -f add --in $D/a.npy --in $D/b.npy --out c=float32[1000] --repeat 200 -o "$D" 2>&1)
if grep -Eq '^add: median [0-9]+\.[0-9]{3} us per call \(min [0-9.]+ us; 200 calls in 200 timed batches\)$' <<<"$out"
then pass call-repeat-median; else fail "call-repeat-median: '$out'"; fi

# --- hostile .npy: each refused with its own message, exit 125, no crash; a cut at every
# byte of a valid file and random corruptions never crash (status 0, 1 or 125 only)
while IFS=$'\t' read -r n pat; do
    call_err "npy-hostile-$n" 125 "--in $H/h_$n.npy: .*($pat)" $T/tvm_dso.o -f copy_bytes --in "$H/h_$n.npy" --out y=float32[4]
done <"$H/list"
if [ "$TARGET" = x86_64 ]; then
    valid=$D/ma.npy; size=$(stat -c %s "$valid"); bad=
    for ((cut = 0; cut < size; cut++)); do
        head -c "$cut" "$valid" >"$H/cut.npy"
        out=$($OBJRT call $T/tvm_dso.o -f copy_bytes --in "$H/cut.npy" --out y=float32[33,17] -o "$H" 2>&1); rc=$?
        { [ "$rc" = 125 ] && grep -q -- "--in $H/cut.npy: " <<<"$out" && ! grep -q Sanitizer <<<"$out"; } || bad="$bad $cut:$rc"
    done
    # control: the uncut file is accepted
    if [ -z "$bad" ] && $OBJRT call $T/tvm_dso.o -f copy_bytes --in "$valid" --out y=float32[33,17] -o "$H" 2>/dev/null
    then pass "npy-truncated-at-every-byte ($size cuts)"
    else fail "npy-truncated-at-every-byte: wrong status or message at cut:status$bad (or the control failed)"; fi
    $PY tests/tvm/ref.py mutate "$H" 300 7
    bad=
    for ((i = 0; i < 300; i++)); do
        out=$($OBJRT call $T/tvm_dso.o -f copy_bytes --in "$H/m_$i.npy" --out y=float32[3,4] -o "$H" 2>&1); rc=$?
        case $rc in 0|1|125) grep -q Sanitizer <<<"$out" && bad="$bad $i:asan" ;; *) bad="$bad $i:$rc" ;; esac
    done
    if [ -z "$bad" ]; then pass "npy-random-corruptions (300)"; else fail "npy-random-corruptions: crashed on$bad"; fi
fi

# --- TVM's C host API: the system lib linked in (relinked TVM host program), a unit loaded
# by objrt, and the AOT entry; PASS/FAIL lines come from host_capi itself
for mode in syslib unit aot; do
    case $mode in
        syslib) prog=$T/host_syslib; files=() ;;
        unit) prog=$T/host_capi; files=("$T/tvm_syslib.o") ;;
        aot) prog=$T/host_capi; files=("$T/tvm_aot.o") ;;
    esac
    rm -f "$D"/{c,mc,ao}.bin
    out=$(timeout 120 $RUN "$prog" "$mode" "$D" "${files[@]}" 2>&1); rc=$?
    sed -n "s/^\(PASS\|FAIL\) capi-/\1 capi-$mode-/p" <<<"$out"
    if [ "$rc" -ne 0 ] || ! grep -q '^PASS ' <<<"$out"; then
        fail "capi-$mode: host_capi $(status_text "$rc"): $(tail -n 2 <<<"$out" | tr '\n' ' ')"
        [ "$rc" -gt 1 ] && continue
    else
        pass "capi-$mode"
    fi
    grep -Eq 'Sanitizer|runtime error:' <<<"$out" && fail "capi-$mode-sanitizer: $(grep -Em1 'Sanitizer|runtime error:' <<<"$out")"
    ref=capi; [ $mode = aot ] && ref=capi_aot
    if ! r=$($PY tests/tvm/ref.py check "$D" $ref 2>&1); then fail "capi-$mode-vs-numpy: $r"
    else pass "capi-$mode-vs-numpy"; control "capi-$mode-vs-numpy" $ref; fi
done

# --- graph executor: graph JSON + params + the unit's fused functions, against numpy; every
# malformed graph or params blob refused at its stage with its message
GU=$T/tvm_graph.o
rm -f "$D/gout.bin"
out=$(timeout 120 $RUN $T/host_graph ok "$D" g_graph.json g_params.bin - $GU 2>&1); rc=$?
grep -E '^(PASS|FAIL) ' <<<"$out"
grep -Eq 'Sanitizer|runtime error:' <<<"$out" && fail "graph-sanitizer: $(grep -Em1 'Sanitizer|runtime error:' <<<"$out")"
if ! r=$($PY tests/tvm/ref.py check "$D" graph 2>&1); then fail "graph-vs-numpy: host_graph $(status_text $rc): $r"
else pass graph-vs-numpy; control graph-vs-numpy graph; fi
while IFS=$'\t' read -r mode g p pat; do
    name="graph-error-${g%.json}-${p%.bin}"
    out=$(timeout 60 $RUN $T/host_graph "$mode" "$D" "$g" "$p" "$pat" $GU 2>&1); rc=$?
    if [ "$rc" = 0 ] && ! grep -Eq 'Sanitizer|runtime error:' <<<"$out"; then pass "$name"
    else fail "$name: $(status_text $rc): $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
done <"$D/g_bad.tsv"
exit 0

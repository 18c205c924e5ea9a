#!/usr/bin/env bash
# 39-start-stop: __start_SEC / __stop_SEC, as ld defines them for a section SEC whose name is
# a C identifier: a registry whose entries three objects put in section objrt_reg (one of
# them an archive member pulled by a reference), walked by main() from __start_objrt_reg to
# __stop_objrt_reg. stdout and exit status must equal the native link's (gcc and clang,
# default PIE and -fPIC objects). Control: __start_ of a section no object has stays
# undefined, natively and in objrt.
set -u
. tests/lib.sh

case "$TARGET:$SAN" in
x86_64:|aarch64:) ;;
*) exit 0 ;;
esac
F=tests/fixtures/startstop
W=$TMP
expect start-stop-registry-gcc start-stop-registry-clang-fpic start-stop-absent-section-undefined
expect_harness start-stop-compare-rejects-difference

# run_both NAME CC FLAGS: build the objects, link natively (rb.o from an archive) and by objrt
run_both() {
    local name=$1 cc=$2 flags=$3 d=$W/$1 f
    mkdir -p "$d"
    for f in ra rb rmain; do
        # shellcheck disable=SC2086
        $cc $flags -O2 -c "$F/$f.c" -o "$d/$f.o" || { fail "$name: cannot compile $f.c"; return; }
    done
    rm -f "$d/libreg.a"; ar rcs "$d/libreg.a" "$d/rb.o"
    (cd "$d" && $cc ra.o rmain.o libreg.a -o native) 2>"$d/ld.err" || { fail "$name: native link failed: $(tail -n 2 "$d/ld.err" | tr '\n' ' ')"; return; }
    $RUN "$d/native" >"$d/native.out" 2>&1; echo $? >"$d/native.rc"
    $OBJRT run "$d/ra.o" "$d/rmain.o" "$d/libreg.a" >"$d/objrt.out" 2>"$d/objrt.err"; echo $? >"$d/objrt.rc"
    if cmp -s "$d/native.out" "$d/objrt.out" && cmp -s "$d/native.rc" "$d/objrt.rc"; then pass "$name"
    else fail "$name: native '$(cat "$d/native.out")' status $(cat "$d/native.rc"), objrt '$(cat "$d/objrt.out")' status $(cat "$d/objrt.rc"): $(tail -n 2 "$d/objrt.err" | tr '\n' ' ')"; fi
}
run_both start-stop-registry-gcc "$GCC" ""
run_both start-stop-registry-clang-fpic "$CLANG" "-fPIC"

# the comparison must see a different output (the fixture's 15 against 14)
d=$W/start-stop-registry-gcc
if [ -f "$d/native.out" ] && sed 's/sum 15/sum 14/' "$d/native.out" | cmp -s - "$d/native.out"; then
    hfail "start-stop-compare-rejects-difference: a changed sum compared equal"
else hpass "start-stop-compare-rejects-difference"; fi

# control: no section objrt_none anywhere, so __start_objrt_none is undefined both ways
printf 'extern const char __start_objrt_none[];\nint main(void) { return __start_objrt_none[0]; }\n' >"$W/none.c"
$GCC -O2 -c "$W/none.c" -o "$W/none.o"
if (cd "$W" && $GCC none.o -o none-native) >"$W/none-ld.err" 2>&1; then
    fail "start-stop-absent-section-undefined: the native link defined __start_objrt_none"
else
    expect_fail start-stop-absent-section-undefined "undefined symbol '__start_objrt_none'" $OBJRT run "$W/none.o"
fi

#!/usr/bin/env bash
# 59-ffi-order (issue 39, item 1): libobjrt's own calls bind to libobjrt whatever the process
# loaded before it. libobjrt.so is linked -Bsymbolic-functions (Makefile SO_BIND) and uses
# its one exported data object under a hidden alias; the control is the same objects linked
# with SO_BIND= (the library as it was), under which the crash orders must crash.
#  - Debian 12, no tvm-ffi: a library defining objrt_set_last_error, or TVMFFIObjectIncRef,
#    linked before libobjrt must not receive libobjrt's own calls (tests/ffi_order/capture.c).
#  - the real tvm-ffi 0.1.12 in the sid root (scripts/numba-root.sh sid; its glibc 2.38 is
#    newer than Debian 12's, so the hosts run there under chroot): a C host linked
#    -ltvm_ffi -lobjrt and -lobjrt -ltvm_ffi loads a C unit (tests/ffi_order/funcs.c, built
#    with tvm-ffi's header) and calls test_add; objrt must use libtvm_ffi in both orders;
#    libtvm_ffi dlopened after objrt's first use leaves objrt on its own core; Python with
#    tvm_ffi imported before and after objrt prints what tvm-ffi prints loading the same
#    source built as a .so (tvm_ffi.load_module).
# Visibility (issue 38, item 4): libobjrt.a defines as global only what libobjrt.so exports
# (the public API; its internal names are local), and a host defining a function named like
# an internal one links statically with it (tests/ffi_order/clash.c; control: against
# libobjrt_internal.a, the objects as compiled, the same link fails).
. tests/lib.sh
[ "$TARGET:$SAN" = x86_64: ] || exit 0
D=$ROOT/tests/ffi_order
B=$ROOT/$BUILD
expect order-exports-bound-at-link order-capture-old-abi order-capture-ffi
expect_harness order-exports-bound-control order-capture-old-abi-control-crashes order-capture-ffi-control-crashes
expect visibility-archive-public-only visibility-host-internal-name-no-clash
expect_harness visibility-internal-archive-control visibility-clash-control
expect order-sid-root order-real-c-tvm_ffi-first order-real-c-objrt-first order-real-c-dlopen-after-first-use \
    order-real-py-tvm_ffi-first order-real-py-objrt-first
expect_harness order-real-c-tvm_ffi-first-control-crashes order-real-py-tvm_ffi-first-control-crashes

# The control library: the same objects linked without SO_BIND.
I=$TMP/interposable
if ! out=$(make -s --no-print-directory -C "$ROOT" SO_DIR="$I" SO_BIND= "$I/libobjrt.so" 2>&1); then
    fail "order-exports-bound-at-link: the control library did not link: $(oneline "$out")"
    exit 0
fi

# relocs LIB: the dynamic relocations of LIB that name a symbol LIB itself exports.
relocs() {
    readelf -rW "$1" | awk 'NR == FNR { own[$1] = 1; next } $5 != "" { n = $5; sub(/@.*/, "", n); if (n in own) c++ }
        END { print c + 0 }' <(nm -D --defined-only "$1" | awk '{ n = $3; sub(/@.*/, "", n); print n }') -
}
n=$(relocs "$B/libobjrt.so"); c=$(relocs "$I/libobjrt.so")
if [ "$n" = 0 ]; then pass "order-exports-bound-at-link (0 dynamic relocations name an exported symbol; $c without the flag)"
else fail "order-exports-bound-at-link: $n dynamic relocations of libobjrt.so name a symbol it exports"; fi
if [ "$c" -gt 0 ]; then hpass order-exports-bound-control; else hfail "order-exports-bound-control: the control library has none either"; fi

# --- Debian 12: a library before libobjrt defining one of its names
$GCC -c -fPIC -O2 -I"$ROOT/include" "$D/funcs.c" -o "$TMP/funcs.o"
for k in old ffi; do
    K=$(echo $k | tr a-z A-Z)
    mkdir -p "$TMP/$k"
    if ! $GCC -shared -fPIC -O2 -DCAPTURE_$K "$D/capture.c" -o "$TMP/$k/libcapture.so" 2>"$TMP/$k.log"; then
        fail "order-capture-$k-abi: $(oneline "$(cat "$TMP/$k.log")")"; continue
    fi
    if ! $GCC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -I"$ROOT/include" "$D/host.c" -Wl,--no-as-needed \
            -L"$TMP/$k" -lcapture -L"$B" -lobjrt -ldl -o "$TMP/$k/host" 2>"$TMP/$k.log"; then
        fail "order-capture-$k-abi: $(oneline "$(cat "$TMP/$k.log")")"; continue
    fi
    name=order-capture-$k; [ $k = old ] && name=order-capture-old-abi
    out=$(LD_LIBRARY_PATH="$TMP/$k:$B" timeout 60 "$TMP/$k/host" "$TMP/funcs.o" 2>&1); rc=$?
    want=$(printf '%s\n' "old-abi error: TVMFuncCall: null function handle" "external 0" "test_add 30" \
        "error TypeError: test_add expects two ints")
    if [ $rc = 0 ] && [ "$out" = "$want" ]; then pass "$name"
    else fail "$name: $(status_text $rc): $(oneline "$out")"; fi
    out=$(LD_LIBRARY_PATH="$TMP/$k:$I" timeout 60 "$TMP/$k/host" "$TMP/funcs.o" 2>&1); rc=$?
    if [ $rc = 134 ] && grep -q '^captured: ' <<<"$out"; then hpass "$name-control-crashes"
    else hfail "$name-control-crashes: without the flag: $(status_text $rc): $(oneline "$out")"; fi
done

# --- libobjrt.a: the public API only
globals() { readelf -sW "$1" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" { print $8 }' | sort -u; }
nm -D --defined-only "$B/libobjrt.so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$TMP/so-exports"
# The graph executor is a member of its own (Jansson only where it is used): the internal
# names it takes from the rest stay global there, hidden, and are the only ones allowed.
graph_needs=$(nm -u "$B/obj/src/runtime/graph.o" | awk '{ print $2 }' | sort -u)
readelf -sW "$B/libobjrt.a" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $6 == "HIDDEN" { print $8 }' |
    sort -u | comm -12 - <(printf '%s\n' "$graph_needs") >"$TMP/a-graph-hidden"
globals "$B/libobjrt.a" | comm -23 - "$TMP/a-graph-hidden" >"$TMP/a-globals"
globals "$B/libobjrt_internal.a" >"$TMP/int-globals"
if cmp -s "$TMP/so-exports" "$TMP/a-globals"; then
    pass "visibility-archive-public-only ($(wc -l <"$TMP/a-globals") global names, as libobjrt.so exports; hidden for graph.o: $(tr '\n' ' ' <"$TMP/a-graph-hidden"))"
else fail "visibility-archive-public-only: libobjrt.a vs libobjrt.so: $(diff "$TMP/so-exports" "$TMP/a-globals" | grep '^[<>]' | head -5 | tr '\n' ' ')"; fi
n=$(comm -23 "$TMP/int-globals" "$TMP/so-exports" | wc -l)
if [ "$n" -gt 100 ]; then hpass visibility-internal-archive-control
else hfail "visibility-internal-archive-control: libobjrt_internal.a has only $n internal globals"; fi
cl() { $GCC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -I"$ROOT/include" "$D/clash.c" "$1" -ldl -lpthread -ljansson -o "$2"; }
if ! out=$(cl "$B/libobjrt.a" "$TMP/clash" 2>&1); then fail "visibility-host-internal-name-no-clash: $(oneline "$out")"
else
    out=$(timeout 60 "$TMP/clash" "$TMP/funcs.o" 2>&1); rc=$?
    if [ $rc = 0 ] && [ "$out" = "host's objrt_strmap_find 42, test_add 30" ]; then pass visibility-host-internal-name-no-clash
    else fail "visibility-host-internal-name-no-clash: $(status_text $rc): $(oneline "$out")"; fi
fi
if out=$(cl "$B/libobjrt_internal.a" "$TMP/clash2" 2>&1); then hfail "visibility-clash-control: linked against libobjrt_internal.a"
elif grep -q "multiple definition of .objrt_strmap_find" <<<"$out"; then hpass visibility-clash-control
else hfail "visibility-clash-control: $(oneline "$out")"; fi

# --- the real tvm-ffi, in the sid root (copied in under $TMP: nothing to unmount)
if ! R=$(bash "$ROOT/scripts/numba-root.sh" sid 2>"$TMP/root.err"); then
    fail "order-sid-root: scripts/numba-root.sh sid failed: $(tail -n 3 "$TMP/root.err" | tr '\n' ' ')"
    exit 0
fi
W=$TMP
mkdir -p "$R$W/lib" "$R$W/control"
cp -r "$ROOT/include" "$ROOT/python" "$D"/*.c "$D"/*.py "$R$W/" && cp -P "$B"/libobjrt.so* "$R$W/lib/" &&
    cp -P "$I"/libobjrt.so* "$R$W/control/"
inroot() { timeout 120 chroot "$R" env -C "$W" "$@"; }
cc_host() {     # OUT LIBS...: host.c linked in the root with LIBS in that order
    local out=$1; shift
    inroot gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -Iinclude host.c -Wl,--no-as-needed "$@" -ldl -o "$out"
}
if ! out=$(inroot sh -c 'ls /usr/lib/libtvm_ffi.so.0 /usr/include/tvm/ffi/c_api.h' 2>&1 &&
        inroot gcc -c -fPIC -O2 -DREAL_TVM_FFI funcs.c -o funcs.o 2>&1 &&
        inroot gcc -shared -fPIC -O2 -DREAL_TVM_FFI funcs.c -o funcs.so -ltvm_ffi 2>&1 &&
        cc_host host_tf -ltvm_ffi -Llib -lobjrt 2>&1 && cc_host host_ft -Llib -lobjrt -ltvm_ffi 2>&1 &&
        cc_host host_late -Llib -lobjrt 2>&1); then
    fail "order-sid-root: building in $R: $(oneline "$out")"
    rm -rf "${R:?}$W"; exit 0
fi
pass "order-sid-root (tvm-ffi $(inroot python3 -c 'import tvm_ffi; print(tvm_ffi.__version__)' 2>&1))"

want_ext1=$(printf '%s\n' "old-abi error: TVMFuncCall: null function handle" "external 1" "test_add 30" \
    "error TypeError: test_add expects two ints")
for o in tvm_ffi-first:host_tf objrt-first:host_ft; do
    name=order-real-c-${o%%:*} h=${o#*:}
    out=$(inroot env LD_LIBRARY_PATH="$W/lib" "./$h" funcs.o 2>&1); rc=$?
    if [ $rc = 0 ] && [ "$out" = "$want_ext1" ]; then pass "$name"
    else fail "$name: $(status_text $rc): $(oneline "$out")"; fi
done
out=$(inroot env LD_LIBRARY_PATH="$W/control" ./host_tf funcs.o 2>&1); rc=$?
if [ $rc = 139 ]; then hpass order-real-c-tvm_ffi-first-control-crashes
else hfail "order-real-c-tvm_ffi-first-control-crashes: without the flag: $(status_text $rc): $(oneline "$out")"; fi
out=$(inroot env LD_LIBRARY_PATH="$W/lib" ./host_late funcs.o late 2>&1); rc=$?
want=$(printf '%s\n' "external before dlopen 0" "old-abi error: TVMFuncCall: null function handle" "external 0" \
    "test_add 30" "error TypeError: test_add expects two ints")
if [ $rc = 0 ] && [ "$out" = "$want" ]; then pass order-real-c-dlopen-after-first-use
else fail "order-real-c-dlopen-after-first-use: $(status_text $rc): $(oneline "$out")"; fi

# Python: objrt's lines must be tvm-ffi's own (the .so through tvm_ffi.load_module), then
# "external 1".
py() { inroot env PYTHONPATH="$W/python" OBJRT_LIBRARY="$W/$1/libobjrt.so" python3 py_order.py "${@:2}"; }
for o in tvm_ffi-first objrt-first; do
    ref=$(py lib $o funcs.o "$W/funcs.so" 2>&1); out=$(py lib $o funcs.o 2>&1); rc=$?
    if ! grep -qx 'test_add 30' <<<"$ref"; then fail "order-real-py-$o: tvm-ffi's own load of funcs.so: $(oneline "$ref")"
    elif [ $rc = 0 ] && [ "$out" = "$(printf '%s\nexternal 1' "$ref")" ]; then pass "order-real-py-$o"
    else fail "order-real-py-$o: $(status_text $rc): '$(oneline "$out")', tvm-ffi: '$(oneline "$ref")'"; fi
done
out=$(py control tvm_ffi-first funcs.o 2>&1); rc=$?
if [ $rc = 139 ]; then hpass order-real-py-tvm_ffi-first-control-crashes
else hfail "order-real-py-tvm_ffi-first-control-crashes: without the flag: $(status_text $rc): $(oneline "$out")"; fi
rm -rf "${R:?}$W"

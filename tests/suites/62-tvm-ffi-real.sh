#!/usr/bin/env bash
# 62-tvm-ffi-real (issue 39, items 2 and 3): objrt with the real tvm-ffi 0.1.12 of the sid root
# (scripts/numba-root.sh sid), against tvm-ffi's own loading of the same code built as a .so.
#  - fixtures built in the root with tvm-ffi's headers (tests/tvm_ffi_real/): C with the C API
#    (capi.c), C++ with TVM_FFI_DLL_EXPORT_TYPED_FUNC, a static initializer registering a global
#    and a reflection type, exceptions, String/Array/Map/Tuple results (cxx.cc); objects in the
#    clang, gcc and gcc -fpie variants, each also as a .so (-fPIC); libobjrt_tvm_ffi.so
#    (src/tvm_ffi/ffi_module.cc). Compiled fixtures are cached by the hash of their sources
#    and the root's compilers and tvm-ffi in $OBJRT_ROOTS/fixtures (a cold build is most of
#    the suite's time).
#  - Python (tests/python/tvm_ffi_real.py), tvm_ffi imported before and after objrt:
#    tvm_ffi.load_module("x.o") through objrt call for call as tvm_ffi.load_module("x.so"), and
#    tvm-ffi-orcjit's test_basic.py cases that apply to an object loader (docs/tvm-ffi.md).
#  - C (tests/tvm_ffi_real/host.c), linked -ltvm_ffi -lobjrt and -lobjrt -ltvm_ffi:
#    objrt_tvm_ffi_loader() and ffi.ModuleLoadFromFile give for the .o what tvm-ffi gives for
#    the .so; without libobjrt_tvm_ffi.so, and without libtvm_ffi, the call fails saying why.
# suite-timeout: 1800
. tests/lib.sh
[ "$TARGET:$SAN" = x86_64: ] || exit 0
S=$ROOT/tests/tvm_ffi_real
B=$ROOT/$BUILD
expect real-sid-root real-fixtures real-c-tvm_ffi-first real-c-objrt-first real-c-no-module \
    real-c-no-tvm-ffi real-c-module-fifo-refused real-c-no-module-by-name

if ! R=$(bash "$ROOT/scripts/numba-root.sh" sid 2>"$TMP/root.err"); then
    fail "real-sid-root: scripts/numba-root.sh sid failed: $(tail -n 3 "$TMP/root.err" | tr '\n' ' ')"
    exit 0
fi
W=$TMP
inroot() { timeout 600 chroot "$R" env -C "$W" "$@"; }
mkdir -p "$R$W/lib" "$R$W/fx"
cp -r "$ROOT/python" "$R$W/" && cp "$ROOT/tests/python/check.py" "$ROOT/tests/python/tvm_ffi_real.py" "$R$W/" &&
    cp "$S"/* "$ROOT/src/tvm_ffi/ffi_module.cc" "$ROOT/src/tvm_ffi/ffi_module_cxx.h" "$R$W/fx/" &&
    cp -P "$B"/libobjrt.so* "$R$W/lib/"
v=$(inroot python3 -c 'import tvm_ffi; print(tvm_ffi.__version__)' 2>&1)
case $v in 0.1.*) pass "real-sid-root (tvm-ffi $v)" ;;
    *) fail "real-sid-root: no tvm_ffi 0.1 in $R: $(oneline "$v")"; rm -rf "${R:?}$W"; exit 0 ;; esac

# ---- fixtures (cached)
key=$( { cat "$S"/* "$ROOT/src/tvm_ffi/ffi_module.cc" "$ROOT/src/tvm_ffi/ffi_module_cxx.h" "$0"
         inroot sh -c 'gcc --version; clang --version; g++ --version; dpkg -s libtvm-ffi-dev | grep Version'; } 2>&1 |
       sha256sum | cut -c1-16)
C=${OBJRT_ROOTS:-/var/cache/objrt}/fixtures/tvm-ffi-real-$key
build_fixtures() {
    local cxxf="-std=c++17 -O2 -Wall -Werror" v cc cxx pic
    for v in clang gcc gcc-fpie; do
        case $v in clang) cc=clang cxx=clang++ pic=-fPIC ;; gcc) cc=gcc cxx=g++ pic=-fPIC ;;
            gcc-fpie) cc=gcc cxx=g++ pic=-fpie ;; esac
        inroot $cc -O2 -Wall -Werror $pic -c fx/capi.c -o fx/capi.$v.o &&
            inroot $cxx $cxxf $pic -DVARIANT="\"$v\"" -c fx/cxx.cc -o fx/cxx.$v.o || return 1
        inroot $cc -O2 -Wall -Werror $pic -c fx/f16.c -o fx/f16.$v.o &&
            inroot $cc -O2 -Wall -Werror -fPIC -shared fx/f16.c -o fx/f16.$v.so -ltvm_ffi &&
            inroot $cc -O2 -Wall -Werror -fPIC -shared fx/capi.c -o fx/capi.$v.so -ltvm_ffi &&
            inroot $cxx $cxxf -fPIC -shared -DVARIANT="\"so-$v\"" fx/cxx.cc -o fx/cxx.$v.so -ltvm_ffi ||
            return 1
    done
    inroot gcc -O2 -Wall -Werror -fPIC -c fx/second.c -o fx/second.o &&
        inroot gcc -O2 -Wall -Werror -fPIC -c fx/relax.c -o fx/relax.o &&
        inroot sh -c 'rm -f fx/two.a && ar rcs fx/two.a fx/capi.gcc.o fx/second.o' &&
        inroot g++ $cxxf -Wextra -fPIC -shared -Ifx fx/ffi_module.cc -o fx/libobjrt_tvm_ffi.so -ltvm_ffi
}
t0=$(date +%s)
if [ -f "$C/done" ]; then
    cp "$C"/* "$R$W/fx/" && pass "real-fixtures (cached: $C)"
elif out=$(build_fixtures 2>&1); then
    mkdir -p "$C.tmp" && cp "$R$W"/fx/*.o "$R$W"/fx/*.so "$R$W"/fx/*.a "$C.tmp/" && touch "$C.tmp/done" &&
        rm -rf "$C" && mv "$C.tmp" "$C"
    pass "real-fixtures (built in $(( $(date +%s) - t0 )) s)"
else
    fail "real-fixtures: $(oneline "$out")"; rm -rf "${R:?}$W"; exit 0
fi

# TVM 0.26's shape (58's kernel, built here with objrt's headers: a kernel needs no tvm-ffi)
for k in dso sys; do
    f=""; [ $k = sys ] && f=-DSYSLIB=lib_
    $GCC -O2 -std=gnu11 -Wall -Wextra -Werror -I"$ROOT/include" -DTVM=26 $f -c "$ROOT/tests/tvm_ffi/kernel.c" \
        -o "$R$W/fx/k26_$k.o" || fail "real-fixtures: kernel.c for TVM 0.26 ($k) did not build"
done

# ---- Python, both import orders
for o in tvm_ffi-first objrt-first; do
    run_cases "py-$o" 600 chroot "$R" env -C "$W" PYTHONPATH="$W/python:$W" \
        OBJRT_LIBRARY="$W/lib/libobjrt.so" OBJRT_TVM_FFI_MODULE="$W/fx/libobjrt_tvm_ffi.so" \
        python3 "$W/tvm_ffi_real.py" "$W/fx" "$o"
done

# ---- C, both link orders
chost() {   # OUT LIBS...
    local out=$1; shift
    inroot gcc -std=c11 -O2 -Wall -Wextra -Werror fx/host.c -Wl,--no-as-needed "$@" -o "$out"
}
if ! out=$(chost host_tf -ltvm_ffi -Llib -lobjrt 2>&1 && chost host_ft -Llib -lobjrt -ltvm_ffi 2>&1 &&
        chost host_none -Llib -lobjrt 2>&1); then
    fail "real-c-tvm_ffi-first: building the hosts: $(oneline "$out")"
else
    hrun() { inroot env LD_LIBRARY_PATH="$W/lib" OBJRT_TVM_FFI_MODULE="$W/fx/libobjrt_tvm_ffi.so" "$@" 2>&1; }
    for o in tvm_ffi-first:host_tf objrt-first:host_ft; do
        name=real-c-${o%%:*} h=${o#*:}
        rc=0; out=""
        for v in clang gcc gcc-fpie; do
            ref=$(hrun "./$h" fx/capi.$v.so)
            got=$(hrun "./$h" fx/capi.$v.o); r=$?
            [ $r = 0 ] && [ "$got" = "$ref" ] || { rc=1; out="$v: $(status_text $r): $(oneline "$got")"; break; }
        done
        if ! grep -q '^add_int: 42$' <<<"$ref"; then fail "$name: tvm-ffi's own load of the .so: $(oneline "$ref")"
        elif [ $rc = 0 ]; then pass "$name ($(grep -c . <<<"$ref") lines as tvm-ffi's, 3 variants)"
        else fail "$name: $out; tvm-ffi: $(oneline "$ref")"; fi
    done
    out=$(inroot env LD_LIBRARY_PATH="$W/lib" OBJRT_TVM_FFI_MODULE="$W/nowhere.so" ./host_tf -n 2>&1)
    case $out in "loader -1: objrt_tvm_ffi_loader: OBJRT_TVM_FFI_MODULE $W/nowhere.so: No such file"*) pass real-c-no-module ;;
        *) fail "real-c-no-module: $(oneline "$out")" ;; esac
    # the variable's path is opened as inputs are (issue 40, item 4): dlopen of a FIFO hung
    mkfifo "$R$W/fifo.so"
    out=$(timeout 20 chroot "$R" env -C "$W" LD_LIBRARY_PATH="$W/lib" OBJRT_TVM_FFI_MODULE="$W/fifo.so" ./host_tf -n 2>&1)
    case $out in "loader -1: objrt_tvm_ffi_loader: OBJRT_TVM_FFI_MODULE $W/fifo.so: not a regular file"*) pass real-c-module-fifo-refused ;;
        *) fail "real-c-module-fifo-refused: $(oneline "$out")" ;; esac
    out=$(inroot env LD_LIBRARY_PATH="$W/lib" OBJRT_TVM_FFI_MODULE=libobjrt_tvm_ffi_nowhere.so ./host_tf -n 2>&1)
    case $out in "loader -1: objrt_tvm_ffi_loader: libobjrt_tvm_ffi.so not found"*) pass real-c-no-module-by-name ;;
        *) fail "real-c-no-module-by-name: $(oneline "$out")" ;; esac
    out=$(inroot env LD_LIBRARY_PATH="$W/lib" ./host_none -n 2>&1)
    case $out in "loader -1: objrt_tvm_ffi_loader: no tvm-ffi library in the process"*) pass real-c-no-tvm-ffi ;;
        *) fail "real-c-no-tvm-ffi: $(oneline "$out")" ;; esac
fi
rm -rf "${R:?}$W"

#!/usr/bin/env bash
# 68-install: `make install` as a user meets it (issue 36, item 1), on a fresh /usr/local: a
# mount namespace of its own (unshare -m) with an empty tmpfs over /usr/local and an overlay
# over /etc, so the install's ldconfig writes a private /etc/ld.so.cache and the machine's
# own files are never touched. In it: make install PREFIX=/usr/local; a C host built with
# `pkg-config --cflags --libs objrt` starts and loads a unit (no LD_LIBRARY_PATH); the same
# host linked statically from `pkg-config --static --libs objrt`; a CMake project
# (find_package(objrt 0.1), objrt::objrt and objrt::objrt_static) builds and runs both;
# pkg-config answers without jansson.pc for a dynamic link; make install with DESTDIR leaves
# the linker cache alone; a LIBDIR the linker does not search gets a note saying what to do;
# make uninstall leaves no file of objrt's and no cache entry; nothing outside /usr/local
# but ld.so.cache was written.
# Controls: the cache from before the install (what a user had without ldconfig) makes the
# pkg-config host fail to start with "cannot open shared object file"; the old objrt.pc
# (Requires.private: jansson) fails without jansson.pc; find_package(objrt 1.0) and
# (objrt 0.2) are refused by the version file.
# x86_64 without sanitizers: the install is the plain build's.
# suite-timeout: 600
set -u
. tests/lib.sh
[ "$TARGET:$SAN" = x86_64: ] || exit 0

if [ "${1:-}" != --in-namespace ]; then
    expect install-system-prefix install-runs-ldconfig install-pkgconfig-host-starts \
        install-pkgconfig-static-host install-cmake-find-package install-cmake-hosts-run \
        install-pkgconfig-without-jansson-pc install-destdir-no-ldconfig install-other-libdir-note \
        install-only-prefix-and-cache-written uninstall-nothing-left uninstall-cache-entry-gone
    expect_harness install-control-no-ldconfig-host-fails install-control-old-pc-needs-jansson \
        install-control-cmake-version-refused
    if ! command -v unshare >/dev/null || ! command -v cmake >/dev/null || ! command -v pkg-config >/dev/null; then
        fail "install-system-prefix: needs unshare, cmake and pkg-config (scripts/install-deps.sh)"; exit 0
    fi
    mkdir -p "$TMP/etc-up" "$TMP/etc-work"
    # The namespace's mounts go away with it; the suite's own lines come from inside.
    exec unshare -m --propagation private bash "$0" --in-namespace
fi

mount -t overlay overlay -o "lowerdir=/etc,upperdir=$TMP/etc-up,workdir=$TMP/etc-work" /etc &&
    mount -t tmpfs tmpfs /usr/local || { fail "install-system-prefix: mounts in the namespace failed"; exit 0; }
cp /etc/ld.so.cache "$TMP/ld.so.cache.before"
H=$TMP/host; mkdir -p "$H"
cat >"$H/host.c" <<'EOF'
#include <stdio.h>
#include <objrt.h>
int main(int argc, char **argv)
{
    objrt_ctx *ctx = objrt_new();
    const char *files[] = { argv[1] };
    objrt_unit *u = argc > 1 ? objrt_load(ctx, files, 1) : NULL;
    if (!u) { fprintf(stderr, "%s\n", objrt_error(ctx)); return 1; }
    int (*twice)(int) = (int (*)(int))objrt_unit_sym(u, "twice");
    printf("objrt %s: twice(21) = %d\n", objrt_version(), twice(21));
    objrt_unload(u);
    objrt_free(ctx);
    return 0;
}
EOF
printf 'int twice(int x) { return 2 * x; }\n' >"$H/unit.c"
gcc -O2 -c "$H/unit.c" -o "$H/unit.o"
WANT="twice(21) = 42"

# ---- install into the system prefix ------------------------------------------------------
if make -C "$ROOT" --no-print-directory -s install PREFIX=/usr/local >"$TMP/install.log" 2>&1 &&
   [ -f /usr/local/lib/libobjrt.so.0.1.0 ] && [ -f /usr/local/lib/cmake/objrt/objrt-config.cmake ]; then
    pass install-system-prefix
else fail "install-system-prefix: $(oneline "$(cat "$TMP/install.log")")"; fi
if grep -q "ran ldconfig" "$TMP/install.log" && ldconfig -p | grep -q 'libobjrt.so.0 .*=> /usr/local/lib/libobjrt.so.0$'; then
    pass install-runs-ldconfig
else fail "install-runs-ldconfig: $(oneline "$(cat "$TMP/install.log")") / $(ldconfig -p | grep objrt)"; fi

# ---- a host built with pkg-config, started as a user would ------------------------------
if gcc -fPIC "$H/host.c" $(pkg-config --cflags --libs objrt) -o "$H/host-pc" 2>"$TMP/pc.err" &&
   out=$("$H/host-pc" "$H/unit.o" 2>&1) && [[ $out == *"$WANT"* ]]; then
    pass "install-pkgconfig-host-starts ($out)"
else fail "install-pkgconfig-host-starts: $(oneline "$(cat "$TMP/pc.err") ${out:-}")"; fi
# Control: the cache as it was before the install (what ldconfig-less installs left).
cp /etc/ld.so.cache "$TMP/ld.so.cache.after"
cp "$TMP/ld.so.cache.before" /etc/ld.so.cache
if out=$("$H/host-pc" "$H/unit.o" 2>&1); then hfail "install-control-no-ldconfig-host-fails: it started: $out"
elif [[ $out == *"libobjrt.so.0: cannot open shared object file"* ]]; then hpass install-control-no-ldconfig-host-fails
else hfail "install-control-no-ldconfig-host-fails: $(oneline "$out")"; fi
cp "$TMP/ld.so.cache.after" /etc/ld.so.cache

# Static: libobjrt.a by name, then everything --static says it needs.
slibs=$(pkg-config --static --libs objrt | sed 's/ -lobjrt / /')
if gcc -fPIC "$H/host.c" $(pkg-config --cflags objrt) -l:libobjrt.a $slibs -o "$H/host-static" 2>"$TMP/st.err" &&
   ! ldd "$H/host-static" | grep -q libobjrt && out=$("$H/host-static" "$H/unit.o" 2>&1) && [[ $out == *"$WANT"* ]] &&
   [[ " $slibs " == *" -ljansson "* ]]; then
    pass "install-pkgconfig-static-host ($slibs)"
else fail "install-pkgconfig-static-host: libs '$slibs' $(oneline "$(cat "$TMP/st.err") ${out:-}")"; fi

# Without jansson.pc (no libjansson-dev): only /usr/local's .pc files are visible.
if PKG_CONFIG_LIBDIR=/usr/local/lib/pkgconfig pkg-config --exists objrt &&
   out=$(PKG_CONFIG_LIBDIR=/usr/local/lib/pkgconfig pkg-config --cflags --libs objrt 2>&1) &&
   [[ $out == *"-lobjrt"* ]]; then pass "install-pkgconfig-without-jansson-pc ($out)"
else fail "install-pkgconfig-without-jansson-pc: $(oneline "$out")"; fi
mkdir -p "$TMP/oldpc"
sed -e '/^#/d' -e 's/^Libs.private:.*/Libs.private: -ldl -lpthread/' -e '/^Libs.private/i Requires.private: jansson' \
    /usr/local/lib/pkgconfig/objrt.pc >"$TMP/oldpc/objrt.pc"
if ! out=$(PKG_CONFIG_LIBDIR=$TMP/oldpc pkg-config --cflags --libs objrt 2>&1) && [[ $out == *jansson* ]]; then
    hpass install-control-old-pc-needs-jansson
else hfail "install-control-old-pc-needs-jansson: $(oneline "$out")"; fi

# ---- a CMake-built host ---------------------------------------------------------------
C=$TMP/cmake; mkdir -p "$C/src"
cp "$H/host.c" "$C/src/"
cmake_project() {   # cmake_project VERSION: a project asking for objrt VERSION
    cat >"$C/src/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.13)
project(objrt_host C)
find_package(objrt $1 REQUIRED)
add_executable(host_shared host.c)
target_link_libraries(host_shared PRIVATE objrt::objrt)
add_executable(host_static host.c)
target_link_libraries(host_static PRIVATE objrt::objrt_static)
set_target_properties(host_shared host_static PROPERTIES POSITION_INDEPENDENT_CODE ON)
EOF
    rm -rf "$C/b"; cmake -S "$C/src" -B "$C/b" >"$C/configure.log" 2>&1
}
if cmake_project 0.1 && cmake --build "$C/b" >"$C/build.log" 2>&1; then
    pass install-cmake-find-package
    o1=$("$C/b/host_shared" "$H/unit.o" 2>&1); o2=$("$C/b/host_static" "$H/unit.o" 2>&1)
    if [[ $o1 == *"$WANT"* && $o2 == *"$WANT"* ]] && ldd "$C/b/host_shared" | grep -q '/usr/local/lib/libobjrt.so.0' &&
       ! ldd "$C/b/host_static" | grep -q libobjrt; then
        pass install-cmake-hosts-run
    else fail "install-cmake-hosts-run: shared: $(oneline "$o1") static: $(oneline "$o2")"; fi
else
    fail "install-cmake-find-package: $(oneline "$(cat "$C/configure.log" "$C/build.log" 2>/dev/null)")"
    fail "install-cmake-hosts-run: no build"
fi
refused=""
for v in 1.0 0.2; do
    if ! cmake_project $v && grep -q '0\.1\.0' "$C/configure.log"; then refused="$refused $v"; fi
done
[ "$refused" = " 1.0 0.2" ] && hpass "install-control-cmake-version-refused" ||
    hfail "install-control-cmake-version-refused: refused only '$refused'"

# ---- DESTDIR: staged, the machine's linker cache untouched ------------------------------
sum=$(md5sum </etc/ld.so.cache)
if make -C "$ROOT" --no-print-directory -s install DESTDIR="$TMP/stage" PREFIX=/usr >"$TMP/destdir.log" 2>&1 &&
   [ -f "$TMP/stage/usr/lib/libobjrt.so.0.1.0" ] && [ "$(md5sum </etc/ld.so.cache)" = "$sum" ] &&
   ! grep -q ldconfig "$TMP/destdir.log" &&
   make -C "$ROOT" --no-print-directory -s uninstall DESTDIR="$TMP/stage" PREFIX=/usr >>"$TMP/destdir.log" 2>&1 &&
   [ "$(md5sum </etc/ld.so.cache)" = "$sum" ]; then
    pass install-destdir-no-ldconfig
else fail "install-destdir-no-ldconfig: $(oneline "$(cat "$TMP/destdir.log")")"; fi

# ---- a LIBDIR the dynamic linker does not search: the note says what to do ----------------
if make -C "$ROOT" --no-print-directory -s install PREFIX="$TMP/opt" >"$TMP/opt.log" 2>&1 &&
   grep -q "rpath,$TMP/opt/lib" "$TMP/opt.log" && grep -q "ld.so.conf.d" "$TMP/opt.log" &&
   gcc -fPIC "$H/host.c" -I"$TMP/opt/include" -L"$TMP/opt/lib" -lobjrt -Wl,-rpath,"$TMP/opt/lib" -o "$H/host-opt" &&
   out=$("$H/host-opt" "$H/unit.o" 2>&1) && [[ $out == *"$WANT"* ]]; then
    pass install-other-libdir-note
else fail "install-other-libdir-note: $(oneline "$(cat "$TMP/opt.log") ${out:-}")"; fi
make -C "$ROOT" --no-print-directory -s uninstall PREFIX="$TMP/opt" >/dev/null 2>&1

# ---- uninstall ------------------------------------------------------------------------------
make -C "$ROOT" --no-print-directory -s uninstall PREFIX=/usr/local >"$TMP/uninstall.log" 2>&1
left=$(find /usr/local \( -type f -o -type l \) -printf '%p ' ; find /usr/local -depth -type d -iname '*objrt*' -printf '%p ')
if [ -z "$left" ]; then pass "uninstall-nothing-left ($(find /usr/local -mindepth 1 -type d | wc -l) empty shared directories stay)"
else fail "uninstall-nothing-left: $(oneline "$left $(cat "$TMP/uninstall.log")")"; fi
if ! ldconfig -p | grep -q libobjrt; then pass uninstall-cache-entry-gone
else fail "uninstall-cache-entry-gone: $(ldconfig -p | grep libobjrt | tr '\n' ' ')"; fi
# /etc: the overlay's upper layer holds what was written there.
written=$(cd "$TMP/etc-up" && find . -mindepth 1 | sort | tr '\n' ' ')
if [ "$written" = "./ld.so.cache " ]; then pass install-only-prefix-and-cache-written
else fail "install-only-prefix-and-cache-written: /etc got: $written"; fi

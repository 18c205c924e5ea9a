#!/usr/bin/env bash
# 67-host: what a host developer hits first (issue 26). gdb on a process whose unit has
# thread-local data or was run with --export-dynamic: glibc lists objrt's in-memory image
# in the link map, gdb opens that name in its own process and must find the same image
# there (a /proc/self name would be one of gdb's own pipes, and gdb would block forever).
# Undefined names: C++ ones demangled (the mangled name kept), hints that name the fix
# (libstdc++, libm, -rdynamic / objrt_define). Files that are not a unit objrt loads (a
# shared library, an executable, another machine's object, a 32-bit one) named as such.
# Crash reports with file:line from the unit's DWARF (libdw), gcc's and clang's.
# Initial- and local-exec TLS aligned to 64 bytes, with threads, vs the native program
# (AArch64's static TLS is 16-byte aligned unless a startup module asks for more: libobjrt
# does, 64 as x86_64's TCB), and what is refused and why.
# x86_64: `pip install ./python` into a fresh venv without network; the installed package
# works without OBJRT_LIBRARY (the wheel carries libobjrt.so), has __version__ and py.typed.
# x86_64: man pages checked against the code (a page or link for every function the headers
# declare, every --help option in objrt(1) and the reverse), make uninstall, LIBDIR,
# pkg-config's static flags (Jansson in Libs.private).
# Configs: x86_64: and aarch64: (gdb-multiarch on qemu's gdb server).
# suite-timeout: 900
set -u
. "$ROOT/tests/lib.sh"

case "$TARGET:$SAN" in
    x86_64: | aarch64:) ;;
    *) exit 0 ;;
esac

expect gdb-tls-unit-link-map-name-opens gdb-export-dynamic-unit-link-map-name-opens
expect undefined-cxx-demangled-mangled-kept undefined-cxx-hint-names-libstdcxx \
    undefined-cxx-runs-with-l-stdcxx undefined-callback-hint-rdynamic-objrt-define \
    undefined-libm-hint-is-libm undefined-c-name-not-demangled
expect crash-lines-gcc-dwarf crash-lines-clang-dwarf5 crash-lines-still-dies-by-signal \
    crash-lines-none-without-dwarf crash-lines-cxx-function-demangled
[ "$TARGET" = x86_64 ] && expect man-page-for-every-public-function man-see-also-pages-exist \
    man-every-help-option-documented make-uninstall-removes-everything install-libdir-multiarch \
    pkgconfig-static-libs-jansson
[ "$TARGET" = x86_64 ] && expect_harness man-control-undeclared-function-has-no-page \
    man-control-option-check-sees-a-missing-option
[ "$TARGET" = x86_64 ] && expect pip-install-fresh-venv-offline pip-installed-package-runs-a-unit \
    pip-installed-version-matches-library pip-installed-typed pip-installed-without-library-says-what-to-do
expect tls-aligned-le-threads-vs-native tls-aligned-ie-threads-vs-native \
    tls-align-beyond-static-explained tls-aligned-ie-from-dlopened-libobjrt
expect input-shared-library-named input-executable-named input-pie-executable-named \
    input-other-machine-named input-32-bit-named input-own-machine-runs

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
SRC=$ROOT/tests/host
FX=$TMP/fx
mkdir -p "$FX"

fixture() {   # fixture NAME [FLAGS...]: $FX/NAME.o from $SRC/fixtures/NAME.c
    local name=$1; shift
    $GCC "$@" -c "$SRC/fixtures/$name.c" -o "$FX/$name.o" 2>"$FX/$name.err" ||
        { fail "host-fixture-$name: $(oneline "$(cat "$FX/$name.err")")"; return 1; }
}

# ---- gdb and the link map -------------------------------------------------------------
# gdb_link_map CASE FIXTURE RUN-ARGS...: stop in the unit, list the link map, run to the end.
gdb_link_map() {
    local name=$1 fx=$2 out rc lib; shift 2
    out=$(gdb_batch 'set breakpoint pending on' 'break stop_here' RUN sharedlibrary 'info sharedlibrary' \
          continue -- "$B/objrt" run "$@" "$FX/$fx.o"); rc=$?
    lib=$(printf '%s\n' "$out" | grep -E '/proc/[^ ]*/fd/[0-9]+$' | head -n 1)
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        fail "$name: gdb hung and was killed ($(status_text $rc)); link map entry: '$lib'"
    elif ! printf '%s\n' "$out" | grep -q '^Breakpoint 1, stop_here'; then
        fail "$name: gdb did not stop in the unit: $(oneline "$out")"
    elif ! printf '%s\n' "$lib" | grep -Eq '/proc/[0-9]+/fd/[0-9]+$'; then
        fail "$name: the in-memory image is not listed as /proc/PID/fd/N: '$lib'"
    elif ! printf '%s\n' "$lib" | grep -Eq '^ +Yes'; then
        fail "$name: gdb listed the image but could not read it: '$lib'"
    elif ! printf '%s\n' "$out" | grep -Eq 'exited with code 06|Inferior 1 .*exited'; then
        fail "$name: the program did not run to its end under gdb: $(oneline "$out")"
    else
        pass "$name (${lib##* })"
    fi
}

GDB=$(gdb_name)
if ! command -v $GDB >/dev/null; then
    fail "gdb-tls-unit-link-map-name-opens: $GDB not installed (scripts/install-deps.sh installs it)"
else
    fixture tls_unit -g -O0 && gdb_link_map gdb-tls-unit-link-map-name-opens tls_unit
    fixture plain_unit -g -O0 &&
        gdb_link_map gdb-export-dynamic-unit-link-map-name-opens plain_unit --export-dynamic
fi

# ---- undefined names --------------------------------------------------------------------
GXX=${GCC%gcc}g++
# undef_run CASE FIXTURE: objrt run's message for the unit, in $TMP/CASE.err (status 125).
undef_run() {
    # shellcheck disable=SC2086
    $OBJRT run "$FX/$2.o" >/dev/null 2>"$TMP/$1.err"; local rc=$?
    [ $rc -eq 125 ] || { fail "$1: objrt run exited $rc, expected 125 (undefined symbols): $(oneline "$(cat "$TMP/$1.err")")"; return 1; }
}
# has CASE FILE FIXED-STRING...: PASS when FILE has each string, else FAIL quoting it.
has() {
    local name=$1 file=$2 s; shift 2
    for s in "$@"; do
        grep -qF -- "$s" "$file" || { fail "$name: no '$s' in: $(oneline "$(cat "$file")")"; return; }
    done
    pass "$name"
}
if $GXX -O2 -c "$SRC/fixtures/cxx_unit.cc" -o "$FX/cxx_unit.o" 2>"$FX/cxx.err"; then
    if undef_run undefined-cxx-demangled-mangled-kept cxx_unit; then
        has undefined-cxx-demangled-mangled-kept "$TMP/undefined-cxx-demangled-mangled-kept.err" \
            "cxx_unit.o: undefined symbol 'std::ostream::flush()' (_ZNSo5flushEv)" \
            "undefined symbol 'std::cout' (_ZSt4cout)"
        has undefined-cxx-hint-names-libstdcxx "$TMP/undefined-cxx-demangled-mangled-kept.err" \
            "C++ runtime's (libstdc++)" 'objrt_add_library(ctx, "stdc++")' "-l stdc++"
    else
        fail "undefined-cxx-hint-names-libstdcxx: no message to read"
    fi
    # The fix the hint names works: the same output as the program linked natively.
    if $GXX "$FX/cxx_unit.o" -o "$FX/cxx_native" 2>"$FX/cxx.err"; then
        # shellcheck disable=SC2086
        want=$($RUN "$FX/cxx_native"); got=$($OBJRT run -l stdc++ "$FX/cxx_unit.o" 2>&1); rc=$?
        if [ $rc -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then
            pass "undefined-cxx-runs-with-l-stdcxx"
        else
            fail "undefined-cxx-runs-with-l-stdcxx: status $rc, '$(oneline "$got")', native '$want'"
        fi
    else
        fail "undefined-cxx-runs-with-l-stdcxx: native link: $(oneline "$(cat "$FX/cxx.err")")"
    fi
else
    for c in undefined-cxx-demangled-mangled-kept undefined-cxx-hint-names-libstdcxx undefined-cxx-runs-with-l-stdcxx; do
        fail "$c: $GXX: $(oneline "$(cat "$FX/cxx.err")")"
    done
fi
if fixture callback_unit -O2 && undef_run undefined-callback-hint-rdynamic-objrt-define callback_unit; then
    E=$TMP/undefined-callback-hint-rdynamic-objrt-define.err
    has undefined-callback-hint-rdynamic-objrt-define "$E" "nothing loaded defines 'host_callback'" \
        "-rdynamic" 'objrt_define(ctx, "host_callback", address)'
    # Negative control: a C name is shown as it is, with nothing demangled after it.
    if grep -Eqx "objrt: .*/callback_unit\.o: undefined symbol 'host_callback'" "$E"; then
        pass "undefined-c-name-not-demangled"
    else
        fail "undefined-c-name-not-demangled: $(oneline "$(cat "$E")")"
    fi
fi
# libstdc++ links libm: a libm name must be libm's, not the C++ runtime's.
if fixture libm_unit -O2 && undef_run undefined-libm-hint-is-libm libm_unit; then
    E=$TMP/undefined-libm-hint-is-libm.err
    if grep -qF "hint: 'lgamma' is libm's" "$E" && ! grep -q "C++ runtime" "$E"; then
        pass "undefined-libm-hint-is-libm"
    else
        fail "undefined-libm-hint-is-libm: $(oneline "$(cat "$E")")"
    fi
fi

# ---- files that are not a unit objrt loads ------------------------------------------------
OTHER=aarch64-linux-gnu-gcc OTHERNAME=AArch64 OWNNAME=x86_64
[ "$TARGET" = aarch64 ] && { OTHER=gcc; OTHERNAME=x86_64; OWNNAME=AArch64; }
S=$SRC/fixtures/small.c
$GCC -O2 -c "$S" -o "$FX/small.o" && check input-own-machine-runs $OBJRT run "$FX/small.o"
$GCC -O2 -shared -fPIC "$S" -o "$FX/libsmall.so" &&
    expect_fail input-shared-library-named "libsmall.so: a shared library \(ELF type ET_DYN\), not a relocatable object.*dlopen.*-l LIB" \
        $OBJRT run "$FX/libsmall.so"
$GCC -O2 -no-pie "$S" -o "$FX/small-exe" &&
    expect_fail input-executable-named "small-exe: an executable \(ELF type ET_EXEC\).*gcc -c" \
        $OBJRT run "$FX/small-exe"
$GCC -O2 -pie -fPIE "$S" -o "$FX/small-pie" &&
    expect_fail input-pie-executable-named "small-pie: an executable \(ELF type ET_DYN, position-independent\)" \
        $OBJRT run "$FX/small-pie"
$OTHER -O2 -c "$S" -o "$FX/other.o" &&
    expect_fail input-other-machine-named "other.o: an object for $OTHERNAME \(machine [0-9]+\), but this unit is $OWNNAME: compile it for $OWNNAME" \
        $OBJRT run "$FX/other.o"
# A 32-bit object from the assembler (no 32-bit C library needed).
printf '.text\n.globl main\nmain: ret\n' | as --32 -o "$FX/small32.o" &&
    expect_fail input-32-bit-named "small32.o: a 32-bit ELF object \(ELFCLASS32, i386.*64-bit objects only" \
        $OBJRT run "$FX/small32.o"
# ---- crash reports: file:line ------------------------------------------------------------
line_of() { grep -n -m1 -F "$2" "$SRC/fixtures/$1" | cut -d: -f1; }
# crash_lines CASE OBJ: the three frames' lines in the report's source-line section.
crash_lines() {
    local name=$1 obj=$2 rc l1 l2 l3
    # shellcheck disable=SC2086
    timeout -k 5 60 $OBJRT run "$obj" >/dev/null 2>"$TMP/$name.err"; rc=$?
    echo "$rc" >"$TMP/$name.rc"
    l1=$(line_of crash_lines.c LINE-LOAD); l2=$(line_of crash_lines.c LINE-MIDDLE)
    l3=$(line_of crash_lines.c LINE-MAIN)
    if grep -q '^objrt: source lines' "$TMP/$name.err" &&
       grep -Eq "^objrt:   #0 [^ ]*crash_lines\.c:$l1\$" "$TMP/$name.err" &&
       grep -Eq "^objrt:   #1 [^ ]*crash_lines\.c:$l2\$" "$TMP/$name.err" &&
       grep -Eq "^objrt:   #2 [^ ]*crash_lines\.c:$l3\$" "$TMP/$name.err"; then
        pass "$name (lines $l1 $l2 $l3)"
    else
        fail "$name: status $rc, expected #0 crash_lines.c:$l1 #1 :$l2 #2 :$l3: $(oneline "$(tail -n 5 "$TMP/$name.err")")"
    fi
}
if fixture crash_lines -g -O0; then
    crash_lines crash-lines-gcc-dwarf "$FX/crash_lines.o"
    rc=$(cat "$TMP/crash-lines-gcc-dwarf.rc")
    if [ "$rc" = 139 ] && grep -Eq '^objrt: SIGSEGV at [^ ]*crash_lines\.o:load\+0x' "$TMP/crash-lines-gcc-dwarf.err"; then
        pass "crash-lines-still-dies-by-signal"
    else
        fail "crash-lines-still-dies-by-signal: status $rc, $(oneline "$(head -n 2 "$TMP/crash-lines-gcc-dwarf.err")")"
    fi
fi
if $CLANG -g -O0 -c "$SRC/fixtures/crash_lines.c" -o "$FX/crash_lines_clang.o" 2>"$FX/clang.err"; then
    crash_lines crash-lines-clang-dwarf5 "$FX/crash_lines_clang.o"
else
    fail "crash-lines-clang-dwarf5: $CLANG: $(oneline "$(cat "$FX/clang.err")")"
fi
# A C++ frame's line names its function demangled.
if $GXX -g -O0 -c "$SRC/fixtures/crash_cxx.cc" -o "$FX/crash_cxx.o" 2>"$FX/cxx-crash.err"; then
    L=$(line_of crash_cxx.cc LINE-GET)
    # shellcheck disable=SC2086
    timeout -k 5 60 $OBJRT run "$FX/crash_cxx.o" >/dev/null 2>"$TMP/cxx-crash.err"; rc=$?
    if [ $rc = 139 ] && grep -Eq "^objrt:   #0 [^ ]*crash_cxx\.cc:$L in plugin::Reader::get\(int\) const\$" "$TMP/cxx-crash.err"; then
        pass "crash-lines-cxx-function-demangled"
    else
        fail "crash-lines-cxx-function-demangled: status $rc, $(oneline "$(tail -n 3 "$TMP/cxx-crash.err")")"
    fi
else
    fail "crash-lines-cxx-function-demangled: $GXX: $(oneline "$(cat "$FX/cxx-crash.err")")"
fi
# Negative control: without DWARF the report is the same but has no source lines.
if $GCC -g0 -O0 -c "$SRC/fixtures/crash_lines.c" -o "$FX/crash_nodwarf.o"; then
    # shellcheck disable=SC2086
    timeout -k 5 60 $OBJRT run "$FX/crash_nodwarf.o" >/dev/null 2>"$TMP/nodwarf.err"; rc=$?
    if [ $rc = 139 ] && grep -Eq '^objrt:   #1 .*crash_nodwarf\.o:middle\+0x' "$TMP/nodwarf.err" &&
       ! grep -q 'source lines' "$TMP/nodwarf.err"; then
        pass "crash-lines-none-without-dwarf"
    else
        fail "crash-lines-none-without-dwarf: status $rc, $(oneline "$(cat "$TMP/nodwarf.err")")"
    fi
fi
# ---- initial-/local-exec TLS aligned to a cache line, with threads -------------------------
# aarch64: threads under qemu-user need one glibc (-L /); -L /usr/aarch64-linux-gnu mixes
# the cross sysroot's with this machine's arm64 libraries and hangs in pthread_create.
RT=""; [ "$TARGET" = aarch64 ] && RT="qemu-aarch64 -L /"
A=$SRC/fixtures/tls_aligned.c
# tls_aligned CASE RELOC-PATTERN FLAGS...: the unit with FLAGS, objrt run vs native.
tls_aligned() {
    local name=$1 pat=$2 d=$TMP/$1; shift 2
    mkdir -p "$d"
    if ! $GCC -O2 "$@" -c "$A" -o "$d/u.o" 2>"$d/err" ||
       ! $GCC -O2 "$@" "$A" -o "$d/native" -lpthread 2>>"$d/err"; then
        fail "$name: build: $(oneline "$(cat "$d/err")")"; return
    fi
    if ! readelf -rW "$d/u.o" | grep -Eq "$pat"; then
        fail "$name: the object has no $pat relocation: $(readelf -rW "$d/u.o" | grep -c TLS) TLS ones"; return
    fi
    # shellcheck disable=SC2086
    run_to "$d/n" timeout -k 5 120 $RT "$d/native"
    # shellcheck disable=SC2086
    run_to "$d/o" timeout -k 5 120 $RT "$B/objrt" run "$d/u.o"
    same "$name" "$d/n" "$d/o"
}
tls_aligned tls-aligned-le-threads-vs-native 'R_(X86_64_TPOFF32|AARCH64_TLSLE_ADD_TPREL)' -fPIE
tls_aligned tls-aligned-ie-threads-vs-native 'R_(X86_64_GOTTPOFF|AARCH64_TLSIE_)' -fPIC -ftls-model=initial-exec
# More than 64: refused on both, saying why and what to do.
if $GCC -O2 -fPIE -DALIGN=128 -c "$A" -o "$TMP/tls128.o"; then
    # shellcheck disable=SC2086
    expect_fail tls-align-beyond-static-explained \
        "static TLS block \(the block is 128-byte aligned; static TLS guarantees 64\).*-ftls-model=global-dynamic" \
        timeout -k 5 60 $RT "$B/objrt" run "$TMP/tls128.o"
fi
# The account: libobjrt.so opened with dlopen (Python's ctypes) is no startup module, so
# AArch64's static TLS stays 16-byte aligned there and the same unit is refused with the
# remedy named; on x86_64 (64 already) it loads.
if build_prog tls-aligned-ie-from-dlopened-libobjrt "$TMP/dlopen_host" "$SRC/dlopen_host.c" -- -ldl &&
   [ -f "$TMP/tls-aligned-ie-threads-vs-native/u.o" ]; then
    # shellcheck disable=SC2086
    out=$(timeout -k 5 60 $RT "$TMP/dlopen_host" "$B/libobjrt.so" "$TMP/tls-aligned-ie-threads-vs-native/u.o" 2>&1)
    if [ "$TARGET" = aarch64 ]; then
        if printf '%s' "$out" | grep -q "^error: .*static TLS block.*-ftls-model=global-dynamic"; then
            pass "tls-aligned-ie-from-dlopened-libobjrt (aarch64: refused with the remedy, as documented)"
        else fail "tls-aligned-ie-from-dlopened-libobjrt: expected the static TLS refusal: $(oneline "$out")"; fi
    elif [ "$out" = loaded ]; then pass "tls-aligned-ie-from-dlopened-libobjrt (x86_64: loads)"
    else fail "tls-aligned-ie-from-dlopened-libobjrt: $(oneline "$out")"; fi
fi

# ---- the Python package: pip install ./python, offline, in a fresh venv (x86_64) ---------
[ "$TARGET" = x86_64 ] || exit 0

# ---- man pages, make install / uninstall, pkg-config (x86_64) ------------------------------
P=$TMP/prefix ML=$TMP/prefix/lib/x86_64-linux-gnu
if make -C "$ROOT" --no-print-directory -s install PREFIX="$P" LIBDIR="$ML" >"$TMP/install.log" 2>&1; then
    bash "$ROOT/scripts/public-functions.sh" >"$TMP/functions.txt"
    missing="" n=0
    while read -r fn hdr _; do
        n=$((n + 1))
        page=$(man -M "$P/share/man" -w "$fn" 2>/dev/null)
        if [ -z "$page" ] || ! MANWIDTH=250 man -M "$P/share/man" "$fn" 2>/dev/null | grep -qw -- "$fn"; then
            missing="$missing $fn($hdr)"
        fi
    done <"$TMP/functions.txt"
    if [ "$n" -gt 50 ] && [ -z "$missing" ]; then pass "man-page-for-every-public-function ($n functions)"
    else fail "man-page-for-every-public-function: $n functions, no page naming:$missing"; fi
    if ! man -M "$P/share/man" -w objrt_no_such_function >/dev/null 2>&1; then
        hpass "man-control-undeclared-function-has-no-page"
    else hfail "man-control-undeclared-function-has-no-page: man found one"; fi
    # Every page objrt's pages refer to, NAME(1) or NAME(3) for objrt's names, is installed.
    refs=$(cat "$ROOT/man/objrt.1" "$ROOT/man/objrt.3" "$P"/share/man/man3/objrt_tvm_*.3 |
           grep -oE '^\.BR (objrt|TVM)[A-Za-z0-9_]* \([13]\)' | sed -E 's/^\.BR ([^ ]*) \(([13])\)/\2:\1/' | sort -u)
    bad=""
    for r in $refs; do man -M "$P/share/man" -w "${r%%:*}" "${r#*:}" >/dev/null 2>&1 || bad="$bad ${r#*:}(${r%%:*})"; done
    if [ -n "$refs" ] && [ -z "$bad" ]; then pass "man-see-also-pages-exist ($(echo $refs | wc -w) references)"
    else fail "man-see-also-pages-exist: no page for:${bad:- (no references found)}"; fi
    # Every option each --help lists is in objrt(1)'s SYNOPSIS or OPTIONS items, and the
    # reverse (tests/host/options.py); the --help texts are read from the CLI itself.
    hs=()
    for c in "" run layout call; do
        "$B/objrt" $c --help >"$TMP/help-${c:-objrt}.txt" 2>&1; hs+=("$TMP/help-${c:-objrt}.txt")
    done
    if out=$(/usr/bin/python3 "$SRC/options.py" "$P/share/man/man1/objrt.1" "${hs[@]}"); then
        pass "man-every-help-option-documented ($out)"
    else fail "man-every-help-option-documented: $(oneline "$out")"; fi
    printf 'usage: objrt run [--frobnicate]\n' >"$TMP/help-extra.txt"
    if ! /usr/bin/python3 "$SRC/options.py" "$P/share/man/man1/objrt.1" "${hs[@]}" "$TMP/help-extra.txt" |
         grep -qx 'help-only --frobnicate'; then
        hfail "man-control-option-check-sees-a-missing-option"
    else hpass "man-control-option-check-sees-a-missing-option"; fi
    # LIBDIR: the libraries, objrt.pc and the Python package's pointer go there.
    if [ -f "$ML/libobjrt.so.$(sed -n 's/^#define OBJRT_VERSION "\(.*\)".*/\1/p' "$ROOT/include/objrt.h")" ] &&
       [ -f "$ML/libobjrt.a" ] && [ ! -e "$P/lib/libobjrt.so" ] &&
       [ "$(PKG_CONFIG_PATH=$ML/pkgconfig pkg-config --variable=libdir objrt)" = "$ML" ] &&
       grep -qF "LIBRARY = \"$ML/libobjrt.so\"" "$P"/lib/python3*/dist-packages/objrt/_installed.py; then
        pass "install-libdir-multiarch"
    else
        fail "install-libdir-multiarch: $(ls "$ML" "$P/lib" 2>&1 | tr '\n' ' ')"
    fi
    req=$(PKG_CONFIG_PATH=$ML/pkgconfig pkg-config --print-requires-private objrt 2>&1)
    libs=$(PKG_CONFIG_PATH=$ML/pkgconfig pkg-config --static --libs objrt 2>&1)
    if [ -z "$req" ] && printf '%s' "$libs" | grep -q -- '-ljansson' &&
       ! PKG_CONFIG_PATH=$ML/pkgconfig pkg-config --libs objrt | grep -q -- '-ljansson'; then
        pass "pkgconfig-static-libs-jansson ($libs)"
    else fail "pkgconfig-static-libs-jansson: requires '$req', static libs '$libs'"; fi
    if make -C "$ROOT" --no-print-directory -s uninstall PREFIX="$P" LIBDIR="$ML" >"$TMP/uninstall.log" 2>&1 &&
       left=$(find "$P" -type f -o -type l) && [ -z "$left" ]; then
        pass "make-uninstall-removes-everything"
    else
        fail "make-uninstall-removes-everything: left $(printf '%s' "$left" | head -5 | tr '\n' ' ') $(oneline "$(cat "$TMP/uninstall.log")")"
    fi
else
    for c in man-page-for-every-public-function man-see-also-pages-exist man-every-help-option-documented \
             make-uninstall-removes-everything install-libdir-multiarch pkgconfig-static-libs-jansson; do
        fail "$c: make install failed: $(oneline "$(cat "$TMP/install.log")")"
    done
fi
V=$TMP/venv PY=/usr/bin/python3
# No network: a network namespace of its own when allowed, else an index that cannot answer.
OFFLINE=(env PIP_INDEX_URL=http://127.0.0.1:9/simple PIP_RETRIES=0 PIP_TIMEOUT=2)
unshare -n true 2>/dev/null && OFFLINE=(unshare -n)
if ! "$PY" -m venv "$V" >"$TMP/venv.log" 2>&1; then
    fail "pip-install-fresh-venv-offline: python3 -m venv: $(oneline "$(cat "$TMP/venv.log")")"
elif (cd "$ROOT" && "${OFFLINE[@]}" "$V/bin/pip" install ./python) >"$TMP/pip.log" 2>&1; then
    pass "pip-install-fresh-venv-offline (${OFFLINE[0]})"
    SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    # From a directory with no checkout around it and no OBJRT_LIBRARY.
    out=$(cd "$TMP" && env -u OBJRT_LIBRARY -u PYTHONPATH "$V/bin/python" - "$FX/small.o" <<'PYEOF' 2>&1
import ctypes, sys, objrt
print("path", objrt.library_path)
with objrt.Context().load(sys.argv[1]) as u:
    print("small_fn", u.function("small_fn", ctypes.c_int)())
lib = ctypes.CDLL(objrt.library_path)
lib.objrt_version.restype = ctypes.c_char_p
print("version", objrt.__version__, lib.objrt_version().decode())
PYEOF
)
    if printf '%s\n' "$out" | grep -qx "path $SITE/objrt/libobjrt.so.0" &&
       printf '%s\n' "$out" | grep -qx "small_fn 7"; then
        pass "pip-installed-package-runs-a-unit"
    else
        fail "pip-installed-package-runs-a-unit: $(oneline "$out")"
    fi
    hv=$(sed -n 's/^#define OBJRT_VERSION "\(.*\)".*/\1/p' "$ROOT/include/objrt.h")
    if printf '%s\n' "$out" | grep -qx "version $hv $hv"; then
        pass "pip-installed-version-matches-library ($hv)"
    else
        fail "pip-installed-version-matches-library: header $hv, $(printf '%s\n' "$out" | grep '^version')"
    fi
    out=$(cd "$TMP" && "$V/bin/python" -c '
import typing, objrt
h = typing.get_type_hints(objrt.Context.load)
assert h["return"] is objrt.Unit, h
assert typing.get_type_hints(objrt.Unit.address)["return"] is int
print("ok")' 2>&1)
    if [ -f "$SITE/objrt/py.typed" ] && [ "$out" = ok ]; then pass "pip-installed-typed"
    else fail "pip-installed-typed: py.typed $(ls "$SITE/objrt/py.typed" 2>&1), $(oneline "$out")"; fi
    # Without the library it carries: found by its soname if installed, else a message
    # that says what to do.
    rm -f "$SITE/objrt/libobjrt.so.0"
    out=$(cd "$TMP" && env -u OBJRT_LIBRARY "$V/bin/python" -c 'import objrt; print("path", objrt.library_path)' 2>&1)
    if printf '%s' "$out" | grep -q "ImportError: objrt: cannot load libobjrt.so: .*make install.*OBJRT_LIBRARY" ||
       [ "$out" = "path libobjrt.so.0" ]; then
        pass "pip-installed-without-library-says-what-to-do"
    else
        fail "pip-installed-without-library-says-what-to-do: $(oneline "$out")"
    fi
else
    fail "pip-install-fresh-venv-offline: $(oneline "$(tail -n 4 "$TMP/pip.log")")"
fi
exit 0

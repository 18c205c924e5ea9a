#!/usr/bin/env bash
# 65-debug: what a user sees when something goes wrong in loaded code, and the contracts
# an embedding host relies on (issue 11): unload refuses while a dependant is bound
# (t_deps), objrt_addr_info for globals, locals and addresses between symbols (t_addr),
# lookup misses and symbol iteration (t_syms), the crash report of `objrt run` (text and
# exit status), GDB through the JIT interface (bt with file:line, a breakpoint set by name
# before the load, the unit gone after unload), -flto inputs, the exported symbols of
# libobjrt.so against the headers, and the CLI's conventional messages.
# Configs: x86_64: (all), x86_64:asan (the C API tests and -flto inputs), aarch64: (the C
# API tests, -flto inputs, the crash report and gdb, under qemu); nothing for tsan.
# Every case is declared before it can run (tests/lib.sh): the C programs run by run_cases
# declare theirs from their list mode, the shell-level cases are declared below, so a case
# that dies or is skipped unreported is a FAIL by name.
set -u
. "$ROOT/tests/lib.sh"

case "$TARGET:$SAN" in
    x86_64: | x86_64:asan | aarch64:) ;;
    *) exit 0 ;;
esac

# ---- declarations: the shell-level cases this configuration must report -----------------
expect foreach-matches-nm lto-gcc-slim-explained lto-gcc-fat-runs lto-clang-bitcode-explained \
    lto-clang-thin-explained lto-not-bitcode
if [ -z "$SAN" ]; then
    expect crash-dies-by-sigsegv crash-report-names-local-function \
        crash-backtrace-loaded-and-host-frames crash-stdout-flushed-before crash-report-archive-member \
        crash-abort-reported crash-none-when-fine crash-api-handler-install \
        crash-api-report-from-host-handler
    expect gdb-bt-function-and-line gdb-bt-clang-dwarf5 gdb-bt-negative-control-unregistered \
        gdb-bt-unwind-tables-only gdb-bt-unwind-tables-only-clang \
        gdb-bt-unwind-negative-control-unregistered \
        gdb-break-by-name-before-load gdb-info-symbol gdb-break-negative-control-unregistered \
        gdb-unit-gone-after-unload gdb-unit-present-while-loaded
fi
if [ "$TARGET:$SAN" = x86_64: ]; then
    expect exports-match-headers exports-negative-control-unversioned soname cli-version \
        cli-missing-argument-e cli-missing-argument-page-size cli-e-with-value-negative-control \
        cli-unknown-command cli-unknown-command-status-125 cli-usage-documents-layout-l-and-perf-map \
        install-library-symlinks install-man-pages-document-every-variable \
        install-program-links-against-soname
fi
# t_deps, t_addr and t_syms list their own cases (run_cases below).

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
SRC=$ROOT/tests/debug
FX=$TMP/fx
BIN=$B/tests/debug
mkdir -p "$FX" "$BIN"
if [ ! -f "$B/libobjrt.a" ]; then
    fail "debug-build: $B/libobjrt.a missing (run make first)"
    exit 0
fi
# build_prog adds the sanitizer's flags; -O1 keeps t_crashhost's call into the loaded code a real call (the
# crash backtrace names t_crashhost's frame).
TFLAGS=""
# exitcode 86: a sanitizer report at exit is told apart from the tests' own status 1.
export ASAN_OPTIONS="detect_leaks=1:exitcode=86:abort_on_error=0"

fixture() {   # fixture NAME [FLAGS...]: $FX/NAME.o from $SRC/fixtures/NAME.c
    local name=$1; shift
    $GCC "$@" -c "$SRC/fixtures/$name.c" -o "$FX/$name.o" 2>"$FX/$name.err" ||
        { fail "debug-fixture-$name: $(tail -n 2 "$FX/$name.err" | tr '\n' ' ')"; return 1; }
}

# build NAME: $BIN/NAME from $SRC/NAME.c (a FAIL "NAME-build" when it does not compile).
# shellcheck disable=SC2086
build() { build_prog "$1-build" "$BIN/$1" "$SRC/$1.c" -- -O1 $TFLAGS; }

# cases NAME SECS ARGS...: run_cases on $BIN/NAME (tests/lib.sh: its cases are declared from
# its list mode; a crash, a timeout or a bad exit status fails every case it did not
# report); a sanitizer report on its stderr is one more FAIL. Its stdout stays in
# $TMP/NAME.out.
cases() {
    local name=$1 secs=$2; shift 2
    # shellcheck disable=SC2086
    run_cases "$name" "$secs" $RUN "$BIN/$name" "$@"
    if grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$TMP/$name.err"; then
        fail "$name-process: sanitizer report: $(grep -m 2 -E 'runtime error:|ERROR: ' "$TMP/$name.err" | tr '\n' ' ')"
    fi
    return 0
}

# ---- unload and dependants ------------------------------------------------------------
for f in dep_a dep_b dep_c; do fixture $f -O2; done
build t_deps && cases t_deps 120 "$FX"

# ---- addresses and symbols ------------------------------------------------------------
AR=ar; [ "$TARGET" = aarch64 ] && AR=aarch64-linux-gnu-ar
fixture addr -O2 && fixture addr_user -O2 &&
    { rm -f "$FX/libaddr.a"; $AR rcs "$FX/libaddr.a" "$FX/addr.o"; }
build t_addr && cases t_addr 120 "$FX/addr.o" "$FX/libaddr.a" "$FX/addr_user.o"
if build t_syms; then
    cases t_syms 120 "$FX/addr.o"
    # objrt_unit_foreach_sym visits exactly the globals nm lists as defined.
    grep '^SYM ' "$TMP/t_syms.out" | cut -d' ' -f2 | sort >"$TMP/visited"
    nm -g --defined-only "$FX/addr.o" | awk '{print $3}' | sort >"$TMP/nm-globals"
    if [ -s "$TMP/nm-globals" ] && cmp -s "$TMP/visited" "$TMP/nm-globals"; then
        pass "foreach-matches-nm ($(wc -l <"$TMP/visited") globals)"
    else
        fail "foreach-matches-nm: $(diff "$TMP/visited" "$TMP/nm-globals" | tr '\n' ' ')"
    fi
fi

# ---- -flto inputs ---------------------------------------------------------------------
KSRC=$SRC/fixtures/kernel.c
# lto_compile CASE OUT COMPILER...: compile kernel.c to $FX/OUT, else FAIL the case CASE.
lto_compile() {
    local name=$1 out=$FX/$2; shift 2
    "$@" -O2 -c "$KSRC" -o "$out" 2>"$out.err" ||
        { fail "$name: $* did not compile kernel.c: $(tail -n 2 "$out.err" | tr '\n' ' ')"; return 1; }
}
# shellcheck disable=SC2086
lto_compile lto-gcc-slim-explained k-gcc-lto.o $GCC -flto &&
    expect_fail lto-gcc-slim-explained "GCC LTO bytecode only .*-ffat-lto-objects" \
        $OBJRT run "$FX/k-gcc-lto.o"
# Negative control: a fat LTO object carries machine code and runs.
# shellcheck disable=SC2086
lto_compile lto-gcc-fat-runs k-gcc-fat.o $GCC -flto -ffat-lto-objects &&
    check lto-gcc-fat-runs $OBJRT run "$FX/k-gcc-fat.o"
# shellcheck disable=SC2086
lto_compile lto-clang-bitcode-explained k-clang-lto.o $CLANG -flto &&
    expect_fail lto-clang-bitcode-explained "k-clang-lto.o: LLVM bitcode .*without -flto" \
        $OBJRT run "$FX/k-clang-lto.o"
# shellcheck disable=SC2086
lto_compile lto-clang-thin-explained k-clang-thin.o $CLANG -flto=thin &&
    expect_fail lto-clang-thin-explained "LLVM bitcode" $OBJRT run "$FX/k-clang-thin.o"
# Negative control: other non-ELF bytes keep the generic message.
{ printf 'BC\x00\x00'; head -c 96 /dev/zero; } >"$FX/notbitcode.o"
expect_fail lto-not-bitcode "not an ELF object or ar archive" $OBJRT run "$FX/notbitcode.o"

# ---- crash report of objrt run --------------------------------------------------------
[ "$SAN" = asan ] && exit 0     # ASan's own SEGV report is what an ASan build should show
fixture crash -g -O0 && fixture kernel -g -O0
fixture cfi -O2 -fomit-frame-pointer -fasynchronous-unwind-tables -g0
# shellcheck disable=SC2086
timeout 60 $OBJRT run "$FX/crash.o" >"$TMP/crash.out" 2>"$TMP/crash.err"; rc=$?
first=$(grep -m1 '^objrt: SIG' "$TMP/crash.err")
if [ $rc -eq 139 ]; then pass "crash-dies-by-sigsegv (status 139)"
else fail "crash-dies-by-sigsegv: status $rc, expected 139 (128+SIGSEGV)"; fi
if printf '%s' "$first" | grep -Eq '^objrt: SIGSEGV at [^ ]*crash\.o:deref\+0x[0-9a-f]+ \(fault address 0x0\)$'; then
    pass "crash-report-names-local-function"
else
    fail "crash-report-names-local-function: first line '$first'"
fi
if grep -Eq '#1 0x[0-9a-f]+ [^ ]*crash\.o:helper\+0x[0-9a-f]+$' "$TMP/crash.err" &&
   grep -Eq '#2 0x[0-9a-f]+ [^ ]*crash\.o:main\+0x[0-9a-f]+$' "$TMP/crash.err" &&
   grep -Eq '#3 0x[0-9a-f]+ objrt\(' "$TMP/crash.err"; then
    pass "crash-backtrace-loaded-and-host-frames"
else
    fail "crash-backtrace-loaded-and-host-frames: $(grep '#' "$TMP/crash.err" | head -5 | tr '\n' ' ')"
fi
grep -q "about to crash" "$TMP/crash.out" && pass "crash-stdout-flushed-before" ||
    fail "crash-stdout-flushed-before: program output lost"
# A fault in an archive member names it as libx.a(member.o).
if fixture member_inner -g -O0 && fixture member_main -g -O0; then
    rm -f "$FX/libinner.a"; $AR rcs "$FX/libinner.a" "$FX/member_inner.o"
    # shellcheck disable=SC2086
    timeout 60 $OBJRT run "$FX/member_main.o" "$FX/libinner.a" >/dev/null 2>"$TMP/member.err"; rc=$?
    if [ $rc -eq 139 ] &&
       grep -Eq '^objrt: SIGSEGV at [^ ]*libinner\.a\(member_inner\.o\):inner\+0x[0-9a-f]+ ' "$TMP/member.err" &&
       grep -Eq '#1 0x[0-9a-f]+ [^ ]*member_main\.o:main\+0x' "$TMP/member.err"; then
        pass "crash-report-archive-member"
    else
        fail "crash-report-archive-member: status $rc, $(head -3 "$TMP/member.err" | tr '\n' ' ')"
    fi
fi
# abort() in loaded code: the signal comes from libc, the backtrace names the loaded caller.
if fixture abort -g -O0; then
    # shellcheck disable=SC2086
    timeout 60 $OBJRT run "$FX/abort.o" >/dev/null 2>"$TMP/abort.err"; rc=$?
    if [ $rc -eq 134 ] && grep -q '^objrt: SIGABRT at ' "$TMP/abort.err" &&
       grep -Eq '#[0-9]+ 0x[0-9a-f]+ [^ ]*abort\.o:main\+0x' "$TMP/abort.err"; then
        pass "crash-abort-reported (status 134)"
    else
        fail "crash-abort-reported: status $rc, $(head -4 "$TMP/abort.err" | tr '\n' ' ')"
    fi
fi
# Negative control: a program that does not crash reports nothing and exits 0.
# shellcheck disable=SC2086
timeout 60 $OBJRT run "$FX/kernel.o" >/dev/null 2>"$TMP/ok.err"; rc=$?
if [ $rc -eq 0 ] && ! grep -q 'objrt: SIG' "$TMP/ok.err"; then pass "crash-none-when-fine"
else fail "crash-none-when-fine: status $rc, $(head -2 "$TMP/ok.err" | tr '\n' ' ')"; fi

# The same report for a host: through the installed handler, and from its own handler.
if build t_crashhost; then
    # shellcheck disable=SC2086
    timeout 60 $RUN "$BIN/t_crashhost" install "$FX/crash.o" >/dev/null 2>"$TMP/host.err"; rc=$?
    if [ $rc -eq 139 ] && grep -Eq '^objrt: SIGSEGV at [^ ]*crash\.o:deref\+0x' "$TMP/host.err" &&
       grep -Eq '#2 0x[0-9a-f]+ t_crashhost\(' "$TMP/host.err"; then
        pass "crash-api-handler-install"
    else
        fail "crash-api-handler-install: status $rc, $(head -4 "$TMP/host.err" | tr '\n' ' ')"
    fi
    # shellcheck disable=SC2086
    timeout 60 $RUN "$BIN/t_crashhost" own "$FX/crash.o" >"$TMP/own.out" 2>&1; rc=$?
    if [ $rc -eq 42 ] && grep -Eq '^objrt: SIGSEGV at [^ ]*crash\.o:deref\+0x.*\(fault address 0x0\)' "$TMP/own.out"; then
        pass "crash-api-report-from-host-handler"
    else
        fail "crash-api-report-from-host-handler: status $rc, $(head -3 "$TMP/own.out" | tr '\n' ' ')"
    fi
fi

# ---- gdb through the JIT interface ----------------------------------------------------
# x86_64: gdb runs the program. aarch64: qemu-user runs it as a gdb server and
# gdb-multiarch connects (the JIT interface only needs memory reads and breakpoints).
B1=$B/objrt
line_of() { grep -n -m1 -F "$2" "$SRC/fixtures/$1" | cut -d: -f1; }
# The time gdb_batch (tests/lib.sh) allows each gdb run of this suite, in seconds.
GDB_SECS=120
GDB=$(gdb_name)
if ! command -v $GDB >/dev/null; then
    fail "gdb: $GDB not installed (scripts/install-deps.sh installs it)"
else
    L=$(line_of crash.c 'return *p + 1;')
    out=$(gdb_batch RUN bt -- "$B1" run "$FX/crash.o")
    if printf '%s\n' "$out" | grep -Eq "^#0 .* deref \(p=0x0\) at .*crash\.c:$L\$" &&
       printf '%s\n' "$out" | grep -Eq "^#1 .* helper \(p=0x0\) at .*crash\.c:" &&
       printf '%s\n' "$out" | grep -Eq "^#2 .* main \(argc=1, .*\) at .*crash\.c:"; then
        pass "gdb-bt-function-and-line"
    else
        fail "gdb-bt-function-and-line: $(printf '%s\n' "$out" | grep '^#' | head -3 | tr '\n' ' ')"
    fi
    # clang's DWARF 5 (.debug_addr, .debug_str_offsets, their relocations) the same way.
    if $CLANG -g -O0 -c "$SRC/fixtures/crash.c" -o "$FX/crash-clang.o"; then
        out=$(gdb_batch RUN bt -- "$B1" run "$FX/crash-clang.o")
        if printf '%s\n' "$out" | grep -Eq "^#0 .* deref \(p=0x0\) at .*crash\.c:$L\$" &&
           printf '%s\n' "$out" | grep -Eq "^#2 .* main \(argc=1, .*\) at .*crash\.c:"; then
            pass "gdb-bt-clang-dwarf5"
        else
            fail "gdb-bt-clang-dwarf5: $(printf '%s\n' "$out" | grep '^#' | head -3 | tr '\n' ' ')"
        fi
    fi
    # Negative control: without the registration gdb cannot name the frame.
    out=$(OBJRT_GDB_JIT=0 gdb_batch RUN bt -- "$B1" run "$FX/crash.o")
    if printf '%s\n' "$out" | grep -q '^#0 ' && ! printf '%s\n' "$out" | grep -q 'deref'; then
        pass "gdb-bt-negative-control-unregistered"
    else
        fail "gdb-bt-negative-control-unregistered: $(printf '%s\n' "$out" | grep '^#' | head -2 | tr '\n' ' ')"
    fi

    # No DWARF, no frame pointers: the callers are found through the image's .eh_frame
    # (copied from the unit as relocated, without its relocations) or not at all.
    out=$(gdb_batch RUN bt -- "$B1" run "$FX/cfi.o")
    if printf '%s\n' "$out" | grep -Eq '^#0 .* inner \(\)' &&
       printf '%s\n' "$out" | grep -Eq '^#1 .* outer \(\)' &&
       printf '%s\n' "$out" | grep -Eq '^#2 .* main \(\)'; then
        pass "gdb-bt-unwind-tables-only"
    else
        fail "gdb-bt-unwind-tables-only: $(printf '%s\n' "$out" | grep '^#' | head -3 | tr '\n' ' ')"
    fi
    # clang's object: one string table for section and symbol names, an .llvm_addrsig.
    if $CLANG -O2 -fomit-frame-pointer -g0 -c "$SRC/fixtures/cfi.c" -o "$FX/cfi-clang.o"; then
        out=$(gdb_batch RUN bt 'info symbol $pc' -- "$B1" run "$FX/cfi-clang.o")
        if printf '%s\n' "$out" | grep -Eq '^#1 .* outer \(\)' &&
           printf '%s\n' "$out" | grep -Eq '^#2 .* main \(\)' &&
           printf '%s\n' "$out" | grep -Eq '^inner \+ [0-9]+ in section \.text'; then
            pass "gdb-bt-unwind-tables-only-clang"
        else
            fail "gdb-bt-unwind-tables-only-clang: $(printf '%s\n' "$out" | grep -E '^#|section' | head -4 | tr '\n' ' ')"
        fi
    fi
    out=$(OBJRT_GDB_JIT=0 gdb_batch RUN bt -- "$B1" run "$FX/cfi.o")
    if printf '%s\n' "$out" | grep -q '^#0 ' && ! printf '%s\n' "$out" | grep -Eq ' (outer|main) \(\)'; then
        pass "gdb-bt-unwind-negative-control-unregistered"
    else
        fail "gdb-bt-unwind-negative-control-unregistered: $(printf '%s\n' "$out" | grep '^#' | head -3 | tr '\n' ' ')"
    fi

    L=$(line_of kernel.c 'return 2 * x;')
    out=$(gdb_batch 'set breakpoint pending on' 'break twice' RUN bt 'info symbol $pc' -- \
          "$B1" run "$FX/kernel.o")
    if printf '%s\n' "$out" | grep -Eq "^Breakpoint 1, twice \(x=20\) at .*kernel\.c:$L\$" &&
       printf '%s\n' "$out" | grep -Eq "^#1 .* kernel_fn \(x=20\) at .*kernel\.c:"; then
        pass "gdb-break-by-name-before-load"
    else
        fail "gdb-break-by-name-before-load: $(printf '%s\n' "$out" | grep -E '^(Breakpoint|#|\[Inf)' | head -3 | tr '\n' ' ')"
    fi
    if printf '%s\n' "$out" | grep -Eq '^twice \+ [0-9]+ in section \.text'; then
        pass "gdb-info-symbol"
    else
        fail "gdb-info-symbol: $(printf '%s\n' "$out" | tail -n 2 | tr '\n' ' ')"
    fi
    out=$(OBJRT_GDB_JIT=0 gdb_batch 'set breakpoint pending on' 'break twice' RUN -- \
          "$B1" run "$FX/kernel.o")
    if ! printf '%s\n' "$out" | grep -q '^Breakpoint 1, ' && printf '%s\n' "$out" | grep -q 'exited normally'; then
        pass "gdb-break-negative-control-unregistered"
    else
        fail "gdb-break-negative-control-unregistered: $(printf '%s\n' "$out" | tail -n 2 | tr '\n' ' ')"
    fi

    if build t_gdbhost; then
        out=$(gdb_batch 'break debug_stop' RUN 'print kernel_fn' -- "$BIN/t_gdbhost" "$FX/kernel.o")
        if printf '%s\n' "$out" | grep -q 'No symbol "kernel_fn" in current context'; then
            pass "gdb-unit-gone-after-unload"
        else
            fail "gdb-unit-gone-after-unload: $(printf '%s\n' "$out" | tail -n 2 | tr '\n' ' ')"
        fi
        # Negative control: the same stop with the unit still loaded finds it.
        out=$(gdb_batch 'break debug_stop' RUN 'print kernel_fn' -- "$BIN/t_gdbhost" "$FX/kernel.o" keep)
        if printf '%s\n' "$out" | grep -Eq '^\$1 = \{int \(int\)\} 0x[0-9a-f]+ <kernel_fn>'; then
            pass "gdb-unit-present-while-loaded"
        else
            fail "gdb-unit-present-while-loaded: $(printf '%s\n' "$out" | tail -n 2 | tr '\n' ' ')"
        fi
    fi
fi


[ "$TARGET" = x86_64 ] || exit 0
[ -z "$SAN" ] || exit 0
# ---- the library and CLI a distribution ships (x86_64:) -------------------------------
# Exported symbols of libobjrt.so = functions the headers declare (as the compiler parses
# them: gcc -aux-info) + GDB's two JIT names.
printf '#include <objrt.h>\n#include <objrt/tvm_backend.h>\n#include <objrt/tvm_ffi.h>\n' >"$TMP/hdr.c"
exported_vs_headers() {   # exported_vs_headers LIB: prints the differences, fails on any
    local lib=$1
    gcc -std=c11 -I"$ROOT/include" -aux-info "$TMP/aux.txt" -c "$TMP/hdr.c" -o "$TMP/hdr.o" || return 2
    grep -F "/* $ROOT/include/" "$TMP/aux.txt" | grep -v '^/\*.*\*/ typedef' |
        sed -E 's/^\/\*[^*]*\*\/ *//; s/ *\(.*//; s/.*[ *]//' | sort -u >"$TMP/declared"
    printf '%s\n' __jit_debug_descriptor __jit_debug_register_code >>"$TMP/declared"
    sort -u -o "$TMP/declared" "$TMP/declared"
    nm -D --defined-only "$lib" | awk '$2 != "A" {sub(/@.*/, "", $3); print $3}' | sort -u >"$TMP/exported"
    diff "$TMP/declared" "$TMP/exported" >"$TMP/exports.diff"
}
if exported_vs_headers "$B/libobjrt.so"; then
    pass "exports-match-headers ($(wc -l <"$TMP/exported") symbols)"
else
    fail "exports-match-headers: < declared only, > exported only: $(grep '^[<>]' "$TMP/exports.diff" | head -8 | tr '\n' ' ')"
fi
# Negative control: the same objects linked without the version script, with one more
# object defining a name no header declares (libobjrt's own internals are hidden: compiled
# -fvisibility=hidden, local in libobjrt.a), must be caught.
printf 'int objrt_planted_internal(void) { return 0; }\n' >"$TMP/planted.c"
gcc -c -fPIC "$TMP/planted.c" -o "$TMP/planted.o"
gcc -shared -o "$TMP/libunversioned.so" "$TMP/planted.o" -Wl,--whole-archive "$B/libobjrt.a" -Wl,--no-whole-archive -ldl -lpthread -ljansson
if ! exported_vs_headers "$TMP/libunversioned.so" && grep -q '^> objrt_planted_internal$' "$TMP/exports.diff"; then
    pass "exports-negative-control-unversioned"
else
    fail "exports-negative-control-unversioned: the comparison did not catch objrt_planted_internal"
fi

soname=$(readelf -d "$B/libobjrt.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libobjrt.so.0 ] && pass "soname (libobjrt.so.0)" || fail "soname: '$soname', expected libobjrt.so.0"

hv=$(sed -n 's/^#define OBJRT_VERSION "\(.*\)".*/\1/p' "$ROOT/include/objrt.h")
v=$("$B1" --version)
[ -n "$hv" ] && [ "$v" = "objrt $hv" ] && pass "cli-version ($v)" || fail "cli-version: '$v', header says '$hv'"
expect_fail "cli-missing-argument-e" "^objrt: option requires an argument -- 'e'" "$B1" run "$FX/kernel.o" -e
expect_fail "cli-missing-argument-page-size" "option '--page-size' requires an argument" "$B1" layout "$FX/kernel.o" --page-size
check "cli-e-with-value-negative-control" "$B1" run "$FX/kernel.o" -e main
expect_fail "cli-unknown-command" "^objrt: unknown command 'frobnicate'" "$B1" frobnicate x.o
"$B1" frobnicate >/dev/null 2>&1; rc=$?
[ $rc -eq 125 ] && pass "cli-unknown-command-status-125" || fail "cli-unknown-command-status-125: exit status $rc"
help=$("$B1" --help)
if printf '%s' "$help" | grep -q 'objrt layout \[-l LIB\]' && printf '%s' "$help" | grep -q OBJRT_PERF_MAP; then
    pass "cli-usage-documents-layout-l-and-perf-map"
else
    fail "cli-usage-documents-layout-l-and-perf-map"
fi

# make install: versioned library and symlinks, man pages, a program using the .so.
P=$TMP/prefix
if make -C "$ROOT" --no-print-directory -s install PREFIX="$P" >"$TMP/install.log" 2>&1; then
    if [ -f "$P/lib/libobjrt.so.$hv" ] && [ ! -L "$P/lib/libobjrt.so.$hv" ] &&
       [ "$(readlink "$P/lib/libobjrt.so.0")" = "libobjrt.so.$hv" ] &&
       [ "$(readlink "$P/lib/libobjrt.so")" = libobjrt.so.0 ]; then
        pass "install-library-symlinks"
    else
        fail "install-library-symlinks: $(ls -l "$P/lib" | tr '\n' ' ')"
    fi
    m1=$(MANWIDTH=200 man -l "$P/share/man/man1/objrt.1" 2>&1)
    m3=$(MANWIDTH=200 man -l "$P/share/man/man3/objrt.3" 2>&1)
    missing=""
    for e in $(grep -rhoE '"(OBJRT|TVM|OMP)_[A-Z_]+"' "$ROOT/src" | tr -d '"' | sort -u); do
        printf '%s' "$m1" | grep -q -- "$e" || missing="$missing $e"
    done
    if [ -z "$missing" ] && printf '%s' "$m1" | grep -q 'objrt layout' &&
       printf '%s' "$m3" | grep -q 'objrt_addr_info'; then
        pass "install-man-pages-document-every-variable"
    else
        fail "install-man-pages-document-every-variable: undocumented:${missing:- (none)}; objrt.3 renders: $(printf '%s' "$m3" | head -c 80)"
    fi
    needed=""
    gcc -I"$P/include" "$SRC/t_gdbhost.c" -L"$P/lib" -lobjrt -o "$TMP/uses_so" &&
        needed=$(readelf -d "$TMP/uses_so" | grep -o 'libobjrt[^]]*')
    if [ "$needed" = libobjrt.so.0 ] &&
       LD_LIBRARY_PATH="$P/lib" "$TMP/uses_so" "$FX/kernel.o" | grep -q 'kernel_fn returned 41'; then
        pass "install-program-links-against-soname"
    else
        fail "install-program-links-against-soname: NEEDED '$needed'"
    fi
else
    for c in install-library-symlinks install-man-pages-document-every-variable install-program-links-against-soname; do
        fail "$c: make install failed: $(tail -n 3 "$TMP/install.log" | tr '\n' ' ')"
    done
fi
exit 0

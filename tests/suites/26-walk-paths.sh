#!/usr/bin/env bash
# 26-walk-paths: the two paths of the walks over relocations (src/sites/sites.h: a fast
# path for the common relocation, the full path for everything else) write the same image.
# tests/walk-paths/t_walkpaths.c loads a set of objects, copies the unit's groups, unloads it and
# loads the same set with OBJRT_FULL_WALK=1 into the reservation the first left (place.c's
# reuse: every address the same), then compares byte for byte; a byte planted in the copy
# is the control. Sets: Debian's libsqlite3.a members (GOT slots, stubs to host functions,
# every common x86_64/AArch64 type, ADRP pages on AArch64) and, on x86_64, liblua5.4.a's
# members (data references to libc's stdin/stderr: a placement window), and the `calls`
# fixture program compiled here with -mcmodel=large -fno-pic (absolute references). Configs:
# x86_64 (any sanitizer but tsan) and aarch64 under qemu-user.
set -u
. "$ROOT/tests/lib.sh"

case "$TARGET:${SAN:-}" in
    x86_64:tsan) exit 0 ;;
    x86_64:*) LIBDIR=/usr/lib/x86_64-linux-gnu ;;
    aarch64:*) LIBDIR=/usr/lib/aarch64-linux-gnu ;;
    *) exit 0 ;;
esac
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
FX=$TMP/walk
mkdir -p "$FX"
export ASAN_OPTIONS="detect_leaks=1:exitcode=86:abort_on_error=0"
unset OBJRT_REUSE OBJRT_PACK OBJRT_FULL_WALK

# -fPIC: no copy relocations in the test program, so libc's stdin and stderr both stay in
# libc, where Lua's PC32 references can reach them from one placement.
build_prog walk-build "$B/tests/walk-paths/t_walkpaths" "$ROOT/tests/walk-paths/t_walkpaths.c" -- -fPIC ||
    exit 0

# set NAME ARCHIVE: the archive's members, extracted into $FX/NAME.
members() {
    mkdir -p "$FX/$1" && (cd "$FX/$1" && ar x "$2")
}
sets=()
if [ -f "$LIBDIR/libsqlite3.a" ] && members sqlite "$LIBDIR/libsqlite3.a"; then
    sets+=(sqlite)
else
    fail "walk-fixtures: $LIBDIR/libsqlite3.a missing (scripts/install-deps.sh installs it)"
fi
if [ "$TARGET" = x86_64 ]; then
    if [ -f "$LIBDIR/liblua5.4.a" ] && members lua "$LIBDIR/liblua5.4.a"; then
        sets+=(lua)
    else
        fail "walk-fixtures: $LIBDIR/liblua5.4.a missing (scripts/install-deps.sh installs it)"
    fi
fi
mkdir -p "$FX/large"
for f in "$ROOT"/tests/fixtures/progs/calls/*.c; do
    $GCC -O2 -mcmodel=large -fno-pic -c "$f" -o "$FX/large/$(basename "$f" .c).o" 2>>"$FX/large.err" ||
        { fail "walk-fixtures: $(head -n 2 "$FX/large.err" | tr '\n' ' ')"; break; }
done
compgen -G "$FX/large/*.o" >/dev/null && sets+=(large)
for s in "${sets[@]}"; do
    # shellcheck disable=SC2086
    run_cases "t_walkpaths-$s" 300 $RUN "$B/tests/walk-paths/t_walkpaths" "$s" "$FX/$s"/*.o
    if grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$TMP/t_walkpaths-$s.err"; then
        fail "t_walkpaths-$s-process: sanitizer report: $(grep -m 2 -E 'runtime error:|ERROR: ' "$TMP/t_walkpaths-$s.err" | tr '\n' ' ')"
    fi
done
exit 0

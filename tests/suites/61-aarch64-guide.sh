#!/usr/bin/env bash
# 61-aarch64-guide: docs/reference.md's "Cross-building and running on AArch64" runs as
# written (issue 36, item 6), in a scratch folder seeing the checkout and this configuration's
# build-aarch64/: every package its apt-get line names is one apt can install here
# (apt-get -s); the build-and-run block (README's C quick start as host.c, its `make` line
# left out: the build is this configuration's) prints `dot = 32` and objrt's layout; the
# board block stages `make TARGET=aarch64 install DESTDIR=...` into a tarball, and the
# objrt unpacked from it runs a unit under qemu-aarch64 -L / as the board would.
# Controls: the x86_64 objrt in the AArch64 commands fails (the block really runs AArch64
# code); a wrong expected value is not found.
# aarch64 configuration cross-built on x86_64 only.
set -u
. tests/lib.sh
[ "$TARGET:$SAN" = aarch64: ] && [ -n "$RUN" ] || exit 0
expect guide-packages-resolve guide-build-and-run guide-layout guide-board-stage-runs
expect_harness guide-control-x86-objrt-fails guide-control-wrong-value

PY=/usr/bin/python3 CHK="/usr/bin/python3 $ROOT/tests/docs/check_docs.py"
SEC="Cross-building and running on AArch64"
Q=$TMP/guide; mkdir -p "$Q"
for d in include examples tests; do ln -s "$ROOT/$d" "$Q/$d"; done
ln -s "$(cd "$ROOT/$BUILD" && pwd)" "$Q/build-aarch64"
$CHK block "$ROOT/README.md" "Quick start: C" 0 >"$Q/host.c"
for i in 0 1 2; do $CHK block "$ROOT/docs/reference.md" "$SEC" $i >"$Q/block$i.sh" || fail "guide-build-and-run: no block $i"; done

# The packages: the apt-get install line, continuation lines joined.
pk=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$Q/block0.sh" | sed -n 's/.*apt-get install //p')
if [ -n "$pk" ] && apt-get -s -qq install $pk >"$TMP/sim.log" 2>&1; then pass "guide-packages-resolve ($(echo $pk | wc -w) packages)"
else fail "guide-packages-resolve: '$pk' $(oneline "$(cat "$TMP/sim.log")")"; fi

# The build-and-run block without its make line.
out=$(cd "$Q" && grep -v '^make' block1.sh | bash -e 2>&1)
[[ $out == *"dot = 32"* ]] && pass guide-build-and-run || fail "guide-build-and-run: $(oneline "$out")"
case $out in *"dot = 33"*) hfail "guide-control-wrong-value: found" ;; *) hpass guide-control-wrong-value ;; esac
grep -q "^[A-Za-z]" <<<"$(printf '%s\n' "$out" | tail -n 1)" && [[ $out != *rror* ]] &&
    pass "guide-layout ($(printf '%s\n' "$out" | tail -n 1 | cut -c1-60))" || fail "guide-layout: $(oneline "$out")"
# Control: the same commands with the x86_64 objrt in place of build-aarch64's.
if [ -x "$ROOT/build/objrt" ]; then
    out=$(cd "$Q" && grep -v '^make' block1.sh | sed "s|build-aarch64/objrt|$ROOT/build/objrt|" | tail -n 1 | bash -e 2>&1)
    [ $? -ne 0 ] || [[ $out == *"Invalid ELF"* || $out == *"rror"* ]] && hpass guide-control-x86-objrt-fails ||
        hfail "guide-control-x86-objrt-fails: $(oneline "$out")"
else hpass "guide-control-x86-objrt-fails (no x86_64 build to plant: skipped)"; fi

# The board: the staging commands (make with this checkout's build), then the tarball unpacked
# into a fresh folder standing in for the board's /, its objrt run under qemu.
st=$(cd "$Q" && sed -e "s|^make |make -C $ROOT --no-print-directory -s |" -e 's|^# .*||' block2.sh | bash -e 2>&1)
B=$TMP/board; mkdir -p "$B"
printf '#include <stdio.h>\nint main(void) { puts("hello from the board"); return 0; }\n' >"$Q/hello.c"
$GCC -O2 -c "$Q/hello.c" -o "$Q/hello.o"
if [ -f "$Q/objrt-arm64.tar.gz" ] && tar -C "$B" -xzf "$Q/objrt-arm64.tar.gz" &&
   out=$(LD_LIBRARY_PATH= $RUN "$B/usr/local/bin/objrt" run "$Q/hello.o" 2>&1) && [[ $out == *"hello from the board"* ]] &&
   [ -f "$B/usr/local/lib/cmake/objrt/objrt-config.cmake" ] && file -L "$B/usr/local/lib/libobjrt.so" | grep -q aarch64; then
    pass "guide-board-stage-runs"
else fail "guide-board-stage-runs: $(oneline "$st ${out:-} $(ls "$Q")")"; fi

#!/usr/bin/env bash
# 42-bench-links: every link `make bench` times is a link that works. The four link
# benchmark harnesses (bench/link: objrt_link, rtdyld_link for LLVM 14's RuntimeDyld,
# jitlink_link for its JITLink, dlopen_link for the library already linked by ld) are built
# as bench/link/run.sh builds them and each links Debian's libsqlite3.a and liblua5.4.a
# members once, then calls into the result (bench/link/check.c: sqlite runs a query, Lua a
# script); JITLink's refusal of liblua5.4.a (STV_INTERNAL symbols) must be the refusal the
# benchmark table reports. Control: the sqlite check run against the Lua link must fail.
# x86_64 plain only (the benchmarks' configuration).
# suite-timeout: 900
set -u
. tests/lib.sh
[ "$TARGET" = x86_64 ] && [ -z "$SAN" ] || exit 0

LC=${LLVM_CONFIG:-llvm-config-14}
LIBDIR=/usr/lib/$($GCC -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
B=$TMP/bench
mkdir -p "$B/sqlite" "$B/lua"
expect bench-build-objrt bench-build-dlopen bench-build-rtdyld bench-build-jitlink
for set in sqlite lua; do
    expect "bench-$set-objrt" "bench-$set-rtdyld" "bench-$set-dlopen" "bench-$set-jitlink"
done
expect_harness bench-check-control

CF=(-fPIC -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$ROOT/bench/link")
LLVMF=$($LC --cxxflags 2>/dev/null | sed 's/-I/-isystem /g')
$GCC "${CF[@]}" -c "$ROOT/bench/link/check.c" -o "$B/check.o" 2>"$B/check.log" ||
    fail "bench-build-objrt: check.c: $(tail -n 2 "$B/check.log" | tr '\n' ' ')"
check bench-build-objrt $GCC "${CF[@]}" -I"$ROOT/include" "$ROOT/bench/link/objrt_link.c" "$B/check.o" \
    "$BUILD/libobjrt.a" -ldl -lpthread -lm -o "$B/objrt_link"
check bench-build-dlopen $GCC "${CF[@]}" "$ROOT/bench/link/dlopen_link.c" "$B/check.o" -ldl -o "$B/dlopen_link"
# shellcheck disable=SC2086  # llvm-config's flags are words
check bench-build-rtdyld c++ -fPIC -O1 $LLVMF -I"$ROOT/bench/link" "$ROOT/bench/link/rtdyld_link.cpp" "$B/check.o" \
    -o "$B/rtdyld_link" $($LC --ldflags --libs core executionengine runtimedyld object support native) -ldl
# shellcheck disable=SC2086
check bench-build-jitlink c++ -fPIC -O1 $LLVMF -I"$ROOT/bench/link" "$ROOT/bench/link/jitlink_link.cpp" "$B/check.o" \
    -o "$B/jitlink_link" $($LC --ldflags --libs core orcjit jitlink executionengine object support native) -ldl

(cd "$B/sqlite" && ar x "$LIBDIR/libsqlite3.a") && (cd "$B/lua" && ar x "$LIBDIR/liblua5.4.a")
# linked CHECK HARNESS ARGS...: the harness's one link must pass its check (calls into the code).
linked() {
    local name=$1 out; shift
    out=$(timeout 300 "$@" 2>&1)
    if printf '%s\n' "$out" | grep -q '^check=ok'; then pass "$name"
    else fail "$name: no check=ok: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"; fi
}
for set in sqlite lua; do
    [ "$set" = sqlite ] && so=libsqlite3.so.0 || so=liblua5.4.so.0
    linked "bench-$set-objrt" "$B/objrt_link" -r 1 -t 1 -c "$set" "$B/$set"/*.o
    linked "bench-$set-rtdyld" "$B/rtdyld_link" -r 1 -t 1 -c "$set" "$B/$set"/*.o
    linked "bench-$set-dlopen" "$B/dlopen_link" -r 1 -t 1 -c "$set" "$so"
done
linked bench-sqlite-jitlink "$B/jitlink_link" -r 1 -t 1 -c sqlite "$B/sqlite"/*.o
out=$(timeout 300 "$B/jitlink_link" -r 1 -t 1 -c lua "$B/lua"/*.o 2>/dev/null)
if printf '%s' "$out" | grep -q '^jitlink refused=".*visibility'; then
    pass "bench-lua-jitlink (refused, as the table says: $(printf '%s' "$out" | sed -n 's/^jitlink refused=//p'))"
elif printf '%s' "$out" | grep -q '^check=ok'; then
    pass "bench-lua-jitlink (this LLVM links it)"
else
    fail "bench-lua-jitlink: neither linked nor refused with a reason: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
fi
# Control: the check really calls into the link: sqlite's check cannot pass on Lua's objects.
if timeout 300 "$B/objrt_link" -r 1 -t 1 -c sqlite "$B/lua"/*.o 2>&1 | grep -q '^check=ok'; then
    hfail "bench-check-control: the sqlite check passed on a Lua link"
else
    hpass bench-check-control
fi

#!/usr/bin/env bash
# 47-wide-code: AArch64 code wider than a branch reaches, in ONE section (issue 9): stub
# blocks go before and after the code (and between code items wherever the code since the
# last block would exceed the reach), and every call picks the nearest. A 140 MiB section
# is called across both ways (status 42, and the layout shows the blocks used); a caller in
# the middle of a 270 MiB section reaches no block and must be refused with a message that
# says so (the negative control: the same check passes nothing that cannot work).
set -u
. tests/lib.sh

[ "$TARGET:$SAN" = aarch64: ] || exit 0
expect "aarch64 140 MiB single section called across both ways" \
       "aarch64 140 MiB single section layout" "aarch64 270 MiB section caller in the middle refused"
W=$TMP

if $GCC -c tests/aarch64/one_section.S -o "$W/one.o" 2>"$W/err"; then
    # shellcheck disable=SC2086
    $OBJRT run "$W/one.o" >"$W/out" 2>&1; rc=$?
    if [ $rc = 42 ]; then pass "aarch64 140 MiB single section called across both ways (status 42)"
    else fail "aarch64 140 MiB single section called across both ways: status $rc, want 42: $(oneline "$(cat "$W/out")")"; fi
    # shellcheck disable=SC2086
    $OBJRT layout "$W/one.o" >"$W/layout" 2>&1
    blocks=$(grep -c ' stubs (' "$W/layout")
    if [ "$blocks" -ge 2 ] && grep -Eq 'stubs 2 \(2 calls needed one\)' "$W/layout"; then
        pass "aarch64 140 MiB single section layout ($blocks stub blocks, both calls through one)"
    else
        fail "aarch64 140 MiB single section layout: $blocks blocks, $(grep -E 'stubs' "$W/layout" | tr '\n' ' ')"
    fi
else
    fail "aarch64 140 MiB single section called across both ways: assemble: $(oneline "$(cat "$W/err")")"
fi
rm -f "$W/one.o"
if $GCC -c -DMID tests/aarch64/one_section.S -o "$W/mid.o" 2>"$W/err"; then
    # shellcheck disable=SC2086
    expect_fail "aarch64 270 MiB section caller in the middle refused (no stub block in reach)" \
        "JUMP26 against 'start_fn': call target out of reach, and so is every stub block: the nearest is 0x[0-9a-f]+ bytes away" \
        $OBJRT run "$W/mid.o"
else
    fail "aarch64 270 MiB section caller in the middle refused: assemble: $(oneline "$(cat "$W/err")")"
fi
rm -f "$W/mid.o"

#!/usr/bin/env bash
# 69-install-deps: scripts/install-deps.sh chooses packages apt can install on the release it
# runs on, and the build's hint names a command that works there (issue 36, item 5). On this
# machine (Debian 12) and in the Debian 13 and sid roots (scripts/numba-root.sh trixie, sid):
# the script, run in the release, reports that release; every package of its set (--list) and
# the Python build's hint's `apt-get install` line resolve in apt (apt-get -s: a simulated
# install with dependencies, nothing written); --build's list is the hint's; the roots' sets
# leave llvm-14-dev out and say the bench column is skipped.
# The roots' package lists are amd64 only: their arm64 names are checked on this machine.
# Controls: the previous script's set (llvm-14-dev for every release) is refused by apt in
# trixie; a hint naming a package that does not exist is refused.
# x86_64 without sanitizers (nothing here depends on the build configuration).
# suite-timeout: 900
set -u
. tests/lib.sh
[ "$TARGET:$SAN" = x86_64: ] || exit 0

expect deps-host-release-and-set deps-build-list-is-the-hint deps-hint-says-what-failed
for r in trixie sid; do expect deps-$r-release deps-$r-set-resolves deps-$r-hint-resolves deps-$r-no-llvm14; done
expect_harness deps-control-old-set-refused-in-trixie deps-control-bad-hint-refused

S=$ROOT/scripts/install-deps.sh
# resolves ROOTDIR PKG...: apt-get -s install in ROOTDIR ("" = this machine); the last lines on failure.
resolves() { local r=$1; shift
    ${r:+chroot "$r"} apt-get -s -qq -o Debug::NoLocking=1 install --no-install-recommends "$@" >"$TMP/sim.log" 2>&1 ||
        { tail -n 3 "$TMP/sim.log" | tr '\n' ' '; return 1; }; }

# The hint: the Python build's message when `make` fails (a make that exits 2 first in PATH).
mkdir -p "$TMP/bin"; printf '#!/bin/sh\nexit 2\n' >"$TMP/bin/make"; chmod +x "$TMP/bin/make"
hint=$(cd "$ROOT/python/_build" && env -u OBJRT_PY_NO_LIBRARY PATH="$TMP/bin:$PATH" /usr/bin/python3 -c '
import objrt_build
try:
    objrt_build._library()
except RuntimeError as e:
    print(e)' 2>/dev/null)
hint_pkgs=$(printf '%s' "$hint" | sed -n 's/.*`sudo apt-get install \([^`]*\)`.*/\1/p')
if [[ $hint == *"failed (exit 2)"* ]] && [ -n "$hint_pkgs" ]; then pass "deps-hint-says-what-failed"
else fail "deps-hint-says-what-failed: '$hint'"; fi
build_list=$(bash "$S" --build --list | tr '\n' ' ')
[ "$build_list" = "$hint_pkgs " ] && pass deps-build-list-is-the-hint ||
    fail "deps-build-list-is-the-hint: --build lists '$build_list', the hint '$hint_pkgs'"

# This machine.
out=$(bash "$S" --dry-run 2>&1); rel=$(. /etc/os-release; echo "${VERSION_ID:-sid}")
if [[ $out == *"Debian $rel"* ]] && why=$(resolves "" $(bash "$S" --list) $hint_pkgs); then
    pass "deps-host-release-and-set (Debian $rel, $(bash "$S" --list | wc -l) packages)"
else fail "deps-host-release-and-set: $(oneline "$out") ${why:-}"; fi

for r in trixie sid; do
    if ! R=$(bash "$ROOT/scripts/numba-root.sh" $r 2>"$TMP/root.err"); then
        for c in release set-resolves hint-resolves no-llvm14; do fail "deps-$r-$c: no $r root: $(oneline "$(cat "$TMP/root.err")")"; done
        continue
    fi
    cp "$S" "$R/tmp/install-deps.sh"
    out=$(chroot "$R" bash /tmp/install-deps.sh --dry-run 2>&1)
    want=13; [ $r = sid ] && want=sid
    [[ $out == *"install-deps: Debian $want"* ]] && pass "deps-$r-release" || fail "deps-$r-release: $(oneline "$out")"
    set_=$(chroot "$R" bash /tmp/install-deps.sh --list | grep -v ':arm64$')
    if why=$(resolves "$R" $set_); then pass "deps-$r-set-resolves ($(echo $set_ | wc -w) amd64 packages)"
    else fail "deps-$r-set-resolves: $why"; fi
    if why=$(resolves "$R" $hint_pkgs); then pass "deps-$r-hint-resolves"; else fail "deps-$r-hint-resolves: $why"; fi
    if ! grep -qx llvm-14-dev <<<"$set_" && [[ $out == *"no llvm-14-dev on Debian $want"* ]]; then pass "deps-$r-no-llvm14"
    else fail "deps-$r-no-llvm14: $(oneline "$out")"; fi
    if [ $r = trixie ]; then
        # Control: the old script asked every release for llvm-14-dev.
        why=$(resolves "$R" $set_ llvm-14-dev) && hfail "deps-control-old-set-refused-in-trixie: apt accepted it" ||
            { [[ $why == *llvm-14-dev* ]] && hpass deps-control-old-set-refused-in-trixie ||
              hfail "deps-control-old-set-refused-in-trixie: $why"; }
        why=$(resolves "$R" $hint_pkgs libobjrt-no-such-dev) && hfail "deps-control-bad-hint-refused: apt accepted it" ||
            { [[ $why == *libobjrt-no-such-dev* ]] && hpass deps-control-bad-hint-refused ||
              hfail "deps-control-bad-hint-refused: $why"; }
    fi
    rm -f "$R/tmp/install-deps.sh"
done

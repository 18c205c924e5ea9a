# A JIT session as the seed (issue 8) describes it: llvmlite emits 2000 modules for the
# target with the JIT's code and relocation model (tests/jit/gen_session.py); a C host
# (tests/jit/jit_session.c) loads them one by one as units of one context, each calling a
# function and reading globals of earlier units, with a 5 GiB hole reserved every 100 units
# so later units land more than 4 GiB away. Every unit's result is checked; a reference
# that cannot reach must be refused with a message, never linked wrong. At 4, 16 and
# 64 KiB plan pages. x86_64: and aarch64: (under qemu-user) configurations, no sanitizer.
. tests/lib.sh
[ -z "$SAN" ] && { [ "$TARGET" = x86_64 ] || [ "$TARGET" = aarch64 ]; } || exit 0
N=2000
GiB4=$((4 << 30))
pages="4096 16384 65536"
for ps in $pages; do expect "jit-session-$ps"; done
expect jit-session-small-static
expect_harness jit-session-near-control jit-session-wrong-value-control

gen() { /usr/bin/python3 "$ROOT/tests/jit/gen_session.py" "$TARGET" "$@" 2>"$TMP/gen.err"; }
if ! gen jit "$N" "$TMP/jit" || ! gen small-static 300 "$TMP/small"; then
    fail "jit-session: generating the modules failed: $(tail -n 2 "$TMP/gen.err" | tr '\n' ' ')"; exit 0
fi
build_prog jit-session "$TMP/jit_session" "$ROOT/tests/jit/jit_session.c" || exit 0
session() { timeout 600 $RUN "$TMP/jit_session" "$@" 2>"$TMP/session.err"; }
field() { printf '%s\n' "$1" | sed -n "s/.*$2=\([0-9]*\).*/\1/p"; }

for ps in $pages; do
    out=$(session "$TMP/jit" "$N" "$ps" 100); rc=$?
    if [ "$rc" -eq 0 ] && [ "$(field "$out" loaded)" = "$N" ] && [ "$(field "$out" wrong)" = 0 ] \
       && [ "$(field "$out" max_distance)" -gt "$GiB4" ]; then
        pass "jit-session-$ps ($out)"
    else fail "jit-session-$ps: $(status_text "$rc"): $out $(tail -n 2 "$TMP/session.err" | tr '\n' ' ')"; fi
done

# -fno-pic-style direct references (dso_local): objrt must place each unit within reach of
# what it reads, or refuse it with a message; every unit it loaded computes right.
out=$(session "$TMP/small" 300 4096 50); rc=$?
case $out in
    *"wrong=0"*"refused=none") [ "$rc" -eq 0 ] && [ "$(field "$out" loaded)" = 300 ] \
        && pass "jit-session-small-static (all placed within reach: $out)" \
        || fail "jit-session-small-static: $(status_text "$rc"): $out" ;;
    *"wrong=0"*"refused="*reach*|*"wrong=0"*"refused="*"out of range"*|*"wrong=0"*"refused="*address*)
        [ "$rc" -eq 0 ] && pass "jit-session-small-static (refused with a message: $out)" \
        || fail "jit-session-small-static: $(status_text "$rc"): $out" ;;
    *) fail "jit-session-small-static: $(status_text "$rc"): $out $(tail -n 2 "$TMP/session.err" | tr '\n' ' ')" ;;
esac

# Controls: without the holes the session stays near (the distance check can fail), and a
# changed expected value is reported (the value check can fail).
out=$(session "$TMP/jit" 300 4096 0)
if [ -n "$(field "$out" max_distance)" ] && [ "$(field "$out" max_distance)" -lt "$GiB4" ]; then
    hpass "jit-session-near-control"
else hfail "jit-session-near-control: $out"; fi
awk 'NR == 77 { $0 = $0 + 1 } { print }' "$TMP/jit/expected" > "$TMP/expected.bad" && cp "$TMP/jit/expected" "$TMP/expected.good"
cp "$TMP/expected.bad" "$TMP/jit/expected"
out=$(session "$TMP/jit" 300 4096 0); rc=$?
cp "$TMP/expected.good" "$TMP/jit/expected"
if [ "$rc" -ne 0 ] && [ "$(field "$out" wrong)" = 1 ]; then hpass "jit-session-wrong-value-control"
else hfail "jit-session-wrong-value-control: rc=$rc $out"; fi

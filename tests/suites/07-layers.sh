#!/usr/bin/env bash
# 07-layers: the source tree is layered as docs/layers.md says. scripts/layers.py reads
# every #include "..." line, the calls of every header's inline functions and the symbols
# each object of the build defines and uses (nm), over src/ and bench/link (whose two
# harness sources are compiled here), and fails on any include/call circle or more than one
# arrow up the layers. Also: no folder of src/ holds more than 15 C
# files, no header more than 300 lines, no two suites share a number. Controls: a copy of
# the tree with one backward include planted, one with a backward call (an object of
# base/ calling the pipeline), one where arch/ includes base/, and one where a base/
# header declares a function debug/ defines, are each refused.
# x86_64 without a sanitizer (the layers are the sources'; one configuration checks them).
set -u
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] && [ -z "$SAN" ] || exit 0
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
expect layers-no-circle-at-most-one-up folders-at-most-15-c-files headers-at-most-300-lines \
    suite-numbers-unique
expect_harness layers-control-backward-include layers-control-backward-call \
    layers-control-arch-stands-alone layers-control-base-header-declares-up

# The benchmark harnesses' objects (-O0: the same symbols, sooner).
X=$TMP/bench-obj/bench/link
mkdir -p "$X"
cc -O0 -std=c11 -D_GNU_SOURCE -c "$ROOT/bench/link/check.c" -o "$X/check.o" 2>"$TMP/bench.log"
if command -v llvm-config-14 >/dev/null; then
    # shellcheck disable=SC2046
    c++ -O0 $(llvm-config-14 --cxxflags | sed 's/-I/-isystem /g') -I"$ROOT/bench/link" \
        -c "$ROOT/bench/link/rtdyld_link.cpp" -o "$X/rtdyld_link.o" 2>>"$TMP/bench.log"
fi
out=$(python3 "$ROOT/scripts/layers.py" --root "$ROOT" --obj "$B/obj" --extra-obj "$TMP/bench-obj" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && [ -f "$X/check.o" ]; then pass "layers-no-circle-at-most-one-up ($(printf '%s' "$out" | tail -n 1 | sed 's/^layers: //'))"
else fail "layers-no-circle-at-most-one-up: $(printf '%s' "$out" | grep -v '^    ' | tail -n 6 | tr '\n' ' ' | cut -c1-600) $(head -c 200 "$TMP/bench.log")"; fi

# Every folder of src/: the loader's (the Makefile's LOADER_DIRS), the runtime's, the CLI.
dirs=$(sed -n 's/^LOADER_DIRS := //p' "$ROOT/Makefile")
big=$(for d in $dirs runtime tvm_ffi cli; do n=$(ls "$ROOT/src/$d" | grep -c '\.c$'); [ "$n" -gt 15 ] && echo "src/$d has $n"; done)
[ -n "$dirs" ] || big="no LOADER_DIRS in the Makefile"
if [ -z "$big" ]; then pass folders-at-most-15-c-files; else fail "folders-at-most-15-c-files: $(echo $big)"; fi
long=$(wc -l "$ROOT"/src/*/*.h | awk '$2 != "total" && $1 > 300 { print $2 " " $1 }' | sed "s#$ROOT/##")
if [ -z "$long" ]; then pass headers-at-most-300-lines; else fail "headers-at-most-300-lines: $(echo $long)"; fi

dup=$(ls "$ROOT/tests/suites" | grep -E '^[0-9]+-' | sed 's/-.*//' | sort | uniq -d)
if [ -z "$dup" ]; then pass suite-numbers-unique
else fail "suite-numbers-unique: used twice: $(for n in $dup; do ls "$ROOT/tests/suites" | grep "^$n-"; done | tr '\n' ' ')"; fi

# Controls: a copy of the sources, one arrow planted, against the same objects.
T=$TMP/tree
mkdir -p "$T"
cp -r "$ROOT/src" "$T/src" && mkdir -p "$T/bench" && cp -r "$ROOT/bench/link" "$T/bench/link"
printf '#include "loader/pipeline.h"\n' >> "$T/src/base/grow.c"
out=$(python3 "$ROOT/scripts/layers.py" --root "$T" --obj "$B/obj" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q 'up: src/base -> src/loader (src/base/grow.c includes src/loader/pipeline.h'; then
    hpass layers-control-backward-include
else hfail "layers-control-backward-include: exit $rc: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"; fi

cp "$ROOT/src/base/grow.c" "$T/src/base/grow.c"
printf '#include "base/base.h"\n' >> "$T/src/arch/arch.c"     # downward, but arch/ stands alone
out=$(python3 "$ROOT/scripts/layers.py" --root "$T" --obj "$B/obj" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q 'src/arch includes or calls nothing of the tree but itself, yet: src/arch/arch.c includes src/base/base.h'; then
    hpass layers-control-arch-stands-alone
else hfail "layers-control-arch-stands-alone: exit $rc: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"; fi
cp "$ROOT/src/arch/arch.c" "$T/src/arch/arch.c"
cat > "$T/src/base/zz_control.c" <<'C'
struct objrt_unit;
void objrt_pipeline_unload(struct objrt_unit *u);
void zz_control(struct objrt_unit *u) { objrt_pipeline_unload(u); }
C
mkdir -p "$TMP/control-obj/src/base"
cc -O2 -c "$T/src/base/zz_control.c" -o "$TMP/control-obj/src/base/zz_control.o"
out=$(python3 "$ROOT/scripts/layers.py" --root "$T" --obj "$B/obj" --extra-obj "$TMP/control-obj" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q 'src/base/zz_control.c uses objrt_pipeline_unload of src/loader/pipeline.c' &&
   printf '%s' "$out" | grep -q 'circle of folders'; then
    hpass layers-control-backward-call
else hfail "layers-control-backward-call: exit $rc: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"; fi
rm -f "$T/src/base/zz_control.c"

# A base/ header that declares a function of a higher folder (as base/fork.h declared
# debug/'s fork handlers before issue 38): base/ then names debug/, and is refused though
# no object of base/ calls it.
cp "$ROOT/src/base/fork.h" "$T/src/base/fork.h"
sed -i 's|^#endif|void objrt_unitinfo_detach(struct objrt_unit *u);\n#endif|' "$T/src/base/fork.h"
out=$(python3 "$ROOT/scripts/layers.py" --root "$T" --obj "$B/obj" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q 'src/base includes or calls nothing of the tree but itself, yet: src/base/fork.h declares objrt_unitinfo_detach of src/debug/unitinfo.c'; then
    hpass layers-control-base-header-declares-up
else hfail "layers-control-base-header-declares-up: exit $rc: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"; fi

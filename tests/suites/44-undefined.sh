#!/usr/bin/env bash
# 44-undefined: every strong reference nothing defines is reported in one error, as ld
# reports them: one "FILE: undefined symbol 'NAME'" line per symbol (the first file that
# references it), at most 20, then "and N more undefined symbols". Compared with the
# native link of the same objects (ld's "undefined reference" lines: same files, same names).
# Controls: with the missing functions supplied, the program links and exits as natively;
# the comparison rejects a message that names one symbol fewer.
set -u
. tests/lib.sh

case "$TARGET:$SAN" in
x86_64:|aarch64:) ;;
*) exit 0 ;;
esac
W=$TMP
expect undefined-three-named-as-ld undefined-25-lists-20-then-counts undefined-control-defined-links
expect_harness undefined-compare-rejects-missing-name

# m1.o references a and b, m2.o references c; the definitions live in defs.o.
printf 'int a(void);\nint b(void);\nint usec(void);\nint main(void) { return a() + b() + usec(); }\n' >"$W/m1.c"
printf 'int c(void);\nint usec(void) { return c(); }\n' >"$W/m2.c"
printf 'int a(void) { return 1; }\nint b(void) { return 2; }\nint c(void) { return 4; }\n' >"$W/defs.c"
{
    for i in $(seq 0 24); do printf 'int f%d(void);\n' "$i"; done
    printf 'int main(void) { return 0'
    for i in $(seq 0 24); do printf ' + f%d()' "$i"; done
    printf '; }\n'
} >"$W/m25.c"
for f in m1 m2 defs m25; do $GCC -O1 -c "$W/$f.c" -o "$W/$f.o" || { fail "undefined-three-named-as-ld: cannot compile $f.c"; exit 0; }; done

# "FILE SYMBOL" pairs, sorted: from ld's messages and from objrt's.
ld_pairs() {   # ld: "ld: m1.o: in function `main':" then "...: undefined reference to `a'"
    sed -n -e "s/^.*ld: \([^:]*\): in function.*/F \1/p" -e "s/^.*undefined reference to \`\([^']*\)'.*/U \1/p" "$1" |
        awk '$1 == "F" { f = $2; n = split(f, p, "/"); f = p[n] } $1 == "U" { print f, $2 }' | sort -u
}
objrt_pairs() { sed -n "s/^\(objrt: \)\{0,1\}\([^:]*\): undefined symbol '\([^']*\)'$/\2 \3/p" "$1" | sed 's|^.*/||' | sort -u; }

# ---- three missing, in two objects ------------------------------------------------------
(cd "$W" && $GCC m1.o m2.o -o native3) >"$W/ld3.txt" 2>&1
$OBJRT run "$W/m1.o" "$W/m2.o" >"$W/o3.out" 2>"$W/o3.txt"; rc=$?
ld_pairs "$W/ld3.txt" >"$W/ld3.pairs"; objrt_pairs "$W/o3.txt" >"$W/o3.pairs"
if [ "$rc" != 125 ]; then
    fail "undefined-three-named-as-ld: objrt run exited $rc, expected 125: $(tail -n 2 "$W/o3.txt" | tr '\n' ' ')"
elif [ "$(wc -l <"$W/ld3.pairs")" != 3 ]; then
    fail "undefined-three-named-as-ld: ld reported $(wc -l <"$W/ld3.pairs") undefined references, the fixture needs 3: $(tr '\n' ' ' <"$W/ld3.txt")"
elif ! cmp -s "$W/ld3.pairs" "$W/o3.pairs"; then
    fail "undefined-three-named-as-ld: ld named {$(tr '\n' ',' <"$W/ld3.pairs")}, objrt {$(tr '\n' ',' <"$W/o3.pairs")}"
else
    pass "undefined-three-named-as-ld"
fi
# the comparison must fail when objrt's message lacks one of them
grep -v "'b'" "$W/o3.txt" >"$W/o3-cut.txt"
objrt_pairs "$W/o3-cut.txt" >"$W/o3-cut.pairs"
if cmp -s "$W/ld3.pairs" "$W/o3-cut.pairs"; then hfail "undefined-compare-rejects-missing-name: a message without 'b' compared equal"
else hpass "undefined-compare-rejects-missing-name"; fi

# ---- 25 missing: 20 named, then the count ----------------------------------------------
(cd "$W" && $GCC m25.o -o native25) >"$W/ld25.txt" 2>&1
$OBJRT run "$W/m25.o" >"$W/o25.out" 2>"$W/o25.txt"; rc=$?
n_ld=$(ld_pairs "$W/ld25.txt" | wc -l)
n_named=$(objrt_pairs "$W/o25.txt" | wc -l)
more=$(sed -n 's/^and \([0-9]*\) more undefined symbols$/\1/p' "$W/o25.txt")
extra=$(objrt_pairs "$W/o25.txt" | comm -13 <(ld_pairs "$W/ld25.txt") -)   # named, but not by ld
if [ "$rc" = 125 ] && [ "$n_ld" = 25 ] && [ "$n_named" = 20 ] && [ "${more:-}" = 5 ] && [ -z "$extra" ]; then
    pass "undefined-25-lists-20-then-counts"
else
    fail "undefined-25-lists-20-then-counts: exit $rc; ld reported $n_ld, objrt named $n_named (not named by ld: ${extra:-none}) and counted ${more:-no} more: $(tail -n 2 "$W/o25.txt" | tr '\n' ' ')"
fi

# ---- control: the same objects with the definitions link and run as natively ------------
(cd "$W" && $GCC m1.o m2.o defs.o -o native-ok) >"$W/ldok.txt" 2>&1
$RUN "$W/native-ok"; want=$?
$OBJRT run "$W/m1.o" "$W/m2.o" "$W/defs.o" >"$W/ook.out" 2>"$W/ook.txt"; got=$?
if [ "$want" = 7 ] && [ "$got" = "$want" ]; then pass "undefined-control-defined-links"
else fail "undefined-control-defined-links: native exit $want (expected 7), objrt exit $got: $(tail -n 2 "$W/ook.txt" | tr '\n' ' ')"; fi

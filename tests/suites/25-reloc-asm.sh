#!/usr/bin/env bash
# Relocation coverage: hand-written assembly fixtures, one per relocation type, under
# tests/fixtures/asm/$TARGET/*.s (conventions in that directory's README.md). Each is
#   1. run natively (must return 0) and, for every field K, rebuilt with --defsym BREAK=K
#      and run natively (must return K): the checks are live;
#   2. run through `objrt run -e t_<name> <name>.o` (must return 0; K names the wrong field).
# Then every type in tests/fixtures/asm/$TARGET/required-relocs.txt must occur at least once
# in the objects of this suite or of the compiler fixtures of suite 20 (recompiled here, -c
# only, every mode, -O2; see tests/fixtures/reloc-census.sh): coverage is measured.
# Prints nothing for tsan or for a target without an asm fixture directory. The native
# negative controls and the coverage measurement check the fixtures, not objrt: HARNESS lines.
. "$ROOT/tests/lib.sh"
FIX=$ROOT/tests/fixtures
. "$FIX/common.sh"

[ "${SAN:-}" = tsan ] && exit 0
ASM=$FIX/asm/$TARGET
compgen -G "$ASM/*.s" >/dev/null || exit 0

out=$TMP/asm; mkdir -p "$out"
types_asm=$TMP/types-asm; : >"$types_asm"

# build NAME OUT [BREAK]: assemble NAME.s (optionally perturbed) and link it natively
# behind a main() that returns t_NAME().
build() {
    local b=$1 o=$2 brk=${3:-} def=
    [ -n "$brk" ] && def=",--defsym,BREAK=$brk"
    # shellcheck disable=SC2086
    $GCC -c -Wa,-I,"$ASM$def" "$ASM/$b.s" -o "$o.o" || return 1
    # shellcheck disable=SC2086
    $GCC -no-pie -o "$o" "$out/main-$b.c" "$o.o"
}

for s in "$ASM"/*.s; do
    b=$(basename "$s" .s)
    entry=t_$b
    name="reloc-asm $entry"
    expect "$name"; expect_harness "$name negative controls"
    n=$(sed -n 's/^# fields: *//p' "$s")
    printf 'int %s(void);\nint main(void) { return %s(); }\n' "$entry" "$entry" >"$out/main-$b.c"
    if ! err=$(build "$b" "$out/$b" 2>&1); then
        fail "$name: build: $(oneline "$err")"; continue
    fi
    readelf -rW "$out/$b.o" | awk '$3 ~ /^R_/ {print $3}' >>"$types_asm"
    (cd "$out" && timeout 20 $RUN "./$b" >/dev/null 2>&1); rc=$?
    if [ "$rc" != 0 ]; then fail "$name: native run returned $rc (fixture bug)"; continue; fi
    # Negative controls: perturbing field K must make the native run return exactly K.
    bad=
    for k in $(seq 1 "${n:-0}"); do
        if ! err=$(build "$b" "$out/$b.break$k" "$k" 2>&1); then bad="$bad build$k"; continue; fi
        (cd "$out" && timeout 20 $RUN "./$b.break$k" >/dev/null 2>&1); rc=$?
        [ "$rc" = "$k" ] || bad="$bad field$k->$rc"
    done
    if [ -z "$n" ] || [ "$n" -lt 1 ]; then
        hfail "$name negative controls: no '# fields: N' line"
    elif [ -n "$bad" ]; then
        hfail "$name negative controls: perturbed fields not detected:$bad"
    else
        hpass "$name negative controls ($n perturbed fields each detected natively)"
    fi
    (cd "$out" && timeout 20 $OBJRT run -e "$entry" "$out/$b.o" >"$out/$b.objrt.out" 2>"$out/$b.objrt.err"); rc=$?
    case $rc in
    0) pass "$name" ;;
    125 | 127) fail "$name: objrt exit $rc: $(oneline "$(cat "$out/$b.objrt.err")")" ;;
    *) if [ "$rc" -le "${n:-0}" ]; then
           fail "$name: field $rc computed wrong (see the comment above CHECK $rc in $b.s)"
       else
           fail "$name: objrt exit $rc: $(oneline "$(cat "$out/$b.objrt.err")")"
       fi ;;
    esac
done

# ---- coverage ------------------------------------------------------------------------------
census=$TMP/census.txt
bash "$FIX/reloc-census.sh" "$TMP/census" -O2 >"$census" 2>/dev/null
# Per-source table for humans running the suite directly (not PASS/FAIL lines).
awk -F'\t' '{t[$1] = t[$1] " " $2 "=" $3} END {for (s in t) print "# relocs " s ":" t[s]}' \
    "$census" | sed 's/R_X86_64_//g; s/R_AARCH64_//g' | sort

# count_type TYPE FILE-OF-TYPES / census: occurrences of exactly TYPE.
count_asm() { grep -cx -- "$1" "$types_asm"; }
count_census() { awk -F'\t' -v t="$1" '$2 == t {s += $3} END {print s + 0}' "$census"; }

# Negative control: a type that no fixture produces must be reported as absent.
bogus=R_${TARGET^^}_OBJRT_NO_SUCH_TYPE
if [ "$(count_asm "$bogus")" = 0 ] && [ "$(count_census "$bogus")" = 0 ] && [ -s "$census" ]; then
    hpass "reloc-coverage counter reports an absent type as absent"
else
    hfail "reloc-coverage counter reports an absent type as absent: census empty or absent type counted"
fi

while read -r t; do
    case $t in '' | '#'*) continue ;; esac
    a=$(count_asm "$t"); c=$(count_census "$t")
    if [ $((a + c)) -gt 0 ]; then
        hpass "reloc-coverage $t (asm $a, compiled fixtures $c)"
    else
        hfail "reloc-coverage $t: occurs in no fixture object"
    fi
done <"$ASM/required-relocs.txt"
exit 0

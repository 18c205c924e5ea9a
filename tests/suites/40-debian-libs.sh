#!/usr/bin/env bash
# 40-debian-libs: link Debian's own static libraries (libsqlite3.a, libz.a) with a driver
# program through objrt and compare against the same driver linked natively by gcc/ld.
#
# For each library: the driver is compiled once ($GCC -c, default PIE code), linked
# natively and run, then run by `objrt run` (a) with the .a archive as is and (b) with the
# archive's members extracted (`ar x`) and all given explicitly. stdout and exit status
# must be byte-for-byte identical to the native run. A -DPERTURB build of the driver is
# the negative control proving the comparison can fail. `--stats` must print exactly one
# contract line whose objects= and relocations= equal independent counts (readelf -r).
# Leaving out one essential member must make objrt fail with status 125 before running.
# Applies to TARGET x86_64 (any SAN) and aarch64.
set -u
. tests/lib.sh

case "$TARGET" in
x86_64)  LIBDIR=/usr/lib/x86_64-linux-gnu; READELF=readelf ;;
aarch64) LIBDIR=/usr/lib/aarch64-linux-gnu; READELF=readelf ;;
*)       exit 0 ;;
esac
# Only libm is named, as for `cc ... -lm`: AArch64 sqlite also needs libgcc's 128-bit long
# double helpers (__addtf3, __extenddftf2, ...), which gcc adds implicitly and objrt must
# find by itself too.
OBJRT_LIBS=(-l m)
LIMIT=${OBJRT_TEST_TIMEOUT:-300}       # seconds per run: a hang is a FAIL, not a stuck suite
STATS_RE='^objrt: link_us=[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)? objects=[0-9]+ relocations=[0-9]+ reserved_bytes=[0-9]+ used_bytes=[0-9]+ comdat_bytes_dropped=[0-9]+$'


# same_run EXPECTED ACTUAL: 0 when stdout and exit status are identical; else prints why.
same_run() {
    local e=$1 a=$2
    if ! cmp -s "$e.out" "$a.out"; then
        echo "stdout differs: $(diff "$e.out" "$a.out" | grep -m 2 '^[<>]' | tr '\n' ' ')" \
             "| stderr: $(tail -n 2 "$a.err" | tr '\n' ' ')"
        return 1
    fi
    if [ "$(cat "$e.rc")" != "$(cat "$a.rc")" ]; then
        echo "exit status $(cat "$a.rc"), expected $(cat "$e.rc"): $(tail -n 2 "$a.err" | tr '\n' ' ')"
        return 1
    fi
    return 0
}

# compare NAME EXPECTED ACTUAL: PASS/FAIL line from same_run.
compare() {
    local why
    if why=$(same_run "$2" "$3"); then pass "$1"; else fail "$1: $why"; fi
}

# alloc_relocs OBJ...: relocation entries whose target section is allocated (SHF_ALLOC),
# i.e. the ones a loader applies (non-alloc targets such as .debug_* are never loaded).
alloc_relocs() {
    local f total=0 n
    for f in "$@"; do
        n=$( { $READELF -SW "$f" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '{ print "S", $1, (NF == 10 ? $7 : "") }'
               $READELF -rW "$f" | awk '/^Relocation section/ { print "R", $3, $(NF-1) }'; } |
             awk '$1 == "S" { flags[$2] = $3; next }
                  $1 == "R" { gsub("\047", "", $2); t = $2; sub(/^\.rela?/, "", t)
                              if (flags[t] ~ /A/) n += $3 }
                  END { print n + 0 }')
        total=$((total + n))
    done
    echo "$total"
}

# stat_field NAME FILE: the value of NAME= in the stats line of FILE.
stat_field() { grep -Eo "(^| )$1=[0-9.eE+-]+" "$2" | head -n 1 | sed 's/.*=//'; }

# test_lib NAME DRIVER ARCHIVE MIN_OBJECTS MIN_RELOCS ESSENTIAL_MEMBER NATIVE_LIBS... -- DRIVER_ARGS...
test_lib() {
    local name=$1 drv=$2 archive=$3 min_obj=$4 min_rel=$5 essential=$6; shift 6
    local native_libs=() args=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do native_libs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    args=("$@")
    local t="debian-libs/$name" w="$TMP/$name"
    mkdir -p "$w"
    expect "$t/objrt-archive" "$t/objrt-archive-perturb" "$t/objrt-perturb-differs" \
        "$t/objrt-archive-gcc-g-O0" "$t/objrt-archive-clang-O2" "$t/objrt-extracted" \
        "$t/objrt-missing-member" "$t/stats-line-archive" "$t/stats-line-extracted" \
        "$t/stats-objects-extracted" "$t/stats-relocations-extracted" "$t/stats-objects-archive"
    expect_harness "$t/native" "$t/compare-detects-output" "$t/compare-detects-status" \
        "$t/stats-counts-plausible"
    if [ ! -f "$archive" ]; then
        hfail "$t/native: $archive missing (run scripts/install-deps.sh)"
        return
    fi

    # Native reference.
    local out
    if ! out=$($GCC -O2 -Wall -c "$ROOT/tests/drivers/$drv" -o "$w/driver.o" 2>&1) ||
       ! out=$($GCC -O2 -Wall -DPERTURB -c "$ROOT/tests/drivers/$drv" -o "$w/perturb.o" 2>&1) ||
       ! out=$($GCC "$w/driver.o" "$archive" "${native_libs[@]}" -Wl,-Map="$w/native.map" -o "$w/native" 2>&1) ||
       ! out=$($GCC "$w/perturb.o" "$archive" "${native_libs[@]}" -o "$w/native-perturb" 2>&1); then
        hfail "$t/native: build failed: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
        return
    fi
    run_to "$w/native" $RUN "$w/native" "${args[@]}"
    run_to "$w/native-perturb" $RUN "$w/native-perturb" "${args[@]}"
    if [ "$(cat "$w/native.rc")" = 0 ] && grep -q '^failures: 0$' "$w/native.out"; then
        hpass "$t/native"
    else
        hfail "$t/native: native driver failed (status $(cat "$w/native.rc")): $(tail -n 2 "$w/native.out" | tr '\n' ' ')"
        return
    fi

    # Negative controls: the comparison must notice one changed line, and a changed status.
    local why
    if why=$(same_run "$w/native" "$w/native-perturb"); then
        hfail "$t/compare-detects-output: PERTURB build compared equal"
    elif [ "$(diff "$w/native.out" "$w/native-perturb.out" | grep -c '^[<>]')" != 2 ]; then
        hfail "$t/compare-detects-output: PERTURB should change exactly one line"
    else
        hpass "$t/compare-detects-output"
    fi
    cp "$w/native.out" "$w/badrc.out"; : >"$w/badrc.err"; echo 3 >"$w/badrc.rc"
    if same_run "$w/native" "$w/badrc" >/dev/null; then
        hfail "$t/compare-detects-status: status 3 compared equal to $(cat "$w/native.rc")"
    else
        hpass "$t/compare-detects-status"
    fi

    # objrt with the archive as is (members pulled in on demand).
    run_to "$w/archive" $OBJRT run "${OBJRT_LIBS[@]}" --stats "$w/driver.o" "$archive" -- "${args[@]}"
    compare "$t/objrt-archive" "$w/native" "$w/archive"
    # objrt links the PERTURB driver too, and the comparison sees the difference.
    run_to "$w/archive-perturb" $OBJRT run "${OBJRT_LIBS[@]}" "$w/perturb.o" "$archive" -- "${args[@]}"
    compare "$t/objrt-archive-perturb" "$w/native-perturb" "$w/archive-perturb"
    if same_run "$w/native" "$w/archive-perturb" >/dev/null; then
        fail "$t/objrt-perturb-differs: objrt run of the PERTURB driver compared equal to the reference"
    else
        pass "$t/objrt-perturb-differs"
    fi

    # Other code generators for the driver (archive as is): debug info and no optimisation
    # (.rela.debug_* must be ignored), and clang's instruction selection and relocations.
    local tag cc_cmd
    for tag in gcc-g-O0 clang-O2; do
        case $tag in
        gcc-g-O0) cc_cmd="$GCC -g -O0" ;;
        clang-O2) cc_cmd="$CLANG -O2" ;;
        esac
        if ! out=$($cc_cmd -c "$ROOT/tests/drivers/$drv" -o "$w/driver-$tag.o" 2>&1); then
            fail "$t/objrt-archive-$tag: compile failed: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
            continue
        fi
        run_to "$w/archive-$tag" $OBJRT run "${OBJRT_LIBS[@]}" "$w/driver-$tag.o" "$archive" -- "${args[@]}"
        compare "$t/objrt-archive-$tag" "$w/native" "$w/archive-$tag"
    done

    # objrt with every member extracted and given explicitly.
    local xdir="$w/members" members
    mkdir -p "$xdir"
    (cd "$xdir" && ar x "$archive")
    members=("$xdir"/*.o)
    if [ "${#members[@]}" != "$(ar t "$archive" | wc -l)" ]; then
        fail "$t/extract: ${#members[@]} files extracted, archive has $(ar t "$archive" | wc -l) members"
        return
    fi
    run_to "$w/extracted" $OBJRT run "${OBJRT_LIBS[@]}" --stats "$w/driver.o" "${members[@]}" -- "${args[@]}"
    compare "$t/objrt-extracted" "$w/native" "$w/extracted"

    # Without a member the driver needs, objrt must refuse to run it: status 125, an
    # "objrt: ... undefined symbol '...'" message, and no program output.
    local partial=() m
    for m in "${members[@]}"; do [ "$(basename "$m")" = "$essential" ] || partial+=("$m"); done
    run_to "$w/partial" $OBJRT run "${OBJRT_LIBS[@]}" "$w/driver.o" "${partial[@]}" -- "${args[@]}"
    if [ "${#partial[@]}" = "${#members[@]}" ]; then
        fail "$t/objrt-missing-member: $essential is not a member of $archive"
    elif [ "$(cat "$w/partial.rc")" = 125 ] && [ ! -s "$w/partial.out" ] &&
         grep -Eq "^objrt: .*undefined symbol '[^']+'" "$w/partial.err"; then
        pass "$t/objrt-missing-member"
    else
        fail "$t/objrt-missing-member: without $essential: status $(cat "$w/partial.rc"), stdout $(wc -c <"$w/partial.out") bytes, stderr: $(head -c 200 "$w/partial.err" | tr '\n' ' ')"
    fi

    # --stats: exactly one contract line on stderr (the drivers print nothing there).
    local v
    for v in archive extracted; do
        if [ "$(wc -l <"$w/$v.err")" = 1 ] && grep -Eq "$STATS_RE" "$w/$v.err"; then
            pass "$t/stats-line-$v"
        else
            fail "$t/stats-line-$v: stderr is not one contract line: $(head -c 300 "$w/$v.err" | tr '\n' ' ')"
        fi
    done

    # objects= and relocations= against independent counts.
    local n_obj=$((1 + ${#members[@]})) n_rel got_obj got_rel
    n_rel=$(alloc_relocs "$w/driver.o" "${members[@]}")
    got_obj=$(stat_field objects "$w/extracted.err"); got_rel=$(stat_field relocations "$w/extracted.err")
    if [ "$n_obj" -le "$min_obj" ] || [ "$n_rel" -le "$min_rel" ]; then
        hfail "$t/stats-counts-plausible: independent counts $n_obj objects, $n_rel relocations (expected > $min_obj, > $min_rel)"
    else
        hpass "$t/stats-counts-plausible"
    fi
    if [ "${got_obj:-x}" = "$n_obj" ]; then pass "$t/stats-objects-extracted"
    else fail "$t/stats-objects-extracted: objects=${got_obj:-missing}, expected $n_obj (driver + all members)"; fi
    if [ "${got_rel:-x}" = "$n_rel" ]; then pass "$t/stats-relocations-extracted"
    else fail "$t/stats-relocations-extracted: relocations=${got_rel:-missing}, readelf -r counts $n_rel against allocated sections"; fi
    # Archive mode pulls in members the way ld does: compare with the native link's map
    # ("Archive member included to satisfy reference by file" lists each member once).
    local pulled
    pulled=$(awk -v a="$archive(" 'index($0, a) == 1' "$w/native.map" | sort -u | wc -l)
    got_obj=$(stat_field objects "$w/archive.err")
    if [ "$pulled" -gt 0 ] && [ "${got_obj:-x}" = $((1 + pulled)) ]; then pass "$t/stats-objects-archive"
    else fail "$t/stats-objects-archive: objects=${got_obj:-missing}, ld pulled $pulled members (+1 driver)"; fi
}

# Negative control for the stats regex: near-miss lines must be rejected.
bad=0
for l in "objrt: link_us=1.5 objects=2 relocations=3 reserved_bytes=4" \
         "objrt: link_us=fast objects=2 relocations=3 reserved_bytes=4 used_bytes=5" \
         "objrt: link_us=1.5 objects=2 relocations=3 reserved_bytes=4 used_bytes=5 comdat_bytes_dropped=0 extra"; do
    printf '%s\n' "$l" | grep -Eq "$STATS_RE" && bad=1
done
printf '%s\n' "objrt: link_us=1.5 objects=2 relocations=3 reserved_bytes=4 used_bytes=5 comdat_bytes_dropped=0" | grep -Eq "$STATS_RE" || bad=1
if [ "$bad" = 0 ]; then hpass "debian-libs/stats-regex-controls"; else hfail "debian-libs/stats-regex-controls: regex accepts a malformed line or rejects a good one"; fi

test_lib sqlite sqlite_driver.c "$LIBDIR/libsqlite3.a" 100 20000 main.o -lm -lpthread -ldl
test_lib zlib zlib_driver.c "$LIBDIR/libz.a" 10 500 deflate.o -- "$TMP/zlib/test.gz"
exit 0

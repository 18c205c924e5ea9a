#!/usr/bin/env bash
# Loader behaviour not covered by the fixture matrix: CLI contract, install/pkg-config,
# SHN_XINDEX objects, legacy .ctors/.dtors order, GNU long archive member names, layout
# report and page sizes, the perf map. x86_64 (plain and asan) only.
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] && [ "$SAN" != tsan ] || exit 0
expect "cli --help" "cli unknown option exits 125" "cli missing entry exits 127" \
    "cli missing file exits 125 naming it" "archive long member names + -l m" \
    "xindex object (66000 sections) links and runs like the native link" \
    "legacy .ctors/.dtors order matches native" "--stats prints exactly the contract line" \
    "layout at page size 4096" "layout at page size 16384" "layout at page size 65536" \
    "layout refuses page size 8192" "OBJRT_PERF_MAP=1 names functions for perf"
[ -z "$SAN" ] && expect "make install + pkg-config"
expect_harness "archive uses the // long-name table" "xindex fixture escapes e_shnum (setup)"
L=$ROOT/tests/loader
cd "$TMP"

# ---- CLI contract -------------------------------------------------------------------
out=$($OBJRT --help); rc=$?
[ $rc -eq 0 ] && grep -q "objrt run" <<<"$out" && grep -q "objrt layout" <<<"$out" &&
    pass "cli --help" || fail "cli --help: rc=$rc"
$OBJRT run --bogus x.o 2>/dev/null; rc=$?
[ $rc -eq 125 ] && pass "cli unknown option exits 125" || fail "cli unknown option exits 125: rc=$rc"
$CLANG -O2 -c "$L/longname_archive_member_one.c" -o one.o
$OBJRT run -e no_such_entry one.o 2>err.txt; rc=$?
[ $rc -eq 127 ] && grep -q "no_such_entry" err.txt && pass "cli missing entry exits 127" ||
    fail "cli missing entry exits 127: rc=$rc $(cat err.txt)"
$OBJRT run nonexistent.o 2>err.txt; rc=$?
[ $rc -eq 125 ] && grep -q "nonexistent.o" err.txt && pass "cli missing file exits 125 naming it" ||
    fail "cli missing file exits 125 naming it: rc=$rc $(cat err.txt)"

# ---- archives with GNU long member names, -l for a shared library ---------------------
$GCC -O2 -c "$L/longname_archive_member_two.c" -o longname_archive_member_two.o
cp one.o longname_archive_member_one.o
$GCC -O2 -c "$L/longname_main.c" -o main.o
ar rcs long.a longname_archive_member_one.o longname_archive_member_two.o
grep -q "longname_archive_member_one.o/" long.a && hpass "archive uses the // long-name table" ||
    hfail "archive uses the // long-name table: it has none (test setup)"
$OBJRT run -e entry -l m main.o long.a; rc=$?
[ $rc -eq 42 ] && pass "archive long member names + -l m" || fail "archive long member names + -l m: rc=$rc (want 42)"

# ---- SHN_XINDEX: more than 65280 sections ---------------------------------------------
python3 "$L/gen_xindex.py" 66000 > xindex.s && $GCC -c xindex.s -o xindex.o
if readelf -h xindex.o | grep -q "Number of section headers: *0 (66"; then
    hpass "xindex fixture escapes e_shnum (setup)"
else
    hfail "xindex fixture escapes e_shnum (setup): not escaped: $(readelf -h xindex.o | grep 'section headers')"
fi
# expected: what the natively linked object returns (f1 + f33000 + f65997 + f65999)
printf 'int xindex_entry(void);\nint main(void) { return xindex_entry() & 255; }\n' > xmain.c
$GCC xmain.c xindex.o -o xindex_native 2>/dev/null; ./xindex_native; want=$?
$OBJRT run -e xindex_entry xindex.o; rc=$?
[ $rc -eq $want ] && [ $want -eq $(( (1 + 33000 + 65997 + 65999) & 255 )) ] &&
    pass "xindex object (66000 sections) links and runs like the native link" ||
    fail "xindex object (66000 sections) links and runs like the native link: rc=$rc native=$want"

# ---- legacy .ctors/.dtors around .init_array/.fini_array, against a native link --------
$GCC -c "$L/ctors_legacy.s" -o ctors.o
$GCC -no-pie ctors.o -o ctors_native 2>/dev/null || $GCC ctors.o -o ctors_native
./ctors_native > native.txt
$OBJRT run ctors.o > objrt.txt
if diff -u native.txt objrt.txt > d.txt; then pass "legacy .ctors/.dtors order matches native"
else fail "legacy .ctors/.dtors order matches native: $(tr '\n' ' ' < d.txt)"; fi

# ---- --stats contract ------------------------------------------------------------------
$OBJRT run --stats -e long_name_one one.o 2>stats.txt >/dev/null
if [ "$(wc -l < stats.txt)" -eq 1 ] && grep -Eq '^objrt: link_us=[0-9]+(\.[0-9]+)? objects=1 relocations=[0-9]+ reserved_bytes=[0-9]+ used_bytes=[0-9]+ comdat_bytes_dropped=0$' stats.txt
then pass "--stats prints exactly the contract line"; else fail "--stats prints exactly the contract line: $(cat stats.txt)"; fi

# ---- layout report at each page size ---------------------------------------------------
for ps in 4096 16384 65536; do
    $OBJRT layout --page-size $ps main.o long.a > layout.txt 2>&1
    total=$(sed -n 's/^reservation: \(0x[0-9a-f]*\) bytes.*/\1/p' layout.txt)
    if [ -n "$total" ] && [ $((total % ps)) -eq 0 ] && grep -q "page size $ps" layout.txt &&
       grep -q "R_X86_64_PLT32" layout.txt && grep -Eq "^RX " layout.txt; then
        pass "layout at page size $ps: reservation $total is page-aligned"
    else
        fail "layout at page size $ps: $(head -c 300 layout.txt)"
    fi
done
$OBJRT layout --page-size 8192 main.o 2>err.txt; rc=$?
[ $rc -eq 125 ] && grep -q "8192" err.txt && pass "layout refuses page size 8192" ||
    fail "layout refuses page size 8192: rc=$rc"

# ---- perf map -----------------------------------------------------------------------------
rm -f /tmp/perf-*.map.objrt-test
OBJRT_PERF_MAP=1 $OBJRT run -e long_name_one one.o >/dev/null; rc=$?
map=""          # the newest regular file: a FIFO left under the name (t_perfmap plants
for f in $(ls -t /tmp/perf-*.map 2>/dev/null); do   # them) would block grep forever
    [ -f "$f" ] && [ ! -p "$f" ] && { map=$f; break; }
done
if [ -n "$map" ] && grep -Eq '^[0-9a-f]+ [0-9a-f]+ long_name_one$' "$map"; then
    pass "OBJRT_PERF_MAP=1 names functions for perf"; rm -f "$map"
else
    fail "OBJRT_PERF_MAP=1 names functions for perf: none written or no long_name_one line"
fi

# ---- make install + pkg-config --------------------------------------------------------------
if [ -z "$SAN" ]; then
    make -C "$ROOT" --no-print-directory -s install PREFIX="$TMP/prefix" >/dev/null 2>&1
    if PKG_CONFIG_PATH="$TMP/prefix/lib/pkgconfig" cc -fPIC "$L/pkgconfig_user.c" -o pcuser \
          $(PKG_CONFIG_PATH="$TMP/prefix/lib/pkgconfig" pkg-config --cflags objrt) \
          "$TMP/prefix/lib/libobjrt.a" $(PKG_CONFIG_PATH="$TMP/prefix/lib/pkgconfig" pkg-config --libs --static objrt | sed 's/-lobjrt//') &&
       ./pcuser one.o && [ -x "$TMP/prefix/bin/objrt" ] && [ -f "$TMP/prefix/include/objrt/tvm_backend.h" ]; then
        pass "make install + pkg-config: a program builds against the installed library"
    else
        fail "make install + pkg-config: the program did not build or run"
    fi
fi

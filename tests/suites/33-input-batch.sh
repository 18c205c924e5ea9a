#!/usr/bin/env bash
# 33-input-batch: input.c reads the files of objrt_load() in batches into one mapping each.
#   * A batch of 2 MiB or more starts on a 2 MiB boundary and its whole 2 MiB blocks are
#     offered to transparent huge pages; the files after the first block land past it. A
#     3 MiB object between small ones must link and print the same hash of its bytes as
#     the native link (control: the same objects with one byte of the big one changed print
#     another hash, so the comparison sees a wrong byte). A last, partial block holding 1 MiB
#     or more gets a huge page too (the mapping reaches the block's end): the 3 MiB batch
#     (last block ~1.02 MiB) and a 1.5 MiB one take that path, a 2.3 MiB one (last block
#     0.3 MiB) the small-page tail; each must print what the native link prints.
#   * A batch holds at most a quarter of the descriptor limit open (at least 16, at most
#     256), and a file that cannot be opened ends the batch early. 70 objects must link and
#     print what the native link prints under `ulimit -n 64` (batches of 16) and, x86_64
#     without a sanitizer only, `ulimit -n 12` (a batch of 16 runs out of descriptors and
#     continues from where it stopped). Control: without the last object the run fails
#     naming its symbol, so a file dropped between batches would show.
#   * A batch's descriptors are closed, runs of consecutive numbers with one close_range
#     each (x86_64, plain and asan: tests/input-batch/t_batch_fds.c): after loading the 70 objects
#     as many descriptors are open as before, also when holes below make the batch's
#     numbers non-consecutive (control: a descriptor left open is seen).
#   * An archive read from a file has its misaligned members moved down in place (over
#     their own headers' last bytes) instead of copied. An archive of 12 members, most at
#     offsets that are not multiples of 8 (fixture check), must link like the native link
#     and leave the file unchanged; a corrupt header and a truncated member after moved
#     members must be refused with the offsets of the file, as before.
set -u
. tests/lib.sh

low_fd=0
[ "$TARGET" = x86_64 ] && [ -z "$SAN" ] && low_fd=1
expect "batch: 3 MiB object across a huge block links like the native link" \
       "batch: 1.5 MiB object (its block a huge page) links like the native link" \
       "batch: 2.3 MiB object (last block in small pages) links like the native link" \
       "batch: 70 objects under ulimit -n 64 link like the native link"
[ "$low_fd" = 1 ] && expect "batch: 70 objects under ulimit -n 12 link like the native link"
expect "archive: misaligned members of a file link like the native link" \
       "archive: the file is unchanged by the load" \
       "archive: corrupt header after moved members names its file offset" \
       "archive: truncated member after moved members names its file offset"
expect_harness "batch: a changed byte of the big object changes the hash" \
               "batch: a missing object fails the link" \
               "archive: most members of the fixture are misaligned"
W=$TMP

# ---- a 3 MiB object ------------------------------------------------------------------------
python3 - "$W/data.bin" <<'EOF'
import random, sys
random.seed(33)
open(sys.argv[1], "wb").write(bytes(random.getrandbits(8) for _ in range(3 * 1024 * 1024 + 12345)))
EOF
cat >"$W/big.S" <<EOF
    .section .rodata
    .globl blob, blob_end
    .balign 16
blob:
    .incbin "$W/data.bin"
blob_end:
    .section .note.GNU-stack,"",%progbits
EOF
cat >"$W/hash.c" <<'EOF'
#include <stdio.h>
extern const unsigned char blob[], blob_end[];
int small_a(void), small_b(void);
int main(void)
{
    unsigned long long h = 1469598103934665603ull;      /* FNV-1a over every byte */
    for (const unsigned char *p = blob; p < blob_end; p++)
        h = (h ^ *p) * 1099511628211ull;
    printf("%llx %ld %d\n", h, (long)(blob_end - blob), small_a() + small_b());
    return 0;
}
EOF
printf 'int small_a(void) { return 40; }\n' >"$W/small_a.c"
printf 'int small_b(void) { return 2; }\n' >"$W/small_b.c"
ok=1
for f in hash small_a small_b; do $GCC -O1 -c "$W/$f.c" -o "$W/$f.o" 2>>"$W/err" || ok=0; done
$GCC -c "$W/big.S" -o "$W/big.o" 2>>"$W/err" || ok=0
$GCC "$W/hash.o" "$W/big.o" "$W/small_a.o" "$W/small_b.o" -o "$W/hash-native" 2>>"$W/err" || ok=0
if [ "$ok" = 0 ]; then
    fail "batch: 3 MiB object across a huge block links like the native link: compile: $(oneline "$(cat "$W/err")")"
    hfail "batch: a changed byte of the big object changes the hash: compile failed"
else
    want=$($RUN "$W/hash-native")
    # small_a.o first, so big.o does not start on the boundary and hash.o lands past it
    got=$($OBJRT run "$W/small_a.o" "$W/big.o" "$W/hash.o" "$W/small_b.o" 2>&1); rc=$?
    if [ "$rc" = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then
        pass "batch: 3 MiB object across a huge block links like the native link (prints $got)"
    else
        fail "batch: 3 MiB object across a huge block links like the native link: status $rc, got '$(oneline "$got")', native '$want'"
    fi
    # control: one byte of the blob changed (2.5 MiB into it, in the second 2 MiB block)
    python3 - "$W/big.o" "$W/data.bin" "$W/big-changed.o" <<'EOF'
import sys
obj = bytearray(open(sys.argv[1], "rb").read())
data = open(sys.argv[2], "rb").read()
at = obj.find(data[:4096])
assert at >= 0
obj[at + 2621440] ^= 0xff
open(sys.argv[3], "wb").write(obj)
EOF
    got=$($OBJRT run "$W/small_a.o" "$W/big-changed.o" "$W/hash.o" "$W/small_b.o" 2>&1); rc=$?
    if [ "$rc" = 0 ] && [ -n "$got" ] && [ "$got" != "$want" ]; then
        hpass "batch: a changed byte of the big object changes the hash"
    else
        hfail "batch: a changed byte of the big object changes the hash: status $rc, got '$(oneline "$got")', native '$want'"
    fi
fi

# blob_case BYTES NAME: an object of BYTES random bytes between the small ones, as above.
blob_case() {
    local bytes=$1 name=$2 want got rc
    python3 -c 'import random, sys; random.seed(int(sys.argv[2])); open(sys.argv[1], "wb").write(bytes(random.getrandbits(8) for _ in range(int(sys.argv[2]))))' \
        "$W/data-$bytes.bin" "$bytes"
    sed "s|$W/data.bin|$W/data-$bytes.bin|" "$W/big.S" >"$W/big-$bytes.S"
    if ! $GCC -c "$W/big-$bytes.S" -o "$W/big-$bytes.o" 2>>"$W/err" ||
       ! $GCC "$W/hash.o" "$W/big-$bytes.o" "$W/small_a.o" "$W/small_b.o" -o "$W/hash-native-$bytes" 2>>"$W/err"; then
        fail "$name: compile: $(oneline "$(cat "$W/err")")"
        return
    fi
    want=$($RUN "$W/hash-native-$bytes")
    got=$($OBJRT run "$W/small_a.o" "$W/big-$bytes.o" "$W/hash.o" "$W/small_b.o" 2>&1); rc=$?
    if [ "$rc" = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then pass "$name (prints $got)"
    else fail "$name: status $rc, got '$(oneline "$got")', native '$want'"; fi
}
if [ "$ok" = 1 ]; then
    blob_case 1572864 "batch: 1.5 MiB object (its block a huge page) links like the native link"
    blob_case 2411724 "batch: 2.3 MiB object (last block in small pages) links like the native link"
else
    fail "batch: 1.5 MiB object (its block a huge page) links like the native link: compile failed"
    fail "batch: 2.3 MiB object (last block in small pages) links like the native link: compile failed"
fi

# ---- an archive with misaligned members ------------------------------------------------
arch_cases() {
    local ok=1 i n members=()
    {
        for i in $(seq 0 11); do echo "long g$i(long);"; done
        echo '#include <stdio.h>'
        echo 'int main(void) { long s = 1;'
        for i in $(seq 0 11); do echo "  s = g$i(s);"; done
        echo '  printf("%ld\n", s); return 0; }'
    } >"$W/ar_main.c"
    $GCC -O1 -c "$W/ar_main.c" -o "$W/ar_main.o" 2>>"$W/err3" || ok=0
    for i in $(seq 0 11); do
        # different amounts of data: member sizes that shift the offsets of the next ones
        printf 'static const char pad%d[%d] = "m%d";\nlong g%d(long x) { return x * %d + pad%d[1] + %d; }\n' \
            "$i" "$((i * 13 + 3))" "$i" "$i" "$((i % 5 + 2))" "$i" "$i" >"$W/member_number_$i.c"
        $GCC -O1 -c "$W/member_number_$i.c" -o "$W/member_number_$i.o" 2>>"$W/err3" || ok=0
        members+=("$W/member_number_$i.o")
    done
    rm -f "$W/libmis.a"
    ar rcs "$W/libmis.a" "${members[@]}" 2>>"$W/err3" || ok=0
    $GCC "$W/ar_main.o" "$W/libmis.a" -o "$W/ar-native" 2>>"$W/err3" || ok=0
    if [ "$ok" = 0 ]; then
        for n in "misaligned members of a file link like the native link" \
                 "the file is unchanged by the load" \
                 "corrupt header after moved members names its file offset" \
                 "truncated member after moved members names its file offset"; do
            fail "archive: $n: compile: $(oneline "$(cat "$W/err3")")"
        done
        hfail "archive: most members of the fixture are misaligned: compile failed"
        return
    fi
    # one line per object member: header offset, data offset, size
    python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
off = 8
while off < len(d):
    h = d[off:off + 60]
    size = int(h[48:58])
    if h[:2] not in (b"/ ", b"//") and not h.startswith(b"/SYM64/"):   # index, long names
        print(off, off + 60, size)
    off += 60 + size
    off += off & 1
' "$W/libmis.a" >"$W/members.txt"
    local mis total
    total=$(wc -l <"$W/members.txt")
    mis=$(awk '$2 % 8 != 0' "$W/members.txt" | wc -l)
    if [ "$total" = 12 ] && [ "$mis" -ge 6 ]; then
        hpass "archive: most members of the fixture are misaligned ($mis of $total)"
    else
        hfail "archive: most members of the fixture are misaligned: $mis of $total"
    fi
    local want got rc sum0 sum1 pat
    want=$($RUN "$W/ar-native")
    sum0=$(sha256sum <"$W/libmis.a")
    got=$($OBJRT run "$W/ar_main.o" "$W/libmis.a" 2>&1); rc=$?
    sum1=$(sha256sum <"$W/libmis.a")
    if [ "$rc" = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then
        pass "archive: misaligned members of a file link like the native link (prints $got)"
    else
        fail "archive: misaligned members of a file link like the native link: status $rc, got '$(oneline "$got")', native '$want'"
    fi
    if [ "$sum0" = "$sum1" ]; then pass "archive: the file is unchanged by the load"
    else fail "archive: the file is unchanged by the load: its sha256 changed"; fi
    # the 9th member's header broken (the end of its "`\n"): the members before it moved
    local hdr
    hdr=$(sed -n 9p "$W/members.txt" | cut -d' ' -f1)
    python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[int(sys.argv[3]) + 59] = ord("X")
open(sys.argv[2], "wb").write(d)
' "$W/libmis.a" "$W/libbad.a" "$hdr"
    got=$($OBJRT run "$W/ar_main.o" "$W/libbad.a" 2>&1); rc=$?
    pat=$(printf 'libbad.a: corrupt archive member header at offset 0x%x$' "$hdr")
    if [ "$rc" = 125 ] && grep -Eq "$pat" <<<"$got"; then
        pass "archive: corrupt header after moved members names its file offset"
    else
        fail "archive: corrupt header after moved members names its file offset: status $rc, '$(oneline "$got")', want '$pat'"
    fi
    # cut in the middle of the last member
    local last size
    read -r last _ size < <(tail -n 1 "$W/members.txt")
    head -c "$((last + 60 + size / 2))" "$W/libmis.a" >"$W/libcut.a"
    got=$($OBJRT run "$W/ar_main.o" "$W/libcut.a" 2>&1); rc=$?
    pat=$(printf 'libcut.a: archive member at offset 0x%x claims %d bytes, only %d remain$' \
          "$last" "$size" "$((size / 2))")
    if [ "$rc" = 125 ] && grep -Eq "$pat" <<<"$got"; then
        pass "archive: truncated member after moved members names its file offset"
    else
        fail "archive: truncated member after moved members names its file offset: status $rc, '$(oneline "$got")', want '$pat'"
    fi
}
arch_cases

# ---- 70 objects under a low descriptor limit ---------------------------------------------
objs=()
{
    echo '#include <stdio.h>'
    for i in $(seq 0 69); do echo "int f$i(void);"; done
    echo 'int main(void) { long s = 0;'
    for i in $(seq 0 69); do echo "  s = s * 3 + f$i();"; done
    echo '  printf("%ld\n", s); return 0; }'
} >"$W/many_main.c"
ok=1
$GCC -O1 -c "$W/many_main.c" -o "$W/many_main.o" 2>>"$W/err2" || ok=0
for i in $(seq 0 69); do
    printf 'int f%d(void) { return %d; }\n' "$i" "$((i * 7 % 11))" >"$W/f$i.c"
    $GCC -O1 -c "$W/f$i.c" -o "$W/f$i.o" 2>>"$W/err2" || ok=0
    objs+=("$W/f$i.o")
done
$GCC "$W/many_main.o" "${objs[@]}" -o "$W/many-native" 2>>"$W/err2" || ok=0
if [ "$ok" = 0 ]; then
    fail "batch: 70 objects under ulimit -n 64 link like the native link: compile: $(oneline "$(cat "$W/err2")")"
    [ "$low_fd" = 1 ] && fail "batch: 70 objects under ulimit -n 12 link like the native link: compile failed"
    hfail "batch: a missing object fails the link: compile failed"
    exit 0
fi
want=$($RUN "$W/many-native")
limits=(64)
[ "$low_fd" = 1 ] && limits+=(12)
for n in "${limits[@]}"; do
    # shellcheck disable=SC2086
    got=$(ulimit -n "$n" && $OBJRT run "$W/many_main.o" "${objs[@]}" 2>&1); rc=$?
    name="batch: 70 objects under ulimit -n $n link like the native link"
    if [ "$rc" = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then pass "$name (prints $got)"
    else fail "$name: status $rc, got '$(oneline "$got")', native '$want'"; fi
done
# shellcheck disable=SC2086
got=$(ulimit -n 64 && $OBJRT run "$W/many_main.o" "${objs[@]:0:69}" 2>&1); rc=$?
if [ "$rc" != 0 ] && grep -q "f69" <<<"$got"; then hpass "batch: a missing object fails the link"
else hfail "batch: a missing object fails the link: status $rc, output '$(oneline "$got")'"; fi

# ---- every descriptor of a batch closed ----------------------------------------------------
if [ "$TARGET" = x86_64 ]; then
    case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
    if build_prog batch-fds-build "$B/tests/input-batch/t_batch_fds" "$ROOT/tests/input-batch/t_batch_fds.c" -- -O1; then
        # shellcheck disable=SC2086
        run_cases t_batch_fds 60 $RUN "$B/tests/input-batch/t_batch_fds" "${objs[@]}"
        if grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$TMP/t_batch_fds.err"; then
            fail "t_batch_fds-process: sanitizer report: $(grep -m 2 -E 'runtime error:|ERROR: ' "$TMP/t_batch_fds.err" | tr '\n' ' ')"
        fi
    fi
fi

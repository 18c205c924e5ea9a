#!/usr/bin/env bash
# 66-perf: perf sees loaded code (issue 36, item 4), with Debian's perf (linux-perf): a host
# (tests/perf/) loads a unit and spins in it.
#   - `perf record ./host` with nothing set: perf report names the loaded function (the perf
#     map is written because perf started the process); the same host outside perf writes
#     no map.
#   - OBJRT_PERF_JITDUMP=1: /tmp/jit-<pid>.dump read by a reader of our own
#     (tests/perf/jitdump_read.py, the kernel's jitdump-specification.txt layout): header,
#     every record's size and clock, and mix()'s loaded bytes equal to its bytes in the
#     object (it has no relocation); `perf record -k mono`, `perf inject --jit`, and
#     `perf annotate` shows hot_spin's instructions in the order objdump shows them in the
#     object.
#   - a symbolic link planted at /tmp/jit-<pid>.dump is not written through.
# Controls: OBJRT_PERF_MAP=0 under perf leaves the samples unnamed; without the jitdump,
# perf annotate has no hot_spin to show.
# x86_64 without sanitizers (perf does not run under qemu-user).
# suite-timeout: 300
set -u
. tests/lib.sh
[ "$TARGET:$SAN" = x86_64: ] || exit 0
expect perf-record-works perf-default-names-under-perf perf-no-map-outside-perf \
    jitdump-structure jitdump-bytes-are-the-objects perf-annotate-shows-loaded-code \
    jitdump-symlink-not-followed
expect_harness perf-control-map-off-unnamed perf-control-no-jitdump-no-annotate

P=$TMP/perf; mkdir -p "$P"; cd "$P" || exit 1
S=$ROOT/tests/perf
gcc -O2 -c "$S/hot.c" -o hot.o
build_prog perf-record-works "$P/host" "$S/perf_host.c" || exit 0
N=200000000
if ! command -v perf >/dev/null; then fail "perf-record-works: no perf (linux-perf; scripts/install-deps.sh)"; exit 0; fi
if ! perf record -q -o rec.data true >perf.log 2>&1; then
    fail "perf-record-works: perf record fails here (perf events unavailable?): $(oneline "$(cat perf.log)")"; exit 0
fi
pass "perf-record-works ($(perf --version))"
top() { perf report -i "$1" --stdio --sort sym 2>/dev/null | grep -v '^#' | grep -m 1 '%'; }

# The perf map by default, under perf only.
hpid() { sed -n 's/^pid //p' "$1"; }
perf record -q -o d1.data ./host hot.o $N >h1.out 2>&1
t=$(top d1.data)
rm -f "/tmp/perf-$(hpid h1.out).map"
[[ $t == *hot_spin* ]] && pass "perf-default-names-under-perf ($(echo $t))" || fail "perf-default-names-under-perf: top sample '$t'"
OBJRT_PERF_MAP=0 perf record -q -o d2.data ./host hot.o $N >/dev/null 2>&1
t=$(top d2.data)
[[ $t != *hot_spin* && $t == *0x* ]] && hpass perf-control-map-off-unnamed || hfail "perf-control-map-off-unnamed: top sample '$t'"
./host hot.o 1000 >h0.out; pid=$(hpid h0.out)
[ -n "$pid" ] && [ ! -e "/tmp/perf-$pid.map" ] && pass perf-no-map-outside-perf || { fail "perf-no-map-outside-perf: /tmp/perf-$pid.map written"; rm -f "/tmp/perf-$pid.map"; }

# The jitdump: its structure by our reader, then what perf makes of it.
OBJRT_PERF_JITDUMP=1 OBJRT_PERF_MAP=0 perf record -q -k mono -o d3.data ./host hot.o $N >h3.out 2>&1
pid=$(hpid h3.out) dump=/tmp/jit-$(hpid h3.out).dump
if out=$(/usr/bin/python3 "$S/jitdump_read.py" "$dump" "$pid" 62 2>&1) &&
   grep -q '^load [0-9]* hot_spin ' <<<"$out" && grep -q '^load [0-9]* mix ' <<<"$out"; then
    pass "jitdump-structure ($(wc -l <<<"$out") load records)"
else fail "jitdump-structure: $dump: $(oneline "$out")"; fi
# mix's bytes in hot.o's .text (its symbol's offset and size), as the object holds them.
want=$(/usr/bin/python3 - hot.o <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", d, 0x28); shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
sh = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
symtab = next(s for s in sh if s[1] == 2); strtab = sh[symtab[6]]
for i in range(symtab[5] // 24):
    name, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", d, symtab[4] + i * 24)
    n = d[strtab[4] + name:d.index(b"\0", strtab[4] + name)]
    if n == b"mix":
        print(d[sh[shndx][4] + value:sh[shndx][4] + value + size].hex())
EOF
)
got=$(grep '^load [0-9]* mix ' <<<"${out:-}" | cut -d' ' -f5)
[ -n "$want" ] && [ "$got" = "$want" ] && pass "jitdump-bytes-are-the-objects (mix: $((${#want} / 2)) bytes)" ||
    fail "jitdump-bytes-are-the-objects: loaded '$got', object '$want'"
perf inject --jit -i d3.data -o d3j.data >inject.log 2>&1
ann=$(perf annotate -i d3j.data --stdio hot_spin 2>&1)
# The first ten instructions' mnemonics, perf's and objdump's of the object.
mn_perf=$(grep -E '^ +[0-9.]+ : +[0-9a-f]+: ' <<<"$ann" | sed -E 's/^ +[0-9.]+ : +[0-9a-f]+: +([a-z0-9]+).*/\1/' | head -n 10 | tr '\n' ' ')
mn_obj=$(objdump -d --no-show-raw-insn hot.o | sed -n '/<hot_spin>:/,/^$/p' | grep -E '^ +[0-9a-f]+:' |
         sed -E 's/^ +[0-9a-f]+:\s+([a-z0-9]+).*/\1/' | head -n 10 | tr '\n' ' ')
[ -n "$mn_perf" ] && [ "$mn_perf" = "$mn_obj" ] && pass "perf-annotate-shows-loaded-code ($mn_perf)" ||
    fail "perf-annotate-shows-loaded-code: perf '$mn_perf', objdump '$mn_obj' $(oneline "$(cat inject.log) $ann")"
# Control: the same record without a jitdump.
OBJRT_PERF_MAP=0 perf record -q -k mono -o d4.data ./host hot.o $N >/dev/null 2>&1
perf inject --jit -i d4.data -o d4j.data >/dev/null 2>&1
ann=$(perf annotate -i d4j.data --stdio hot_spin 2>&1)
grep -qE '^ +[0-9.]+ : +[0-9a-f]+: ' <<<"$ann" && hfail "perf-control-no-jitdump-no-annotate: annotated" ||
    hpass perf-control-no-jitdump-no-annotate
rm -f "$dump" /tmp/jitted-"$pid"-*.so

# A planted symbolic link: left alone, nothing written through it.
: >target
pid=$(bash -c 'ln -s '"$P"'/target /tmp/jit-$$.dump; echo $$; exec env OBJRT_PERF_JITDUMP=1 ./host hot.o 1000 >/dev/null')   # exec keeps the pid
[ ! -s target ] && [ -L "/tmp/jit-$pid.dump" ] && pass jitdump-symlink-not-followed ||
    fail "jitdump-symlink-not-followed: target has $(stat -c %s target) bytes"
rm -f "/tmp/jit-$pid.dump"

#!/usr/bin/env bash
# The third probe's defects on the command line and its input paths (issue 40, items 4-7, 9,
# 10 and the smaller ones beside them), one rule each, every case failing on the code before
# its fix and each with a control: option values and numeric environment values read by one
# helper that quotes what was typed and refuses contradictions (base/number.c,
# cli/opts.c). x86_64 (plain and asan).
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] && [ "$SAN" != tsan ] || exit 0
P2=$ROOT/tests/probe2
PY=/usr/bin/python3
expect "page size quoted as typed" "page size in hex quoted in the loader's refusal" \
    "page size given twice differently refused" "page size given twice alike accepted" \
    "two outputs of one name refused" "an --inout and an --out of one name refused" \
    "outputs of distinct names accepted" "--aot with --packed refused" \
    "--packed twice accepted" "-f given twice differently refused" \
    "--version with an operand refused" "--version alone answers" \
    "OBJRT_GRAPH_MAX_BYTES=-1 refused" "OBJRT_GRAPH_MAX_BYTES=0x20 accepted" \
    "OBJRT_LIBGCC naming a FIFO refused" "OBJRT_LIBGCC naming a directory refused" \
    "OBJRT_LIBGCC naming /dev/zero refused" "OBJRT_LIBGCC naming a missing file refused" \
    "OBJRT_LIBGCC naming libgcc.a links from it" "OBJRT_LIBGCC=none searches nothing" \
    "an .npz member past 1 GiB names the cap" "an .npz member cut short still runs past the end" \
    "the .npz before its size was changed loads" \
    "an .npz member name escaped in the reader's refusal" \
    "an .npz member name escaped in the graph's refusal" \
    "TVM_NUM_THREADS=-3 ignored, saying so" "TVM_NUM_THREADS=3 taken silently" \
    "OBJRT_CPUS=+0 ignored, saying so" "OBJRT_CPUS=0,1-1 taken silently"
expect_harness "the .npz names hold a raw ESC (setup)"
[ -z "$SAN" ] && expect "OBJRT_LIBRARY naming a FIFO refused at import" \
    "OBJRT_LIBRARY naming libobjrt.so imports" "a load at the mapping limit names the unit and the limit" \
    "a load at the mapping limit succeeds once units are unloaded" \
    "300 units load without the filler"
cd "$TMP"
printf 'int main(void) { return 7; }\n' > m.c && $GCC -O2 -c m.c -o m.o
$GCC -O2 -c "$P2/data_syms.c" -o ds.o

# ---- item 9 and the rule: a bad number is quoted as typed, never as strtoul converted it ----
# refused NAME PATTERN CMD...: status 125 and PATTERN (grep -E) in the output, no converted
# value (2^64-1) in it
refused() {
    local name=$1 pat=$2 out rc; shift 2
    out=$(timeout 20 "$@" 2>&1); rc=$?
    if [ $rc -eq 125 ] && grep -Eq -- "$pat" <<<"$out" && ! grep -q 18446744073709551615 <<<"$out"
    then pass "$name"; else fail "$name: $(status_text $rc): $(oneline "$out")"; fi
}
refused "page size quoted as typed" "^objrt: --page-size '-1': expected a whole number from 4096 to 65536" \
    $OBJRT run --page-size -1 m.o
refused "page size in hex quoted in the loader's refusal" "^objrt: --page-size '0x2000': page size 8192" \
    $OBJRT run --page-size 0x2000 m.o
refused "page size given twice differently refused" \
    "^objrt: --page-size '65536' contradicts --page-size '4096' given before: give one" \
    $OBJRT layout --page-size 4096 --page-size 65536 m.o
expect_status "page size given twice alike accepted" 7 $OBJRT run --page-size 65536 --page-size=65536 m.o

# ---- item 10: two outputs written to one file; flags that contradict each other ------------
mkdir -p o1 o2 o3
out=$($OBJRT call ds.o -f add1 --out 'b=float32[2]' --out 'b=int32[1]' -o o1 2>&1); rc=$?
if [ $rc -eq 125 ] && [ ! -e o1/b.npy ] &&
   grep -q "^objrt: --out 'b=float32\[2\]' and --out 'b=int32\[1\]' both write b.npy" <<<"$out"
then pass "two outputs of one name refused"
else fail "two outputs of one name refused: $(status_text $rc), o1: $(ls o1): $(oneline "$out")"; fi
$PY -c "import numpy as np; np.save('w.npy', np.zeros(2, np.float32))"
refused "an --inout and an --out of one name refused" "^objrt: --inout 'w.npy' and --out 'w=int8\[1\]' both write w.npy" \
    $OBJRT call ds.o -f add1 --inout w.npy --out 'w=int8[1]' -o o2
out=$($OBJRT call ds.o -f add1 --out 'b=float32[2]' --out 'c=int32[1]' -o o3 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -f o3/b.npy ] && [ -f o3/c.npy ]; then pass "outputs of distinct names accepted"
else fail "outputs of distinct names accepted: $(status_text $rc): $(oneline "$out")"; fi
refused "--aot with --packed refused" "^objrt: --packed contradicts --aot given before: give one" \
    $OBJRT call ds.o -f add1 --aot --packed -o o3
expect_status "--packed twice accepted" 0 $OBJRT call ds.o -f add1 --packed --packed -o o3
refused "-f given twice differently refused" "^objrt: -f 'table' contradicts -f 'add1' given before" \
    $OBJRT call ds.o -f add1 -f table -o o3
refused "--version with an operand refused" "^objrt: --version extra: takes no operand" $OBJRT --version extra
out=$($OBJRT --version 2>&1) && grep -Eq '^objrt [0-9.]+$' <<<"$out" && pass "--version alone answers" ||
    fail "--version alone answers: $(oneline "$out")"

# ---- a numeric environment value: OBJRT_GRAPH_MAX_BYTES=-1 switched the cap off ------------
sed 's/536870912/4/' "$P2/graph_bomb.json" > g.json        # a graph of 32 bytes of storage
$PY -c "import numpy as np; np.save('x.npy', np.zeros((1, 4), np.float32))"
refused "OBJRT_GRAPH_MAX_BYTES=-1 refused" "OBJRT_GRAPH_MAX_BYTES '-1': expected a whole number" \
    env OBJRT_GRAPH_MAX_BYTES=-1 $OBJRT call ds.o --graph g.json --in x=x.npy -o o3
out=$(OBJRT_GRAPH_MAX_BYTES=0x20 $OBJRT call ds.o --graph g.json --in x=x.npy -o o3 2>&1) &&
    pass "OBJRT_GRAPH_MAX_BYTES=0x20 accepted" ||
    fail "OBJRT_GRAPH_MAX_BYTES=0x20 accepted: $(oneline "$out")"

# ---- numeric variables of the runtime: read by the same reader, a bad one ignored aloud ------
printf '#include <stdio.h>\n#include "objrt/tvm_backend.h"\nint main(void) { printf("%%d\\n", objrt_num_threads()); return 0; }\n' > nt.c
if build_prog "TVM_NUM_THREADS=-3 ignored, saying so" nt nt.c; then
    out=$(OMP_NUM_THREADS=2 TVM_NUM_THREADS=-3 ./nt 2>nt.err); err=$(cat nt.err)
    if [ "$out" = 2 ] && grep -q "^objrt: TVM_NUM_THREADS '-3': expected a whole number from 0 to 2147483647.*; ignored$" <<<"$err"
    then pass "TVM_NUM_THREADS=-3 ignored, saying so"
    else fail "TVM_NUM_THREADS=-3 ignored, saying so: threads '$out', stderr '$(oneline "$err")'"; fi
    out=$(OMP_NUM_THREADS=2 TVM_NUM_THREADS=3 ./nt 2>nt.err); err=$(cat nt.err)
    if [ "$out" = 3 ] && [ -z "$err" ]; then pass "TVM_NUM_THREADS=3 taken silently"
    else fail "TVM_NUM_THREADS=3 taken silently: threads '$out', stderr '$(oneline "$err")'"; fi
    # OBJRT_CPUS's numbers go through the same reader: strtol took "+0" as CPU 0, silently.
    # With no thread count set the pool has one thread per listed CPU; a list not taken
    # leaves every usable CPU.
    cpus() { env -u TVM_NUM_THREADS -u OMP_NUM_THREADS OBJRT_CPUS="$1" ./nt 2>nt.err; }
    out=$(cpus +0); err=$(cat nt.err)
    if [ "$out" = "$(nproc)" ] && grep -q "^objrt: OBJRT_CPUS list not taken ('+0': expected a whole number from 0 to 1023.*); ignored$" <<<"$err"
    then pass "OBJRT_CPUS=+0 ignored, saying so"
    else fail "OBJRT_CPUS=+0 ignored, saying so: threads '$out', stderr '$(oneline "$err")'"; fi
    out=$(cpus 0,1-1); err=$(cat nt.err)
    if [ "$out" = 2 ] && [ -z "$err" ]; then pass "OBJRT_CPUS=0,1-1 taken silently"
    else fail "OBJRT_CPUS=0,1-1 taken silently: threads '$out', stderr '$(oneline "$err")'"; fi
fi
# ---- items 5 and 6: an .npz member's real reason, and its name escaped ----------------------
# zips.py writes: ok.npz (member a.npy, deflated), big.npz (the same with the directory's
# uncompressed size 1 GiB + 1), cut.npz (compressed size past the file's end), esc.npz (a
# member named "e<ESC>[31m.npy" whose CRC does not match) and escg.npz (that name, intact)
$PY "$ROOT/tests/probe3-cli/zips.py" .
refused "an .npz member past 1 GiB names the cap" \
    "member a.npy: its tensor is 1073741825 bytes, past the cap of 1 GiB \(1073741824 bytes\) per .npz member" \
    $OBJRT call ds.o -f add1 --in big.npz -o o3
refused "an .npz member cut short still runs past the end" "member a.npy: its data runs past the end of the file" \
    $OBJRT call ds.o -f add1 --in cut.npz -o o3
expect_status "the .npz before its size was changed loads" 0 $OBJRT call ds.o -f add1 --in ok.npz -o o3
# escaped NAME CMD...: status 125, the name shown as e\x1b[31m.npy, no raw ESC byte anywhere
escaped() {
    local name=$1 out rc; shift
    out=$(timeout 20 "$@" 2>&1); rc=$?
    if [ $rc -eq 125 ] && grep -qF 'e\x1b[31m' <<<"$out" && ! grep -q $'\e' <<<"$out"; then pass "$name"
    else fail "$name: $(status_text $rc): $(oneline "$(printf '%q' "$out")")"; fi
}
if grep -qa $'e\e\[31m.npy' esc.npz; then hpass "the .npz names hold a raw ESC (setup)"
else hfail "the .npz names hold a raw ESC (setup): not found in esc.npz"; fi
escaped "an .npz member name escaped in the reader's refusal" $OBJRT call ds.o -f add1 --in esc.npz -o o3
escaped "an .npz member name escaped in the graph's refusal" $OBJRT call ds.o --graph g.json --in escg.npz -o o3

# ---- item 4: every path the environment names is opened as the inputs are (base/regular.c) --
# A FIFO blocked the load forever; a directory or /dev/zero was passed over in silence.
cat > pc.c <<'C'
int main(void) { __builtin_cpu_init(); return __builtin_cpu_supports("sse2") ? 8 : 9; }
C
$GCC -O2 -c pc.c -o pc.o         # __cpu_model: in libgcc.a, not exported to the host
mkfifo fifo && mkdir adir
refused "OBJRT_LIBGCC naming a FIFO refused" "^objrt: OBJRT_LIBGCC fifo: not a regular file" \
    env OBJRT_LIBGCC=fifo $OBJRT run pc.o
refused "OBJRT_LIBGCC naming a directory refused" "^objrt: OBJRT_LIBGCC adir: not a regular file" \
    env OBJRT_LIBGCC=adir $OBJRT run pc.o
refused "OBJRT_LIBGCC naming /dev/zero refused" "^objrt: OBJRT_LIBGCC /dev/zero: not a regular file" \
    env OBJRT_LIBGCC=/dev/zero $OBJRT run pc.o
refused "OBJRT_LIBGCC naming a missing file refused" "^objrt: OBJRT_LIBGCC nowhere.a: No such file" \
    env OBJRT_LIBGCC=nowhere.a $OBJRT run pc.o
expect_status "OBJRT_LIBGCC naming libgcc.a links from it" 8 \
    env OBJRT_LIBGCC="$($GCC -print-libgcc-file-name)" $OBJRT run pc.o
refused "OBJRT_LIBGCC=none searches nothing" "undefined symbol '__cpu_(model|indicator_init)'" \
    env OBJRT_LIBGCC=none $OBJRT run pc.o
if [ -z "$SAN" ]; then      # the Python package's one path variable, as `import objrt` meets it
    case $BUILD in /*) lib=$BUILD/libobjrt.so ;; *) lib=$ROOT/$BUILD/libobjrt.so ;; esac
    out=$(cd "$TMP" && OBJRT_LIBRARY=$TMP/fifo PYTHONPATH=$ROOT/python timeout 20 $PY -c 'import objrt' 2>&1); rc=$?
    if [ $rc -eq 1 ] && grep -q "ImportError: objrt: OBJRT_LIBRARY $TMP/fifo: not a regular file" <<<"$out"
    then pass "OBJRT_LIBRARY naming a FIFO refused at import"
    else fail "OBJRT_LIBRARY naming a FIFO refused at import: $(status_text $rc): $(oneline "$out")"; fi
    out=$(cd "$TMP" && OBJRT_LIBRARY=$lib PYTHONPATH=$ROOT/python timeout 20 $PY -c 'import objrt' 2>&1) &&
        pass "OBJRT_LIBRARY naming libobjrt.so imports" ||
        fail "OBJRT_LIBRARY naming libobjrt.so imports: $(oneline "$out")"
fi

# ---- item 7: the kernel's limit on mappings (vm.max_map_count) named with its remedy ---------
# maplimit.c takes the process to within 600 mappings of the limit, then loads a tiny unit
# until a load fails (plain only: a sanitizer's own mappings would fail first, and abort).
if [ -z "$SAN" ] && build_prog "a load at the mapping limit names the unit and the limit" maplimit \
        "$ROOT/tests/probe3-cli/maplimit.c"; then
    printf 'int v = 3;\nint get(void) { return v; }\nconst int k = 4;\n' > tiny.c && $GCC -O2 -c tiny.c -o tiny.o
    limit=$(cat /proc/sys/vm/max_map_count)
    out=$(timeout 300 ./maplimit tiny.o fill 2>&1); rc=$?
    if [ $rc -eq 0 ] && grep -Eq "^error unit tiny.o: (mprotect|mmap|cannot reserve)[^:]*: Cannot allocate memory: the process is at the kernel's limit on memory mappings \(vm.max_map_count = $limit; .*sysctl -w vm.max_map_count=N.*OBJRT_PACK=1" <<<"$out"
    then pass "a load at the mapping limit names the unit and the limit ($(grep -m1 ^loaded <<<"$out") after the filler)"
    else fail "a load at the mapping limit names the unit and the limit: $(status_text $rc): $(oneline "$out")"; fi
    grep -q '^after-unload OK$' <<<"$out" && pass "a load at the mapping limit succeeds once units are unloaded" ||
        fail "a load at the mapping limit succeeds once units are unloaded: $(oneline "$out")"
    out=$(timeout 300 ./maplimit tiny.o nofill 300 2>&1)
    grep -q '^loaded 300$' <<<"$out" && pass "300 units load without the filler" ||
        fail "300 units load without the filler: $(oneline "$out")"
fi
exit 0

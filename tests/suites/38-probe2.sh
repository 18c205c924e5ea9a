#!/usr/bin/env bash
# The second probe's defects (issue 27), one rule each, every case failing on the code before
# its fix: the dry run of inputs with no object, names from inputs called as code, names
# from inputs printed raw. x86_64 (plain and asan).
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] && [ "$SAN" != tsan ] || exit 0
P=$ROOT/tests/probe2
PY=/usr/bin/python3
expect "layout of an archive with no member" "layout_report of an archive with no member" \
    "call -f names a data symbol" "call -f names a read-only table" "call -f names the kernel" \
    "graph func_name names a data symbol" \
    "names escaped: undefined symbol error" "names escaped: duplicate definition error" \
    "names escaped: crash report" "names escaped: layout report" "names escaped: perf map" \
    "names escaped: graph error" \
    "32-bit absolute reference no base satisfies: common relocation format" \
    "32-bit absolute reference against host data: both sites named" \
    ".preinit_array runs first, in the native order" \
    "FIFO as --in is refused" "FIFO as --graph is refused" "FIFO as --params is refused" \
    "FIFO as a graph --in is refused" "/dev/zero as --params is refused" \
    "FIFO as an .npz --in is refused" "FIFO as an export_library tar is refused" \
    "fork while another thread loads: 100 children load" \
    "graph of 2 GiB storage refused before allocating" \
    "graph storage allocated only after the nodes are validated" \
    "OBJRT_GRAPH_MAX_BYTES lowers the cap" "OBJRT_GRAPH_MAX_BYTES raises the cap" \
    "fault sweep: each allocation and mapping of a link fails in turn" \
    "an ifunc defined in the unit is refused by name"
expect_harness "evil names are in the objects (setup)" "printable.py rejects raw names"
cd "$TMP"

# ---- item 4: the dry run works without any object -------------------------------------
printf '!<arch>\n' > empty.a
out=$($OBJRT layout empty.a 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "no object in the inputs (empty.a)" <<<"$out" &&
   grep -q "^reservation: " <<<"$out"; then pass "layout of an archive with no member"
else fail "layout of an archive with no member: $(status_text $rc): $(oneline "$out")"; fi
cat > lr.c <<'C'
#include <stdio.h>
#include "objrt.h"
int main(int argc, char **argv)
{
    objrt_ctx *ctx = objrt_new();
    const char *p[] = { argv[1] };
    int rc = objrt_layout_report(ctx, p, 1, stdout);
    printf("rc=%d %s\n", rc, objrt_error(ctx));
    /* the context is still usable: the same report again */
    rc |= objrt_layout_report(ctx, p, 1, stdout);
    objrt_free(ctx);
    return (argc > 1 && rc == 0) ? 0 : 1;
}
C
if build_prog "layout_report of an archive with no member" lr lr.c; then
    out=$(./lr empty.a 2>&1); rc=$?
    [ $rc -eq 0 ] && [ "$(grep -c 'no object in the inputs' <<<"$out")" -eq 2 ] &&
        pass "layout_report of an archive with no member" ||
        fail "layout_report of an archive with no member: $(status_text $rc): $(oneline "$out")"
fi

# ---- item 3: a name called as code must name a function of the unit's code ---------------
$GCC -O2 -c "$P/data_syms.c" -o ds.o
expect_fail "call -f names a data symbol" \
    "'__tvm_module_ctx' is not a function of the unit: it is a data object \(STT_OBJECT\) in \.bss of ds\.o" \
    $OBJRT call ds.o -f __tvm_module_ctx
expect_fail "call -f names a read-only table" "'table' is not a function .* in \.rodata of ds\.o" \
    $OBJRT call ds.o -f table
check "call -f names the kernel" $OBJRT call ds.o -f add1
sed 's/FUNC/__tvm_module_ctx/' "$P/graph_data.json" > gd.json
expect_fail "graph func_name names a data symbol" \
    "node 1 \('n1'\): '__tvm_module_ctx' is not a function of the unit: it is a data object" \
    $OBJRT call ds.o --graph gd.json

# ---- item 9: every name printed is escaped (control characters, non-UTF-8 as \xNN) ---------
DEF="b'\\x1b[2J\\nobjrt: forged\\xff_defd1'"
$GCC -O0 -ffunction-sections -c "$P/evil.c" -o evil0.o && $GCC -O2 -c "$P/evil_undef.c" -o undef0.o &&
    $GCC -O2 -c "$P/evil_dup.c" -o dup0.o &&
    $PY "$P/rename.py" evil0.o evil1.o evil_defined_placeholder_ "$DEF" &&
    $PY "$P/rename.py" evil1.o evil.o evil_crash_placeholder___ "b'\\x1b]0;t\\x07\\nobjrt: forged\\xc0\\xafabc'" &&
    $PY "$P/rename.py" undef0.o undef.o evil_undefined_placeholder "b'\\x1b[2J\\nobjrt: forged\\xff_undef1'" &&
    $PY "$P/rename.py" dup0.o dup.o evil_defined_placeholder_ "$DEF"
if [ "$(grep -c $'\x1b\\[2J' evil.o)" -gt 0 ] && grep -q $'\x1b\\]0;t' evil.o && grep -q $'\x1b\\[2J' undef.o; then
    hpass "evil names are in the objects (setup)"
else hfail "evil names are in the objects (setup): the renamed objects lack them"; fi
printf 'objrt: \x1b[2J\nobjrt: forged\n' > raw.txt
if $PY "$P/printable.py" raw.txt "b'objrt'" >/dev/null 2>&1; then
    hfail "printable.py rejects raw names: it accepted an escape sequence and a forged line"
else hpass "printable.py rejects raw names"; fi
# printed NAME FILE WANT: FILE is printable and names the symbol as WANT (escaped)
printed() {
    local why
    if why=$($PY "$P/printable.py" "$2" "$3" 2>&1); then pass "$1"; else fail "$1: $why"; fi
}
$OBJRT run undef.o evil.o > out.txt 2>&1
printed "names escaped: undefined symbol error" out.txt "b'undefined symbol \\'\\\\x1b[2J\\\\x0aobjrt: forged\\\\xff_undef1\\''"
$OBJRT run evil.o dup.o > out.txt 2>&1
printed "names escaped: duplicate definition error" out.txt "b'duplicate definition of \\'\\\\x1b[2J\\\\x0aobjrt: forged\\\\xff_defd1\\''"
$OBJRT run -e crash evil.o > out.txt 2>&1
printed "names escaped: crash report" out.txt "b'evil.o:\\\\x1b]0;t\\\\x07\\\\x0aobjrt: forged\\\\xc0\\\\xafabc+0x'"
$OBJRT layout evil.o > out.txt 2>&1
printed "names escaped: layout report" out.txt "b'evil.o .text.\\\\x1b[2J\\\\x0aobjrt: forged\\\\xff_defd1'"
mkdir -p perf && cat > perfrun.sh <<'SH'
#!/usr/bin/env bash
# the map is /tmp/perf-<pid>.map of the objrt process: exec keeps this shell's pid
echo $$ > "$1"; shift; exec "$@"
SH
OBJRT_PERF_MAP=1 bash perfrun.sh pid.txt $OBJRT run evil.o > /dev/null 2>&1
map=/tmp/perf-$(cat pid.txt).map
if [ -f "$map" ] && [ ! -p "$map" ]; then cp "$map" perf.map; rm -f "$map"
    printed "names escaped: perf map" perf.map "b' \\\\x1b[2J\\\\x0aobjrt: forged\\\\xff_defd1\\n'"
else fail "names escaped: perf map: no map written at $map"; fi
$OBJRT layout evil.o > /dev/null 2>&1
$PY - "$P/graph_data.json" <<'PYX' > ge.json
import sys; print(open(sys.argv[1]).read().replace("FUNC", "\\u001b[2J\\nobjrt: forged"))
PYX
printf 'int x(void){return 0;}\n' > plain.c && $GCC -c plain.c -o plain.o
$OBJRT call plain.o --graph ge.json > out.txt 2>&1
printed "names escaped: graph error" out.txt "b'function \\'\\\\x1b[2J\\\\x0aobjrt: forged\\' is not in the module'"

# ---- item 10: an impossible window in the common relocation format, advice for its case ----
$GCC -c "$P/abs32s_far.s" -o far.o
out=$($OBJRT run far.o 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "^objrt: far\.o: section \.text+0x3: relocation R_X86_64_32S against '\.bss': a 32-bit absolute reference to the unit's own address needs the unit at or below" <<<"$out" &&
   grep -q "non-PIC, small code model): rebuild it with -fPIC" <<<"$out" && ! grep -q "'?'" <<<"$out"; then
    pass "32-bit absolute reference no base satisfies: common relocation format"
else fail "32-bit absolute reference no base satisfies: common relocation format: $(status_text $rc): $(oneline "$out")"; fi
$GCC -O2 -fno-pic -c "$P/abs32_host.c" -o host.o
out=$($OBJRT run host.o 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "^objrt: host\.o: section \.text+0x[0-9a-f]*: relocation R_X86_64_32 against '\.bss': .*, and host\.o: section \.text\.startup+0x[0-9a-f]*: relocation R_X86_64_PC32 against 'optind': .*no address satisfies both; rebuild the objects with -fPIC" <<<"$out"; then
    pass "32-bit absolute reference against host data: both sites named"
else fail "32-bit absolute reference against host data: both sites named: $(status_text $rc): $(oneline "$out")"; fi

# ---- item 11: .preinit_array runs before .init_array, as in an executable -------------------
$GCC -O2 -c "$P/preinit.c" -o pre.o && $GCC pre.o -o pre_native
run_to native ./pre_native
run_to ours $OBJRT run pre.o
if grep -q "^preinit 1$" native.out; then same ".preinit_array runs first, in the native order" native ours
else fail ".preinit_array runs first, in the native order: the native program ran no .preinit_array (setup)"; fi

# ---- item 6: the CLI's readers open regular files only (a FIFO blocked them forever) -------
mkfifo fifo
sed 's/FUNC/add1/' "$P/graph_data.json" > gk.json
# refused NAME ARGS...: objrt call exits 125 within 10 s, saying the file is not regular
refused() {
    local name=$1 out rc; shift
    out=$(timeout 10 $OBJRT call ds.o "$@" 2>&1); rc=$?
    if [ $rc -eq 125 ] && grep -q "not a regular file" <<<"$out"; then pass "$name"
    else fail "$name: $(status_text $rc): $(oneline "$out")"; fi
}
refused "FIFO as --in is refused" -f add1 --in fifo
refused "FIFO as --graph is refused" --graph fifo
refused "FIFO as --params is refused" --graph gk.json --params fifo
refused "FIFO as a graph --in is refused" --graph gk.json --in x=fifo
refused "/dev/zero as --params is refused" --graph gk.json --params /dev/zero
mkfifo fifo.npz fifo.tar
refused "FIFO as an .npz --in is refused" -f add1 --in fifo.npz
out=$(timeout 10 $OBJRT call fifo.tar -f add1 2>&1); rc=$?
[ $rc -eq 125 ] && grep -q "not a regular file" <<<"$out" && pass "FIFO as an export_library tar is refused" ||
    fail "FIFO as an export_library tar is refused: $(status_text $rc): $(oneline "$out")"

# ---- item 2: fork while another thread is inside objrt_load -----------------------------
printf 'int answer(void) { return 42; }\n' > answer.c && $GCC -O2 -c answer.c -o answer.o
if build_prog "fork while another thread loads: 100 children load" fork_load "$P/fork_load.c"; then
    out=$(timeout 300 ./fork_load answer.o "fork while another thread loads: 100 children load" 2>&1); rc=$?
    grep -E "^(PASS|FAIL) " <<<"$out" ||
        fail "fork while another thread loads: 100 children load: $(status_text $rc): $(oneline "$out")"
fi

# ---- item 7: graph storage bounded before anything is allocated --------------------------
# bounded NAME STATUS PATTERN ENV...: objrt call ds.o --graph g.json (under ENV) exits with
# STATUS printing PATTERN, its resident set below 64 MiB (the bomb asks for 2 GiB, committed
# by zero-filling)
bounded() {
    local name=$1 want=$2 pat=$3 r; shift 3
    r=$(env "$@" $PY "$P/maxrss.py" out.txt $OBJRT call ds.o --graph g.json)
    if [ "${r% *}" = "$want" ] && [ "${r#* }" -lt 65536 ] && grep -Eq "$pat" out.txt; then pass "$name"
    else fail "$name: exit ${r% *}, max RSS ${r#* } KiB: $(oneline "$(cat out.txt)")"; fi
}
sed 's/"func_name": "add1"/"func_name": "add1"/' "$P/graph_bomb.json" > g.json
bounded "graph of 2 GiB storage refused before allocating" 125 \
    "storage needs 2147483664 bytes \(storage 1: 2147483648 bytes, entry 1 of shape \[1, 536870912\]\), more than OBJRT_GRAPH_MAX_BYTES" X=1
sed 's/"func_name": "add1"/"func_name": "no_such_kernel"/' "$P/graph_bomb.json" > g.json
bounded "graph storage allocated only after the nodes are validated" 127 \
    "function 'no_such_kernel' is not in the module" OBJRT_GRAPH_MAX_BYTES=4294967296
sed 's/536870912/4/' "$P/graph_bomb.json" > g.json
bounded "OBJRT_GRAPH_MAX_BYTES lowers the cap" 125 "more than OBJRT_GRAPH_MAX_BYTES \(16 bytes\)" \
    OBJRT_GRAPH_MAX_BYTES=16
$PY -c "import numpy as np; np.save('x.npy', np.zeros((1, 4), np.float32))"
out=$(OBJRT_GRAPH_MAX_BYTES=32 $OBJRT call ds.o --graph g.json --in x=x.npy -o . 2>&1) &&
    pass "OBJRT_GRAPH_MAX_BYTES raises the cap" ||
    fail "OBJRT_GRAPH_MAX_BYTES raises the cap: a 32-byte graph under a 32-byte cap: $(oneline "$out")"

# ---- item 5: the fault sweep (every allocation and mapping of a real link fails in turn) ---
# Under asan the leak checker is on: a block a failed load leaves behind fails the case.
$GCC -O2 -c "$P/fault_main.c" -o fm.o && $GCC -O2 -c "$P/fault_lib.c" -o fl.o && ar rcs fl.a fl.o
W=-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=posix_memalign,--wrap=mmap
if build_prog "fault sweep: each allocation and mapping of a link fails in turn" faults "$P/faults.c" -- "$W"; then
    out=$(ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}" timeout 300 ./faults \
          "fault sweep: each allocation and mapping of a link fails in turn" fm.o fl.a 2>&1); rc=$?
    if [ $rc -eq 0 ]; then grep -E "^PASS " <<<"$out"
    else fail "fault sweep: each allocation and mapping of a link fails in turn: $(status_text $rc): $(grep -m 4 -E '^FAIL|ERROR|SUMMARY|#[12] ' <<<"$out" | tr '\n' ' ')"; fi
fi

# ---- item 1: an indirect function defined by the unit is refused, never bound to its resolver
$GCC -O2 -c "$P/ifunc.c" -o ifunc.o && $GCC ifunc.o -o ifunc_native
./ifunc_native; native=$?
out=$($OBJRT run ifunc.o 2>&1); rc=$?
if [ $native -ne 42 ]; then fail "an ifunc defined in the unit is refused by name: the native program returned $native, not 42 (setup)"
elif [ $rc -eq 125 ] && grep -q "^objrt: ifunc\.o: section \.text: symbol 'answer' is an indirect function (STT_GNU_IFUNC" <<<"$out"; then
    pass "an ifunc defined in the unit is refused by name"
else fail "an ifunc defined in the unit is refused by name: exit $rc (native 42): $(oneline "$out")"; fi

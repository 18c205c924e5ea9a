#!/usr/bin/env bash
# 43-input-forms: one reader for every input form in every API (issue 36, item 2). Objects
# compiled now (b.o's entry() calls a.o's helper()) as .o files, an ar archive and TVM's
# export_library tar (ustar, a GNU long name, a ustar prefix) load through objrt_load,
# objrt_load_memory (bytes at an odd address), Python's Context.load (paths, bytes, (name,
# bytes)) and the CLI (`objrt run` of a tar with main), each result equal to the native link's.
# A broken tar is refused alike by every API with the file (and member) named: a size past
# the end, a member that is no ELF object, C source only with what to do (a source beside
# objects is not linked), no object at all; a
# member named "../../x.o" is only a name (nothing is written), a name with an escape
# character is printed escaped; a FIFO named x.tar is refused without blocking.
# Controls: the tar without a.o fails (helper undefined); a wrong expected value is not found.
set -u
. tests/lib.sh
T=$TMP/forms; mkdir -p "$T/deep"
expect forms-native forms-objects-file forms-objects-memory forms-archive-file forms-tar-file \
    forms-tar-memory forms-tar-gnu-longname forms-tar-ustar-prefix forms-tar-source-beside-objects forms-cli-run-tar \
    forms-tar-truncated-named forms-tar-not-elf-member-named forms-tar-c-source-explained \
    forms-tar-no-object forms-tar-zip-slip-name-only forms-tar-name-escaped forms-tar-fifo-refused
[ "$TARGET:$SAN" = x86_64: ] && expect forms-python-path forms-python-bytes forms-python-named-bytes \
    forms-python-error-same
expect_harness forms-control-missing-member forms-control-wrong-value

cd "$T" || exit 1
printf 'int helper(int x) { return x + 1; }\n' >a.c
printf 'int helper(int);\nint entry(int x) { return helper(x) * 2; }\n' >b.c
printf '#include <stdio.h>\nint entry(int);\nint main(void) { printf("entry(20) = %%d\\n", entry(20)); return entry(20) == 42 ? 0 : 1; }\n' >main.c
$GCC -O2 -fPIC -c a.c b.c main.c || { fail "forms-native: fixtures do not compile"; exit 0; }
build_prog forms-objects-file "$T/load_forms" "$ROOT/tests/input-forms/load_forms.c" || exit 0
$GCC a.o b.o main.o -o native && want=$($RUN ./native) && [ -n "$want" ] && pass "forms-native ($want)" ||
    { fail "forms-native: the native link does not run"; exit 0; }
ar rcs liba.a a.o
tar --format=ustar -cf m.tar a.o b.o
long=$(printf 'k%.0s' $(seq 120)).o; cp a.o "$long"; tar --format=gnu -cf long.tar "$long" b.o
dir=$(printf 'd%.0s' $(seq 60))/$(printf 'e%.0s' $(seq 60)); mkdir -p "$dir"; cp a.o "$dir/a.o"
tar --format=ustar -cf prefix.tar "$dir/a.o" b.o
tar --format=ustar -cf main.tar a.o b.o main.o
tar --format=ustar -cf withsrc.tar a.c a.o b.o     # a source beside the objects: not linked

same_as() { [[ $2 == "$want" ]] && pass "$1" || fail "$1: got '$(oneline "$2")', the native link printed '$want'"; }
same_as forms-objects-file "$($RUN ./load_forms file a.o b.o 2>&1)"
same_as forms-objects-memory "$($RUN ./load_forms memory a.o b.o 2>&1)"
same_as forms-archive-file "$($RUN ./load_forms file b.o liba.a 2>&1)"
same_as forms-tar-file "$($RUN ./load_forms file m.tar 2>&1)"
same_as forms-tar-memory "$($RUN ./load_forms memory m.tar 2>&1)"
same_as forms-tar-gnu-longname "$($RUN ./load_forms file long.tar 2>&1)"
same_as forms-tar-ustar-prefix "$($RUN ./load_forms memory prefix.tar 2>&1)"
same_as forms-tar-source-beside-objects "$($RUN ./load_forms file withsrc.tar 2>&1)"
out=$($OBJRT run main.tar 2>&1); rc=$?
[ $rc -eq 0 ] && [[ $out == "$want" ]] && pass forms-cli-run-tar || fail "forms-cli-run-tar: $(status_text $rc): $(oneline "$out")"
# Controls.
tar --format=ustar -cf m1.tar b.o; out=$($RUN ./load_forms file m1.tar 2>&1)
[[ $out == *helper* ]] && hpass forms-control-missing-member || hfail "forms-control-missing-member: $(oneline "$out")"
[[ $($RUN ./load_forms file m.tar) == "entry(20) = 43" ]] && hfail "forms-control-wrong-value: 43 found" ||
    hpass forms-control-wrong-value

# Broken tars: the same message from the path and the bytes.
head -c 1000 m.tar >trunc.tar
head -c 200 /dev/zero | tr '\0' x >bad.o; tar --format=ustar -cf bad.tar a.o bad.o
tar --format=ustar -cf csrc.tar a.c
printf 'x\n' >readme.txt; tar --format=ustar -cf none.tar readme.txt
both() {   # both NAME PATTERN TAR: objrt_load and objrt_load_memory both say PATTERN
    local n=$1 p=$2 f=$3 o1 o2
    o1=$($RUN ./load_forms file "$f" 2>&1); o2=$($RUN ./load_forms memory "$f" 2>&1)
    if grep -q -- "$p" <<<"$o1" && grep -q -- "$p" <<<"$o2"; then pass "$n"
    else fail "$n: file: $(oneline "$o1") memory: $(oneline "$o2")"; fi
}
both forms-tar-truncated-named "error: trunc.tar: the tar member at offset 0x0 claims [0-9]* bytes, only 488 remain" trunc.tar
both forms-tar-not-elf-member-named "error: bad.tar(bad.o): not an ELF object" bad.tar
both forms-tar-c-source-explained 'error: csrc.tar: a.c is C source (export_library of a "c" target): compile it' csrc.tar
both forms-tar-no-object "error: none.tar: the tar holds no object (.o) member" none.tar

# Hostile names: a path out of the folder is a name only; control bytes are escaped.
mkdir -p slip/in; cp a.o b.o slip/in/
tar --format=ustar -cf slip2.tar -C slip/in --transform 's|^|../../|' a.o b.o
(cd "$T/deep" && $RUN ../load_forms file ../slip2.tar >"$T/slip.out" 2>&1)
if grep -q '^\.\./\.\./' < <(tar tf slip2.tar 2>/dev/null) && [ ! -e "$TMP/a.o" ] && [ ! -e "$T/../a.o" ] &&
   { grep -q "$want" "$T/slip.out" || grep -q "slip2.tar(../../" "$T/slip.out"; }; then
    pass "forms-tar-zip-slip-name-only ($(head -c 80 "$T/slip.out"))"
else fail "forms-tar-zip-slip-name-only: $(tar tf slip2.tar 2>&1 | head -2 | tr '\n' ' ') $(oneline "$(cat "$T/slip.out")")"; fi
esc=$(printf 'x\033[2Jy.o'); cp bad.o "$esc"; tar --format=ustar -cf esc.tar "$esc"
out=$($RUN ./load_forms file esc.tar 2>&1)
[[ $out == *'esc.tar(x\x1b[2Jy.o)'* && $out != *$'\033'* ]] && pass forms-tar-name-escaped || fail "forms-tar-name-escaped: $(printf '%q' "$out")"
mkfifo fifo.tar
out=$(timeout 10 $RUN ./load_forms file fifo.tar 2>&1); rc=$?
[ $rc -eq 1 ] && [[ $out == *"fifo.tar: not a regular file"* ]] && pass forms-tar-fifo-refused ||
    fail "forms-tar-fifo-refused: $(status_text $rc): $(oneline "$out")"

# Python: Context.load with a path, with bytes, with (name, bytes); the error the same.
[ "$TARGET:$SAN" = x86_64: ] || exit 0
py() { PYTHONPATH=$ROOT/python OBJRT_LIBRARY=$ROOT/$BUILD/libobjrt.so timeout 60 /usr/bin/python3 -c "
import ctypes, sys, objrt
ctx = objrt.Context()
arg = sys.argv[1]
data = open(sys.argv[2], 'rb').read()
inp = {'path': sys.argv[2], 'bytes': data, 'named': (sys.argv[2], data)}[arg]
try:
    u = ctx.load(inp)
except objrt.LinkError as e:
    print('error:', e); sys.exit(1)
f = u.function('entry', ctypes.c_int, ctypes.c_int)
print('entry(20) = %d' % f(20))" "$@" 2>&1; }
same_as forms-python-path "$(py path m.tar)"
same_as forms-python-bytes "$(py bytes m.tar)"
same_as forms-python-named-bytes "$(py named long.tar)"
o1=$(py path bad.tar); o2=$(py named bad.tar)
[[ $o1 == *"bad.tar(bad.o): not an ELF object"* && $o2 == *"bad.tar(bad.o): not an ELF object"* ]] &&
    pass forms-python-error-same || fail "forms-python-error-same: $(oneline "$o1") / $(oneline "$o2")"

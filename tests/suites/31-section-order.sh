#!/usr/bin/env bash
# 31-section-order: parse.c sorts every object's section ranges by file offset to find
# overlaps, by insertion while the order is nearly sorted (the usual compiler layout) and
# by qsort past a budget of moves. An object with 300 code sections, each with its own
# relocation section written after all the code (-ffunction-sections), takes the qsort
# path: it must link and print what the native link prints, and the same object with two
# of its sections made to overlap must be refused naming both (the control: the overlap
# check still runs on that path; the small-object path is t_corrupt's sections-overlap).
set -u
. tests/lib.sh

expect "many sections: qsort path links like the native link" \
       "many sections: overlap found on the qsort path"
W=$TMP

python3 - "$W/many.c" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("int printf(const char *, ...);\nint g = 1;\n")
    for i in range(300):
        f.write(f"__attribute__((noinline)) int f{i}(int x) {{ return x + g + {i}; }}\n")
    f.write("int entry(void) {\n    int s = 0;\n")
    for i in range(300):
        f.write(f"    s += f{i}(1);\n")
    f.write('    printf("%d\\n", s);\n    return 0;\n}\n')
    f.write("int main(void) { return entry(); }\n")
EOF
if ! $GCC -O1 -ffunction-sections -c "$W/many.c" -o "$W/many.o" 2>"$W/err" ||
   ! $GCC -O1 "$W/many.c" -o "$W/many-native" 2>>"$W/err"; then
    fail "many sections: qsort path links like the native link: compile: $(oneline "$(cat "$W/err")")"
    fail "many sections: overlap found on the qsort path: compile failed"
    exit 0
fi
want=$($RUN "$W/many-native")
# shellcheck disable=SC2086
got=$($OBJRT run -e entry "$W/many.o" 2>&1); rc=$?
nrela=$(readelf -SW "$W/many.o" | grep -c '\.rela\.text\.f')
if [ "$rc" = 0 ] && [ "$got" = "$want" ] && [ "$nrela" -ge 300 ]; then
    pass "many sections: qsort path links like the native link ($nrela relocation sections, prints $got)"
else
    fail "many sections: qsort path links like the native link: status $rc, got '$(oneline "$got")', native '$want', $nrela relocation sections"
fi

# .text.f299 moved onto .text.f0's bytes (+1): far apart in the table, so only a complete
# sort brings them next to each other.
python3 - "$W/many.o" "$W/bad.o" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
shoff = struct.unpack_from("<Q", d, 0x28)[0]
shnum, shstrndx = struct.unpack_from("<HH", d, 0x3c)
names_at = struct.unpack_from("<Q", d, shoff + 64 * shstrndx + 24)[0]
def name(i):
    n = names_at + struct.unpack_from("<I", d, shoff + 64 * i)[0]
    return d[n:d.index(b"\0", n)].decode()
idx = {name(i): i for i in range(shnum)}
a, b = idx[".text.f0"], idx[".text.f299"]
struct.pack_into("<Q", d, shoff + 64 * b + 24, struct.unpack_from("<Q", d, shoff + 64 * a + 24)[0] + 1)
open(sys.argv[2], "wb").write(d)
EOF
# shellcheck disable=SC2086
expect_fail "many sections: overlap found on the qsort path" \
    "bad.o: sections \.text\.f0 and \.text\.f299 overlap in the file" \
    $OBJRT run -e entry "$W/bad.o"

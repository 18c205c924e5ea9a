#!/usr/bin/env bash
# Build the libFuzzer harnesses without make, and their seed corpora from real objects.
#   tests/fuzz/build.sh OUTDIR  ->  OUTDIR/fuzz_{load,link,unwind,runtime,elf},
#                                   OUTDIR/corpus/ (one input), OUTDIR/corpus-link/ (several)
# The library sources are compiled once with the fuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link; a prebuilt libobjrt.a would not be instrumented) and linked
# into every harness.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: build.sh OUTDIR}
TARGETS="fuzz_load fuzz_link fuzz_unwind fuzz_runtime fuzz_elf"
mkdir -p "$OUT/corpus" "$OUT/corpus-link" "$OUT/lib"
rm -f "$OUT"/lib/*.o        # objects of files since moved or removed would join the archive
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CFLAGS="-g -O1 $SAN -I$ROOT/include -I$ROOT/src -I$ROOT/tests/fuzz -D_GNU_SOURCE -std=c11"
for src in $(ls "$ROOT"/src/*/*.c | grep -v "/src/cli/"); do
    echo "clang $CFLAGS -fsanitize=fuzzer-no-link -c $src -o $OUT/lib/$(basename "$(dirname "$src")")-$(basename "$src" .c).o"
done | xargs -P 2 -I{} sh -c '{}'
rm -f "$OUT/lib/libobjrt-fuzz.a"
# As in the Makefile's libobjrt.a: the runtime's registration with the loader travels with
# the public entry points (api.o), which every harness links.
ld -r -o "$OUT/lib/api+runtime.o" "$OUT/lib/loader-api.o" "$OUT/lib/runtime-loader_hooks.o"
rm -f "$OUT/lib/loader-api.o" "$OUT/lib/runtime-loader_hooks.o"
ar rcs "$OUT/lib/libobjrt-fuzz.a" "$OUT"/lib/*.o
for t in $TARGETS; do
    clang $CFLAGS -fsanitize=fuzzer -o "$OUT/$t" "$ROOT/tests/fuzz/$t.c" \
        "$OUT/lib/libobjrt-fuzz.a" -ldl -lpthread -ljansson
done

# Seeds: the robustness fixtures as gcc and clang objects, -fno-pic and -fPIC, an archive,
# objects speaking the TVM ABI (slots, __tvm_main__, system-lib registrations).
FIX=$ROOT/tests/unit/fixtures
C=$OUT/corpus
for src in basic tls missing dup_a weak_a reach_data reach_call ar_main ar_one ar_two ctor; do
    gcc -O2 -c "$FIX/$src.c" -o "$C/gcc-$src.o"
    clang -O1 -c "$FIX/$src.c" -o "$C/clang-$src.o"
done
gcc -O2 -fno-pic -c "$FIX/basic.c" -o "$C/gcc-nopic-basic.o"
gcc -O2 -fPIC -c "$FIX/basic.c" -o "$C/gcc-pic-basic.o"
gcc -O0 -g -c "$FIX/basic.c" -o "$C/gcc-debug-basic.o"
gcc -O2 -c -DCODE_BYTES=100 -DDATA_BYTES=60 -DALIGN=64 "$FIX/align.c" -o "$C/gcc-align.o"
gcc -O2 -DSLOT_OK -c "$FIX/slots.c" -o "$C/gcc-slots-ok.o"
for k in dso_kernel syslib_kernel main_kernel; do
    clang -O2 -I"$ROOT/include" -c "$ROOT/tests/runtime/kernels/$k.c" -o "$C/clang-$k.o"
done
rm -f "$C/libar.a"
ar rcs "$C/libar.a" "$C/gcc-ar_one.o" "$C/gcc-ar_two.o"

# Several-input seeds for fuzz_link (format: fuzz_common.h), both as buffers and as files.
python3 - "$C" "$OUT/corpus-link" <<'EOF'
import os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
def join(files, as_files):
    parts = [open(os.path.join(src, f), 'rb').read() for f in files]
    out = bytes([(len(parts) - 1) | (4 if as_files else 0)])
    for p in parts[:-1]:
        out += struct.pack('<H', min(len(p), 0xffff)) + p[:0xffff]
    return out + parts[-1]
sets = [["gcc-ar_main.o", "libar.a"], ["clang-ar_main.o", "libar.a"],
        ["gcc-basic.o", "gcc-missing.o"], ["gcc-dup_a.o", "gcc-weak_a.o", "libar.a"],
        ["gcc-basic.o", "gcc-tls.o", "gcc-ctor.o", "libar.a"],
        ["gcc-slots-ok.o", "clang-dso_kernel.o"]]
for i, s in enumerate(sets):
    for as_files in (False, True):
        open(os.path.join(dst, "seed-%d-%s" % (i, "files" if as_files else "mem")), 'wb').write(join(s, as_files))
EOF

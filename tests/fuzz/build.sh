#!/usr/bin/env bash
# Build the libFuzzer harnesses without make, and their seed corpora from real objects.
#   tests/fuzz/build.sh OUTDIR  ->  OUTDIR/fuzz_{load,link,unwind,runtime,elf,readers},
#                                   OUTDIR/corpus/ (one input), OUTDIR/corpus-link/ (several),
#                                   OUTDIR/corpus-readers/ (.npy, .npz, graph JSON, params)
# The library sources are compiled once with the fuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link; a prebuilt libobjrt.a would not be instrumented) and linked
# into every harness.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: build.sh OUTDIR}
TARGETS="fuzz_load fuzz_link fuzz_unwind fuzz_runtime fuzz_elf fuzz_readers"
mkdir -p "$OUT/corpus" "$OUT/corpus-link" "$OUT/corpus-readers" "$OUT/lib/cli"
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
# fuzz_readers: the CLI's .npy and .npz readers (not in the library), and a DSO kernel
# embedded as bytes for the graph's function lookups.
for src in npy npz; do
    clang $CFLAGS -fsanitize=fuzzer-no-link -c "$ROOT/src/cli/$src.c" -o "$OUT/lib/cli/$src.o"
done
clang -O2 -I"$ROOT/include" -c "$ROOT/tests/runtime/kernels/dso_kernel.c" -o "$OUT/lib/cli/dso_kernel.o"
(cd "$OUT/lib/cli" && xxd -i dso_kernel.o > dso_kernel_obj.h)
for t in $TARGETS; do
    extra=
    [ "$t" = fuzz_readers ] && extra="-I$OUT/lib/cli $OUT/lib/cli/npy.o $OUT/lib/cli/npz.o -lz"
    clang $CFLAGS -fsanitize=fuzzer -o "$OUT/$t" "$ROOT/tests/fuzz/$t.c" $extra \
        "$OUT/lib/libobjrt-fuzz.a" -ldl -lpthread -ljansson
done

# Seeds: the robustness fixtures as gcc and clang objects, -fno-pic and -fPIC, an archive,
# objects speaking the TVM ABI (slots, __tvm_main__, system-lib registrations).
FIX=$ROOT/tests/robustness/fixtures
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
# TVM's export_library tar (input/tar.c): ustar, and GNU with a long member name.
rm -f "$C/export.tar" "$C/export-gnu.tar"
tar --format=ustar -cf "$C/export.tar" -C "$C" gcc-ar_one.o gcc-ar_two.o
tar --format=gnu -cf "$C/export-gnu.tar" -C "$C" gcc-debug-basic.o

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

# Seeds for fuzz_readers (format: fuzz_readers.c): byte 0 picks the reader.
python3 - "$OUT/corpus-readers" <<'EOF'
import io, json, os, struct, sys, zipfile
dst = sys.argv[1]
def npy(descr, shape, data):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(tuple(shape)))
    h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + data
def npz(members, how):
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w', how) as z:
        for name, blob in members:
            z.writestr(name + '.npy', blob)
    return b.getvalue()
def params(tensors):   # runtime.save_param_dict: names, then CPU NDArrays
    out = struct.pack('<QQQ', 0xF7E58D4F05049CB7, 0, len(tensors))
    for name, _, _, _ in tensors:
        out += struct.pack('<Q', len(name)) + name.encode()
    out += struct.pack('<Q', len(tensors))
    for _, (code, bits), shape, data in tensors:
        out += struct.pack('<QQiiIBBH', 0xDD5E40F096B4A13F, 0, 1, 0, len(shape), code, bits, 1)
        out += b''.join(struct.pack('<q', d) for d in shape) + struct.pack('<q', len(data)) + data
    return out
def graph(func, shape):
    return json.dumps({"nodes": [{"op": "null", "name": "x", "inputs": []},
        {"op": "tvm_op", "name": "n1", "inputs": [[0, 0, 0]], "attrs": {"num_outputs": "1",
         "num_inputs": "1", "flatten_data": "0", "func_name": func, "hash": "0"}}],
        "arg_nodes": [0], "heads": [[1, 0, 0]],
        "attrs": {"dltype": ["list_str", ["float32", "float32"]],
                  "shape": ["list_shape", [shape, shape]],
                  "storage_id": ["list_int", [0, 1]], "device_index": ["list_int", [1, 1]]},
        "node_row_ptr": [0, 1, 2]}).encode()
f4 = struct.pack('<4f', 1, 2, 3, 4)
arrays = {"f4": npy('<f4', [1, 4], f4), "i8": npy('<i8', [2], struct.pack('<2q', 7, -7)),
          "b1": npy('|b1', [3], b'\x01\x00\x01'), "scalar": npy('<f8', [], struct.pack('<d', 2.5)),
          "empty": npy('<u2', [0, 3], b''), "f2": npy('<f2', [2, 1, 1], b'\x00\x3c\x00\x40')}
seeds = {}
for k, v in arrays.items():
    seeds['npy-' + k] = b'\x00' + v
    seeds['hdr-' + k] = b'\x01' + v[10:10 + struct.unpack('<H', v[8:10])[0]]
seeds['npz-stored'] = b'\x02' + npz([('x', arrays['f4']), ('y', arrays['i8'])], zipfile.ZIP_STORED)
seeds['npz-deflated'] = b'\x02' + npz([('x', arrays['f4']), ('b', arrays['b1'])], zipfile.ZIP_DEFLATED)
for func in ('dso_main', '__nop'):
    g = graph(func, [1, 4])
    seeds['graph-' + func] = b'\x03' + g
    seeds['params-' + func] = (b'\x04' + struct.pack('<H', len(g)) + g +
                               params([('x', (2, 32), [1, 4], f4)]))
for name, blob in seeds.items():
    open(os.path.join(dst, name), 'wb').write(blob)
EOF

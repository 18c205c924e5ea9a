#!/usr/bin/python3
"""numpy side of tests/suites/55-tvm-host.sh.

    ref.py inputs DIR            write every input (.npy, and raw .bin for host_capi)
    ref.py check DIR CASE        compare CASE's outputs with numpy; exit 0 when equal
    ref.py check DIR CASE --control   the same comparison against a deliberately wrong
                                 reference (first element + 1): must exit 1
    ref.py hostile DIR           write malformed .npy files, print "NAME<TAB>REGEX" lines
                                 (REGEX: the error objrt call must print)
    ref.py mutate DIR N SEED     write N randomly corrupted copies of a valid file
    ref.py graph DIR             write a graph JSON and params blob as relay.build and
                                 runtime.save_param_dict do (g_graph.json, g_params.bin,
                                 gx.bin), and broken variants listed in DIR/g_bad.tsv as
                                 "MODE<TAB>GRAPH<TAB>PARAMS<TAB>REGEX"
"""
import json
import io
import os
import struct
import sys

import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]


def inputs(d):
    r = np.random.default_rng(12)
    f32 = lambda *s: (r.random(s, dtype=np.float32) - 0.5) * 8
    arrays = {
        "a": f32(1000), "b": f32(1000), "ma": f32(33, 17), "mb": f32(17, 9),
        "x": np.arange(-500, 500, dtype=np.int32) * 7919 % 100003,
        "xf": r.standard_normal(1000), "m": r.random(1000) < 0.5,
        "aa": f32(4, 16), "ab": f32(4, 16), "ia": f32(8, 8), "ib": f32(8, 8), "s": f32(1000),
        "one": np.ones(1, dtype=np.float32),
    }
    for k, v in arrays.items():
        np.save(os.path.join(d, k + ".npy"), v)
    for k in ["a", "b", "ma", "mb", "aa", "ab"]:
        arrays[k].tofile(os.path.join(d, k + ".bin"))
    for t in DTYPES:
        v = (r.random((3, 4, 5)) * 200 - 100)
        np.save(os.path.join(d, "rt_%s.npy" % t), (v > 0) if t == "bool" else v.astype(t))
    np.save(os.path.join(d, "rt0_float64.npy"), np.array(2.5))
    np.save(os.path.join(d, "rte_int16.npy"), np.zeros((0, 7), dtype=np.int16))
    # variants that a kernel or objrt call must refuse
    np.save(os.path.join(d, "a_f64.npy"), arrays["a"].astype(np.float64))
    np.save(os.path.join(d, "a_short.npy"), arrays["a"][:999])
    np.save(os.path.join(d, "a_2d.npy"), arrays["a"].reshape(10, 100))
    np.save(os.path.join(d, "fortran.npy"), np.asfortranarray(arrays["ma"]))
    np.save(os.path.join(d, "object.npy"), np.array([1, "x"], dtype=object), allow_pickle=True)
    with open(os.path.join(d, "a_v2.npy"), "wb") as f:
        np.lib.format.write_array(f, arrays["a"], version=(2, 0))


def load(d, name):
    p = os.path.join(d, name)
    if name.endswith(".bin"):
        return np.fromfile(p, dtype=np.float32)
    return np.load(p)


def expected(d, case):
    L = lambda n: load(d, n + ".npy")
    if case == "graph":
        x, W, b = graph_arrays()
        return {"gout.bin": (2 * np.maximum(x @ W.T + b, 0)).ravel()}
    if case == "graph_cli":
        x, W, b = graph_arrays()
        return {"output_0.npy": 2 * np.maximum(x @ W.T + b, 0)}
    a, b = L("a"), L("b")
    if case == "add":
        return {"c.npy": a + b}
    if case == "add_v2":
        return {"c.npy": a + b}
    if case == "matmul":
        return {"mc.npy": L("ma") @ L("mb")}
    if case == "affine":
        return {"y.npy": 3 * L("x") - 7}
    if case == "mask":
        xf = L("xf")
        return {"ym.npy": np.where(L("m"), -xf, xf / 2)}
    if case == "aot_c":
        aa, ab = L("aa"), L("ab")
        return {"ao.npy": np.maximum(aa * ab + aa, 0)}
    if case == "scale_add":
        return {"z.npy": 2 * a + b}
    if case == "softsign":
        s = L("s")
        return {"ys.npy": s / (1 + np.abs(s))}
    if case == "aot_ir":
        ia, ib = L("ia"), L("ib")
        return {"io.npy": np.sqrt(np.abs((ia - ib) * ia))}
    if case == "capi":
        return {"c.bin": a + b, "mc.bin": (L("ma") @ L("mb")).ravel()}
    if case == "capi_aot":
        aa, ab = L("aa"), L("ab")
        return {"ao.bin": np.maximum(aa * ab + aa, 0).ravel()}
    if case == "roundtrip":
        out = {"y_%s.npy" % t: L("rt_%s" % t) for t in DTYPES}
        out["y0.npy"] = L("rt0_float64")
        out["ye.npy"] = L("rte_int16")
        return out
    raise SystemExit("unknown case " + case)


def check(d, case, control):
    bad = []
    for name, want in expected(d, case).items():
        want = np.array(want)
        if control and want.size:
            want.flat[0] = (not want.flat[0]) if want.dtype == bool else want.flat[0] + 1
        try:
            got = load(d, name)
        except Exception as e:          # a missing or unreadable output is a mismatch
            bad.append("%s: %s" % (name, e))
            continue
        if got.dtype != want.dtype or got.shape != want.shape:
            bad.append("%s: %s%s, numpy %s%s" % (name, got.dtype, got.shape, want.dtype, want.shape))
        elif want.dtype.kind == "f" and not np.allclose(got, want, rtol=2e-6, atol=1e-6):
            bad.append("%s: max error %g" % (name, np.abs(got - want).max()))
        elif want.dtype.kind != "f" and not np.array_equal(got, want):
            bad.append("%s: values differ" % name)
    if bad:
        print("; ".join(bad))
        sys.exit(1)


def npy(header, data=b"", version=(1, 0), hlen=None):
    h = header.encode("latin1")
    if version[0] == 1:
        pre = b"\x93NUMPY" + bytes(version) + struct.pack("<H", len(h) if hlen is None else hlen)
    else:
        pre = b"\x93NUMPY" + bytes(version) + struct.pack("<I", len(h) if hlen is None else hlen)
    return pre + h + data


def hdr(descr="'<f4'", fortran="False", shape="(4,)", extra=""):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, %s}\n" % (descr, fortran, shape, extra)


def hostile(d):
    f16 = b"\0" * 16
    cases = {
        "empty": (b"", "not a .npy file"),
        "bad_magic": (b"\x93NUMPX\x01\x00" + b"\0" * 60, "not a .npy file"),
        "version_3": (npy(hdr(), f16, (3, 0)), "format 3.0"),
        "version_9": (npy(hdr(), f16, (9, 0)), "unknown format version 9.0"),
        "minor_1": (npy(hdr(), f16, (1, 1)), "unknown format version 1.1"),
        "hlen_zero": (npy("", f16, hlen=0), "header length 0"),
        "hlen_huge": (npy(hdr(), f16, (2, 0), hlen=0xFFFFFFFF), "header length 4294967295"),
        "hlen_past_end": (npy(hdr(), b"", hlen=60000), "truncated"),
        "not_dict": (npy("[1, 2, 3]\n", f16), "expected '\\{'"),
        "missing_shape": (npy("{'descr': '<f4', 'fortran_order': False}\n", f16), "missing key 'shape'"),
        "duplicate_key": (npy(hdr(extra="'shape': (4,), "), f16), "appears twice"),
        "unknown_key": (npy(hdr(extra="'evil': 1, "), f16), "unknown key 'evil'"),
        "structured": (npy(hdr(descr="[('a', '<f4')]"), f16), "structured dtype"),
        "object": (npy(hdr(descr="'|O'"), f16), "object array"),
        "big_endian": (npy(hdr(descr="'>f4'"), f16), "little-endian"),
        "complex": (npy(hdr(descr="'<c8'", shape="(2,)"), f16), "unsupported dtype"),
        "unicode": (npy(hdr(descr="'<U4'"), f16), "unsupported dtype"),
        "no_byte_order": (npy(hdr(descr="'f4'"), f16), "no byte-order character"),
        "fortran_true": (npy(hdr(fortran="True", shape="(2, 2)"), f16), "fortran_order is True"),
        "fortran_junk": (npy(hdr(fortran="1"), f16), "not True or False"),
        "shape_negative": (npy(hdr(shape="(-4,)"), f16), "not a non-negative integer"),
        "shape_int64_overflow": (npy(hdr(shape="(99999999999999999999,)"), f16), "overflows int64"),
        "shape_product_overflow": (npy(hdr(shape="(4294967296, 4294967296)"), f16),
                                   "element count overflows"),
        "shape_bytes_overflow": (npy(hdr(shape="(4611686018427387904,)"), f16),
                                 "element count overflows"),
        "shape_65_dims": (npy(hdr(shape="(" + "1, " * 65 + ")"), f16), "more than 64 dimensions"),
        "shape_junk": (npy(hdr(shape="(4; 4)"), f16), "expected ',' or '\\)'"),
        "shape_float": (npy(hdr(shape="(4.0,)"), f16), "expected ',' or '\\)'"),
        "data_short": (npy(hdr(), f16[:15]), "data is 15 bytes.*need 16"),
        "data_long": (npy(hdr(), f16 + b"\0"), "data is 17 bytes.*need 16"),
        "huge_claim": (npy(hdr(shape="(1000000000000,)"), f16), "data is 16 bytes.*need 4000000000000"),
        "nul_in_header": (npy(hdr(extra="'x\0': 1, "), f16), "NUL byte"),
        "unterminated": (npy("{'descr': '<f4\n", f16), "unterminated"),
        "escape": (npy(hdr(descr="'<f\\x34'"), f16), "escapes"),
        "trailing_text": (npy(hdr() + "x", f16), "after the closing"),
        "long_key": (npy(hdr(extra="'" + "k" * 5000 + "': 1, "), f16), "too long"),
    }
    for name, (data, pattern) in cases.items():
        with open(os.path.join(d, "h_%s.npy" % name), "wb") as f:
            f.write(data)
        print("%s\t%s" % (name, pattern))


def mutate(d, n, seed):
    buf = io.BytesIO()
    np.save(buf, np.arange(12, dtype=np.float32).reshape(3, 4))
    base = buf.getvalue()
    r = np.random.default_rng(seed)
    for i in range(n):
        b = bytearray(base)
        for _ in range(int(r.integers(1, 4))):
            pos = int(r.integers(0, 80))          # magic, length and header text
            b[pos] = int(r.integers(0, 256))
        cut = int(r.integers(len(b) - 60, len(b) + 1)) if r.random() < 0.3 else len(b)
        with open(os.path.join(d, "m_%d.npy" % i), "wb") as f:
            f.write(bytes(b[:cut]))


def graph_arrays():
    r = np.random.default_rng(5)
    return (r.standard_normal((1, 8)).astype(np.float32), r.standard_normal((4, 8)).astype(np.float32),
            r.standard_normal(4).astype(np.float32))


def graph_json(func2="fused_nn_dense", func5="fused_multiply", ref=(2, 0, 0), rows=None,
               sids=None, xshape=(1, 8)):
    op = lambda name, func, inputs, flat="0": {
        "op": "tvm_op", "name": name, "inputs": inputs,
        "attrs": {"num_outputs": "1", "num_inputs": str(len(inputs)), "flatten_data": flat,
                  "func_name": func, "hash": "0123abcd"}}
    nodes = [{"op": "null", "name": "x", "inputs": []},
             {"op": "null", "name": "p0", "inputs": []},
             op("tvmgen_default_fused_nn_dense", func2, [[0, 0, 0], [1, 0, 0]]),
             {"op": "null", "name": "p1", "inputs": []},
             op("tvmgen_default_fused_add_nn_relu", "fused_add_nn_relu", [list(ref), [3, 0, 0]]),
             op("tvmgen_default_fused_multiply", func5, [[4, 0, 0]], "1")]
    return {"nodes": nodes, "arg_nodes": [0, 1, 3], "heads": [[5, 0, 0]],
            "attrs": {"dltype": ["list_str", ["float32"] * 6],
                      "shape": ["list_shape", [list(xshape), [4, 8], [1, 4], [4], [1, 4], [1, 4]]],
                      "storage_id": ["list_int", sids or [0, 1, 3, 2, 4, 3]],
                      "device_index": ["list_int", [1] * 6]},
            "node_row_ptr": rows or [0, 1, 2, 3, 4, 5, 6]}


def param_blob(params, magic=0xF7E58D4F05049CB7):
    """runtime.save_param_dict: list magic, reserved, names, then NDArrays."""
    out = struct.pack("<QQQ", magic, 0, len(params))
    for name in params:
        out += struct.pack("<Q", len(name)) + name.encode()
    out += struct.pack("<Q", len(params))
    for a in params.values():
        out += struct.pack("<QQiiIBBH", 0xDD5E40F096B4A13F, 0, 1, 0, a.ndim, 2, 32, 1)
        out += struct.pack("<%dq" % a.ndim, *a.shape) + struct.pack("<q", a.nbytes) + a.tobytes()
    return out


def graph(d):
    x, W, b = graph_arrays()
    w = lambda name, data: open(os.path.join(d, name), "wb").write(data)
    w("g_graph.json", json.dumps(graph_json(), indent=2).encode())
    w("g_params.bin", param_blob({"p0": W, "p1": b}))
    x.tofile(os.path.join(d, "gx.bin"))
    np.save(os.path.join(d, "gx.npy"), x)
    good = json.dumps(graph_json())
    bad = [
        ("create", "g_bad_func.json", json.dumps(graph_json(func2="fused_nope")), "function 'fused_nope' is not in the module"),
        ("create", "g_bad_json.json", good[:-20], "JSON line"),
        ("create", "g_bad_dup.json", good[:-1] + ', "nodes": []}', "duplicate"),
        ("create", "g_bad_ref.json", json.dumps(graph_json(ref=(5, 0, 0))), "node 4 .*input 0 does not name an output of an earlier node"),
        ("create", "g_bad_index.json", json.dumps(graph_json(ref=(2, 1, 0))), "input 0 does not name"),
        ("create", "g_bad_rows.json", json.dumps(graph_json(rows=[0, 1, 2, 3, 4, 5, 7])), "node_row_ptr\\[6\\]"),
        ("create", "g_bad_storage.json", json.dumps(graph_json(sids=[0, 1, 3, 2, 4, 99])), "storage_id outside"),
        ("create", "g_bad_size.json", json.dumps(graph_json(xshape=(4611686018427387904, 8))), "size overflows"),
        ("create", "g_bad_huge.json", json.dumps(graph_json(xshape=(1, 1 << 50))), "more than the machine's memory"),
        ("create", "g_bad_top.json", "[1, 2]", "not a JSON object"),
        ("run", "g_fails.json", json.dumps(graph_json(func5="fused_fails")), "node 5 \\('tvmgen_default_fused_multiply', fused_fails\\) failed: fused_fails: planted failure"),
    ]
    pbad = [
        ("params", "g_p_magic.bin", param_blob({"p0": W, "p1": b}, magic=1), "not a TVM params blob"),
        ("params", "g_p_unknown.bin", param_blob({"p0": W, "p9": b}), "'p9' is not an input"),
        ("params", "g_p_shape.bin", param_blob({"p0": W.reshape(8, 4), "p1": b}), "input .p0.: shape \\[8,4\\] given, the graph has \\[4,8\\]"),
        ("params", "g_p_cut.bin", param_blob({"p0": W, "p1": b})[:-3], "truncated"),
        ("params", "g_p_tail.bin", param_blob({"p0": W, "p1": b}) + b"x", "1 bytes after the last tensor"),
    ]
    with open(os.path.join(d, "g_bad.tsv"), "w") as f:
        for mode, name, data, pat in bad:
            w(name, data.encode())
            f.write("%s\t%s\tg_params.bin\t%s\n" % (mode, name, pat))
        for mode, name, data, pat in pbad:
            w(name, data)
            f.write("%s\tg_graph.json\t%s\t%s\n" % (mode, name, pat))


if __name__ == "__main__":
    cmd, d = sys.argv[1], sys.argv[2]
    if cmd == "inputs":
        inputs(d)
    elif cmd == "check":
        check(d, sys.argv[3], "--control" in sys.argv[4:])
    elif cmd == "hostile":
        hostile(d)
    elif cmd == "graph":
        graph(d)
    elif cmd == "mutate":
        mutate(d, int(sys.argv[3]), int(sys.argv[4]))
    else:
        raise SystemExit(__doc__)

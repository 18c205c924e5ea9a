#!/usr/bin/python3
"""numpy side of tests/suites/57-tvm-deploy.sh.

    ref.py inputs DIR                 write the inputs and output templates
    ref.py check DIR CASE [--control] compare CASE's objrt outputs (DIR/objrt/) with numpy
                                      (allclose for libm results) and with the native link's
                                      outputs (DIR/native/, byte-identical when present);
                                      --control compares against a wrong reference: exit 1
"""
import json
import os
import sys

import numpy as np


P0 = np.arange(-4, 12, dtype=np.float32) / np.float32(4)   # graph_lp.c's linked weights


def graph_lp(d):
    op = lambda name, func, inputs: {
        "op": "tvm_op", "name": name, "inputs": inputs,
        "attrs": {"num_outputs": "1", "num_inputs": str(len(inputs)), "flatten_data": "0",
                  "func_name": func, "hash": "5a5a5a5a"}}
    nodes = [{"op": "null", "name": "x", "inputs": []},
             {"op": "null", "name": "p0", "inputs": []},
             op("tvmgen_default_fused_add_nn_relu", "fused_add_nn_relu", [[0, 0, 0], [1, 0, 0]]),
             op("tvmgen_default_fused_multiply", "fused_multiply", [[2, 0, 0]])]
    g = {"nodes": nodes, "arg_nodes": [0, 1], "heads": [[3, 0, 0]],
         "attrs": {"dltype": ["list_str", ["float32"] * 4],
                   "shape": ["list_shape", [[16]] * 4],
                   "storage_id": ["list_int", [0, 1, 2, 3]],
                   "device_index": ["list_int", [1] * 4]},
         "node_row_ptr": [0, 1, 2, 3, 4]}
    with open(os.path.join(d, "g_lp.json"), "w") as f:
        json.dump(g, f)


def inputs(d):
    r = np.random.default_rng(25)
    f32 = lambda *s: ((r.random(s, dtype=np.float32) - 0.5) * 8).astype(np.float32)
    arrays = {"x": f32(1000), "y_t": np.zeros(1000, np.float32), "a": f32(4, 16),
              "b": f32(4, 16), "o_t": np.zeros((4, 16), np.float32), "st": f32(257),
              "s_t": np.zeros(1, np.float32), "x16": f32(16), "y16_t": np.zeros(16, np.float32)}
    for k, v in arrays.items():
        np.save(os.path.join(d, k + ".npy"), v)
    graph_lp(d)
    a, b = arrays["a"], arrays["b"]
    np.savez(os.path.join(d, "ab.npz"), a=a, b=b)
    np.savez_compressed(os.path.join(d, "abz.npz"), a=a, b=b)
    np.savez(os.path.join(d, "gx.npz"), x=arrays["x16"])
    raw = bytearray(open(os.path.join(d, "ab.npz"), "rb").read())
    raw[raw.index(b"\x93NUMPY") + 200] ^= 0xFF          # a data byte of member a
    open(os.path.join(d, "bad_crc.npz"), "wb").write(bytes(raw))


# CASE -> [(output name, numpy reference from inputs, exact?)]
def expected(d, case):
    ld = lambda n: np.load(os.path.join(d, n + ".npy"))
    if case == "math":
        x = ld("x")
        return [("y", 1 / (1 + np.exp(-x)) + np.round(np.tanh(x) * 8), False)]
    if case == "aot":
        a, b = ld("a"), ld("b")
        return [("output", np.maximum(a * b + a, 0), True)]
    if case == "inplace":
        st = ld("st") * np.float32(2) + np.float32(1)
        acc = np.float32(0)
        for v in st:                       # the kernel's own order of float additions
            acc = np.float32(acc + v)
        return [("st", st, True), ("s", np.array([acc], np.float32), True)]
    if case == "graph_lp":
        return [("output_0", np.maximum(ld("x16") + P0, 0) * np.float32(2), True)]
    if case == "crt_axpy":
        return [("z", np.float32(3) * ld("x16") + ld("x16"), True)]
    if case == "crt_neg":
        return [("y", -ld("x16"), True)]
    if case == "old_scale":
        return [("y", ld("x16") * np.float32(0.5), True)]
    if case == "align":
        return [("y", ld("x16") + np.float32(1), True)]
    raise SystemExit("ref.py: unknown case %s" % case)


def check(d, case, control):
    bad = []
    for name, ref, exact in expected(d, case):
        if control:
            ref = ref.copy()
            ref.flat[0] += 1
        got = np.load(os.path.join(d, "objrt", name + ".npy"))
        if got.shape != ref.shape or got.dtype != ref.dtype:
            bad.append("%s: %s %s, numpy %s %s" % (name, got.dtype, got.shape, ref.dtype, ref.shape))
            continue
        if not (np.array_equal(got, ref) if exact else np.allclose(got, ref, rtol=1e-5, atol=1e-6)):
            bad.append("%s differs from numpy (max |diff| %g)" % (name, np.max(np.abs(got - ref))))
        nat = os.path.join(d, "native", name + ".npy")
        if os.path.exists(nat) and np.load(nat).tobytes() != got.tobytes():
            bad.append("%s differs from the native link's bytes" % name)
    if bad:
        print("; ".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    cmd, d = sys.argv[1], sys.argv[2]
    if cmd == "inputs":
        inputs(d)
    elif cmd == "unnpz":                   # ref.py unnpz FILE.npz DIR: members to DIR/NAME.npy
        with np.load(d) as z:
            for k in z.files:
                np.save(os.path.join(sys.argv[3], k + ".npy"), z[k])
    elif cmd == "check":
        check(d, sys.argv[3], "--control" in sys.argv)

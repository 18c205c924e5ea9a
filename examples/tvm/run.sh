#!/usr/bin/env bash
# make demo, TVM part: a small model in the two shapes TVM emits for deployment, an AOT
# module (model_aot.c) and a graph executor module with linked params (model_graph.c +
# model_graph.json), compiled against objrt's TVM headers alone (-I include/objrt, as
# -I$(INCDIR)/objrt once installed), run with `objrt call`, checked against numpy.
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
W=$(mktemp -d /tmp/objrt-tvm-demo.XXXXXX)
trap 'rm -rf "$W"' EXIT
E=examples/tvm
for m in aot graph; do
    gcc -O2 -fPIC -Wall -Wextra -Werror -Iinclude/objrt -c $E/model_$m.c -o "$W/model_$m.o"
done
/usr/bin/python3 -c 'import numpy as np, sys; np.save(sys.argv[1], (np.arange(8, dtype=np.float32) - 3).reshape(1, 8))' "$W/x.npy"
echo "== AOT: objrt call model_aot.o -f tvmgen_default_run --in x.npy --out output=float32[1,4]"
"$BUILD/objrt" call "$W/model_aot.o" -f tvmgen_default_run --in "$W/x.npy" --out 'output=float32[1,4]' -o "$W/aot"
echo "== graph: objrt call model_graph.o --graph model_graph.json --in x=x.npy (weights linked in)"
"$BUILD/objrt" call "$W/model_graph.o" --graph $E/model_graph.json --in "x=$W/x.npy" -o "$W/graph"
/usr/bin/python3 - "$W" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
x = np.load(d + "/x.npy")
W = (np.arange(8, dtype=np.float32)[:, None] - np.arange(4, dtype=np.float32)[None, :]) / np.float32(8)
b = np.array([-0.5, -0.25, 0.0, 0.25], np.float32)
want = np.maximum(x @ W + b, 0)
ok = True
for name, path in [("AOT", d + "/aot/output.npy"), ("graph", d + "/graph/output_0.npy")]:
    got = np.load(path)
    good = got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-6)
    print("%-5s output %s %s" % (name, got.ravel(), "== numpy" if good else "!= numpy %s" % want.ravel()))
    ok = ok and good
print("tvm demo: all results correct" if ok else "tvm demo: FAILED")
sys.exit(0 if ok else 1)
PY

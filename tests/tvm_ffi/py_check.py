"""py_check.py KERNEL.o TVM NATIVE_OUTPUT - Unit.packed on a TVM-FFI kernel from Python:
add's result must equal the native link's "add:" line, a mismatched shape must raise
objrt.KernelError with the release's kind. Prints PASS/FAIL lines named ffi-py-<TVM>-*."""
import sys

import numpy as np
import objrt

path, tvm, native = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tag = "ffi-py-%d-%s" % (tvm, "sys" if "_sys" in path else "dso")
want = next(l.strip() for l in open(native) if l.startswith("add: "))
with objrt.Context() as ctx:
    unit = ctx.load(path)
    a = np.arange(1, 9, dtype=np.float32)
    b, c = a * 10, np.zeros(8, dtype=np.float32)
    r = unit.packed("add")(a, b, c)
    got = "add: " + " ".join("%g" % x for x in c)
    print("PASS %s-add" % tag if got == want and r is None else
          "FAIL %s-add: got '%s' (result %r), the native link '%s'" % (tag, got, r, want))
    try:
        unit.packed("add")(a, b[:7], c)
        print("FAIL %s-kernel-error: no KernelError" % tag)
    except objrt.KernelError as e:
        kind = "ValueError" if tvm >= 24 else "RuntimeError"
        ok = e.kind == kind and "B.shape[0]" in e.message and str(e).startswith(kind + ": ")
        print("PASS %s-kernel-error" % tag if ok else
              "FAIL %s-kernel-error: kind %r message %r" % (tag, e.kind, e.message))

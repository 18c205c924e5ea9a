"""passbuilder_leak.py N - what llvmlite's new pass manager keeps per numba function.

llvmlite 0.44's LLVMPY_CreatePassBuilder allocates a PassInstrumentationCallbacks for
each PassBuilder and LLVMPY_DisposePassBuilder does not free it (a PassBuilder does not
own its callbacks), and every pipeline run registers more callbacks in it. numba 0.61
creates a PassBuilder for each pass-manager run. So part of the memory a compiled and
dropped function leaves behind belongs to neither JIT; this measures how much, with
malloc's own count of bytes in use (mallinfo2), so that the memory bench's RSS growth on
0.61 can be read.

Prints one JSON line: pass builders and runs per function (counted over N functions),
malloc'd bytes kept per PassBuilder created, run once on a small module and dropped, and
per function compiled, called and dropped (MCJIT: numba's default engine).
"""
import collections
import ctypes
import gc
import json
import sys

import llvmlite.binding as ll
import numba
import numba.core.codegen as codegen


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(f, ctypes.c_size_t) for f in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]


_libc = ctypes.CDLL(None)
_libc.mallinfo2.restype = _Mallinfo2


def in_use():
    gc.collect()
    return _libc.mallinfo2().uordblks


def make(i):
    ns = {}
    exec("def f(x):\n    s = 0\n    for k in range(x):\n        s += k * %d + %d\n    return s\n"
         % (i % 7 + 1, i), ns)
    return numba.njit(ns["f"])


def count_per_function(n):
    counts = collections.Counter()
    create = codegen.create_pass_builder

    def counted(*args, **kwargs):
        counts["pass_builders"] += 1
        return create(*args, **kwargs)
    codegen.create_pass_builder = counted
    try:
        for i in range(n):
            make(10**6 + i)(10)
    finally:
        codegen.create_pass_builder = create
    return counts["pass_builders"] / n


def kept_per_pass_builder(n):
    tm = ll.Target.from_default_triple().create_target_machine(opt=3)
    ir = "define i64 @f%d(i64 %%x) {\n  %%y = mul i64 %%x, %d\n  ret i64 %%y\n}\n"

    def once(i):
        pb = ll.create_pass_builder(tm, ll.create_pipeline_tuning_options(speed_level=3))
        pb.getModulePassManager().run(ll.parse_assembly(ir % (i, i)), pb)
    for i in range(20):
        once(i)
    before = in_use()
    for i in range(n):
        once(100 + i)
    return (in_use() - before) / n


def kept_per_function(n):
    before = in_use()
    for i in range(n):
        f = make(2 * 10**6 + i)
        f(10)
        del f
    return (in_use() - before) / n


def main():
    n = int(sys.argv[1])
    for i in range(20):                     # numba's own first compilations
        make(-1 - i)(3)
    print(json.dumps({
        "llvmlite": ll.__version__ if hasattr(ll, "__version__") else
        __import__("llvmlite").__version__,
        "pass_builders_per_function": count_per_function(n),
        "bytes_kept_per_pass_builder": kept_per_pass_builder(n),
        "bytes_kept_per_function": kept_per_function(n),
    }))


if __name__ == "__main__":
    main()

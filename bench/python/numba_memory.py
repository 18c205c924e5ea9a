"""numba_memory.py (objrt|mcjit) N [double|dict|jitclass] - where the memory of a compiled
and dropped numba function goes (numba issue 5976's loop: compile a small function, call it,
drop it), per cycle:

  rss          the process's resident set growth
  malloc       bytes malloc reports in use (mallinfo2: arena + mmapped chunks)
  python       of those, Python objects' (tracemalloc), with the numba files keeping most
  passbuilders llvmlite PassBuilders numba created, and the bytes those keep after disposal
               (llvmlite >= 0.44: LLVMPY_CreatePassBuilder's PassInstrumentationCallbacks is
               never freed), measured apart on PassBuilders built and run as numba does
  units        objrt only: bytes mapped for the live units (objrt.llvm.mapped)

Prints one JSON line (KiB per cycle). The rest of malloc's growth is LLVM's and llvmlite's
own (MCJIT: every module's memory; objrt: what llvmlite keeps whichever JIT links)."""
import ctypes
import gc
import json
import sys
import tracemalloc

jit, n = sys.argv[1], int(sys.argv[2])
if jit == "objrt":
    import objrt.llvm
    import objrt.numba
    objrt.numba.enable()
import llvmlite                                         # noqa: E402
import llvmlite.binding as ll                           # noqa: E402
import numba                                            # noqa: E402
from numba.core import codegen                          # noqa: E402


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(f, ctypes.c_size_t) for f in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]


_libc = ctypes.CDLL(None)
_libc.mallinfo2.restype = _Mallinfo2


def malloc_in_use():
    m = _libc.mallinfo2()
    return m.uordblks + m.hblkhd


def rss():
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) * 1024 for x in f if x.startswith("VmRSS:"))


# What each compiled function does (argv[3], default plain): plain sums; dict builds a local
# typed Dict (its code is numba's own, kept by numba); jitclass builds and returns a jitclass
# instance (its destructor is the function's code: objrt keeps that unit, as MCJIT does).
BODY = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] in ("dict", "jitclass") else "plain"
BODIES = {
    "plain": "def f(x):\n    s = 0\n    for k in range(x):\n        s += k * %d + %d\n    return s\n",
    "dict": "def f(x):\n    d = typed.Dict.empty(types.int64, types.int64)\n"
            "    for k in range(x):\n        d[k] = k * %d + %d\n    return len(d)\n",
    "jitclass": "def f(x):\n    return C(x * %d + %d)\n",
}
_classes = []


def make(i):
    ns = {"typed": numba.typed, "types": numba.types}
    if BODY == "jitclass":
        if not _classes:
            from numba.experimental import jitclass
            cns = {}
            exec("class C:\n    def __init__(self, v):\n        self.v = v\n", cns)
            _classes.append(jitclass([("v", numba.types.int64)])(cns["C"]))
        ns["C"] = _classes[0]
    exec(BODIES[BODY] % (i % 7 + 1, i), ns)
    return numba.njit(ns["f"])


def counting_pass_builders():
    """Count the PassBuilders numba creates, by kind of run (module or function)."""
    counts = {"module": 0, "function": 0}
    if not hasattr(codegen.JITCPUCodegen, "_pass_builder"):
        return counts                                   # llvmlite < 0.44: legacy pass managers
    for kind in ("module", "function"):
        real = getattr(codegen.CPUCodegen, "_%s_pass_manager" % kind)

        def counted(self, *a, _real=real, _kind=kind, **k):
            counts[_kind] += 1
            return _real(self, *a, **k)
        setattr(codegen.CPUCodegen, "_%s_pass_manager" % kind, counted)
    return counts


def doubled_function_passes():
    """numba's per-function pass run done twice (a second PassBuilder per function): the
    growth per cycle against a plain run is what those PassBuilders keep, in place."""
    real = codegen.CPUCodegen._function_pass_manager

    def twice(self, *a, **k):
        pm, pb = real(self, *a, **k)

        class Twice:
            def run(self_, func, pb_):
                pm.run(func, pb_)
                pm2, pb2 = real(self, *a, **k)
                pm2.run(func, pb2)
        return Twice(), pb
    codegen.CPUCodegen._function_pass_manager = twice


def kept_per_pass_builder(cg, kind, rounds=200):
    """Bytes malloc keeps per PassBuilder numba's codegen builds and runs once (on a small
    module) and then drops."""
    ir = "define i64 @g%d(i64 %%x) {\n  %%y = mul i64 %%x, %d\n  ret i64 %%y\n}\n"

    def once(i):
        m = ll.parse_assembly(ir % (i, i))
        if kind == "module":
            pm, pb = codegen.CPUCodegen._module_pass_manager(cg)
            pm.run(m, pb)
        else:
            pm, pb = codegen.CPUCodegen._function_pass_manager(cg)
            pm.run(m.get_function("g%d" % i), pb)
        del pm, pb, m
    for i in range(20):
        once(i)
    gc.collect()
    before = malloc_in_use()
    for i in range(rounds):
        once(100 + i)
    gc.collect()
    return (malloc_in_use() - before) / rounds


def main():
    for i in range(30):                                 # numba's own first compilations
        make(-1 - i)(3)
    counts = counting_pass_builders()
    if BODY == "plain" and len(sys.argv) > 3 and sys.argv[3] == "double":
        doubled_function_passes()
    tracemalloc.start(1)
    for i in range(10):
        make(-100 - i)(3)
    gc.collect()
    snap0 = tracemalloc.take_snapshot()
    py0, t0, m0, r0 = tracemalloc.get_traced_memory()[0], tracemalloc.get_tracemalloc_memory(), \
        malloc_in_use(), rss()
    u0 = objrt.llvm.mapped()[1] if jit == "objrt" else 0
    c0 = dict(counts)
    for i in range(n):
        f = make(i)
        f(10)
        del f
        if i % 20 == 19:
            gc.collect()
    gc.collect()
    py1, t1, m1, r1 = tracemalloc.get_traced_memory()[0], tracemalloc.get_tracemalloc_memory(), \
        malloc_in_use(), rss()
    m1 -= t1 - t0                                       # tracemalloc's own tables
    u1 = objrt.llvm.mapped()[1] if jit == "objrt" else 0
    by_file = {}
    for st in tracemalloc.take_snapshot().compare_to(snap0, "filename"):
        name = st.traceback[0].filename
        name = name[name.find("numba/"):] if "numba/" in name else name.rsplit("/", 1)[-1]
        by_file[name] = by_file.get(name, 0) + st.size_diff
    tracemalloc.stop()
    per = {k: (counts[k] - c0[k]) / n for k in counts}
    cg = codegen.JITCPUCodegen("numba_memory") if jit == "mcjit" else None
    if cg is None:
        from numba.core.registry import cpu_target
        cg = cpu_target.target_context.codegen()
    kept = {k: kept_per_pass_builder(cg, k) if per[k] else 0.0 for k in per}
    kib = 1024.0
    pb = sum(per[k] * kept[k] for k in per)
    top = sorted(by_file.items(), key=lambda kv: -kv[1])[:4]
    print(json.dumps({
        "jit": jit, "body": BODY, "numba": numba.__version__, "llvmlite": llvmlite.__version__, "n": n,
        "rss_kib": (r1 - r0) / n / kib, "malloc_kib": (m1 - m0) / n / kib,
        "python_kib": (py1 - py0) / n / kib,
        "python_top": {k: round(v / n / kib, 2) for k, v in top},
        "pass_builders": per, "kept_per_pass_builder_kib": {k: v / kib for k, v in kept.items()},
        "passbuilders_kib": pb / kib, "units_kib": (u1 - u0) / n / kib,
        "other_kib": ((m1 - m0 - (py1 - py0)) / n - pb) / kib}))


if __name__ == "__main__":
    main()

"""One benchmark measurement in a fresh process, printed as one JSON line:
    python3 numba_bench.py (objrt|mcjit) (compile|memory|speed) [N]
compile: compile + first call of N small jitted functions (wall and process CPU ms; numba
         import and one warm-up function excluded).
memory:  N jitted functions compiled, called and dropped: RSS growth (KiB) after
         gc.collect(), and for objrt the units linked/unloaded.
mapped:  (objrt only) N jitted functions compiled, called and kept: bytes mapped per live
         unit (shared pages of small units plus own reservations) and content per unit.
speed:   mandelbrot (200x200, 100 iterations) and a reduction (sum of sqrt over 10^6
         float64) per call: the thread's CPU time, median of 15 calls after a warm-up (us).
engine:  (run as "mcjit": both JITs in one process) the final LLVM modules of N small
         functions, each linked by an engine numba set up with MCJIT and by one it set up
         with objrt (objrt.numba), interleaved module by module, as numba drives them:
         add_module, finalize_object, two address lookups; objrt also removes the module
         and the module is freed, as when the function is dropped. Beside them the same
         module's bare emit_object. Medians per module (us): what each engine costs beyond
         emitting the object, without the noise of whole processes on a shared machine."""
import gc
import json
import statistics
import sys
import time

jit, what = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
if jit == "objrt":
    import objrt.numba
    objrt.numba.enable()
import numba                                            # noqa: E402
import numpy as np                                      # noqa: E402


from engine_modules import make  # noqa: E402


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])


def compile_bench():
    make(-1)(3)                                         # warm-up: NRT, first pipeline
    t0, c0 = time.perf_counter(), time.process_time()
    total = 0
    for i in range(n):
        total += make(i)(10)
    return {"ms": (time.perf_counter() - t0) * 1e3, "cpu_ms": (time.process_time() - c0) * 1e3,
            "check": total}


def memory_bench():
    for i in range(20):                                 # warm-up: caches numba keeps anyway
        make(-1 - i)(3)
    gc.collect()
    before = rss_kib()
    for i in range(n):
        f = make(i)
        f(10)
        del f
        if i % 50 == 49:
            gc.collect()
    gc.collect()
    out = {"rss_growth_kib": rss_kib() - before}
    if jit == "objrt":
        t = objrt.llvm.totals
        out.update(units=t.units, unloaded=t.unloaded)
    return out


def mapped_bench():
    keep = [make(i) for i in range(n)]
    for f in keep:
        f(10)
    units, nbytes, content = objrt.llvm.mapped()
    return {"units": units, "mapped_per_unit": nbytes / units, "content_per_unit": content / units}


@numba.njit
def mandel(width, height, iters):
    img = np.zeros((height, width), dtype=np.int32)
    for y in range(height):
        for x in range(width):
            c = complex(-2.0 + 3.0 * x / width, -1.5 + 3.0 * y / height)
            z = 0j
            k = 0
            while k < iters and (z.real * z.real + z.imag * z.imag) < 4.0:
                z = z * z + c
                k += 1
            img[y, x] = k
    return img


@numba.njit
def reduce_sqrt(a):
    s = 0.0
    for v in a:
        s += np.sqrt(v)
    return s


def timed(fn, *args):
    # The calling thread's CPU time: on a shared machine wall time measures the others.
    fn(*args)
    ts = []
    for _ in range(15):
        t0 = time.thread_time()
        fn(*args)
        ts.append((time.thread_time() - t0) * 1e6)
    return statistics.median(ts)


def speed_bench():
    a = np.arange(1_000_000, dtype=np.float64)
    return {"mandel_us": timed(mandel, 200, 200, 100), "reduce_us": timed(reduce_sqrt, a),
            "check": int(mandel(50, 50, 50).sum()) + int(reduce_sqrt(a[:1000]))}


def engine_bench():
    import llvmlite.binding as ll
    from engine_modules import engines, entry_names, final_modules
    irs = final_modules(n)
    names = entry_names(irs)
    mc, ob, tm = engines("bench")
    keep = ll.parse_assembly(irs[-1])                   # numba's runtime library stays loaded
    ob._engine.add_module(keep)
    ob._engine.finalize_object()
    pc = time.perf_counter

    def t_emit(m, name):
        t = pc()
        tm.emit_object(m)
        return pc() - t

    def t_mcjit(m, name):
        t = pc()
        mc._engine.add_module(m)
        mc._engine.finalize_object()
        addr = mc._engine.get_function_address(name) and mc._engine.get_function_address(name)
        return pc() - t, addr

    def t_objrt(m, name):
        ee = ob._engine
        t = pc()
        ee.add_module(m)
        ee.finalize_object()
        addr = ee._ee.get_module_address(m, name) and ee._ee.get_module_address(m, name)
        ee.remove_module(m)
        del m
        return pc() - t, addr
    got = {"emit": [], "mcjit": [], "objrt": []}
    check = 0
    gc.collect()
    gc.disable()
    for i in range(len(irs) - 1):
        order = ("emit", "mcjit", "objrt") if i % 2 else ("objrt", "mcjit", "emit")
        for which in order:
            r = {"emit": t_emit, "mcjit": t_mcjit, "objrt": t_objrt}[which](
                ll.parse_assembly(irs[i]), names[i])
            if which != "emit":
                r, addr = r
                check += bool(addr)
            got[which].append(r * 1e6)
    gc.enable()
    med = {k: statistics.median(v) for k, v in got.items()}
    return {"emit_us": med["emit"], "mcjit_us": med["mcjit"], "objrt_us": med["objrt"],
            "mcjit_beyond_us": statistics.median(b - a for a, b in zip(got["emit"], got["mcjit"])),
            "objrt_beyond_us": statistics.median(b - a for a, b in zip(got["emit"], got["objrt"])),
            "modules": len(got["emit"]), "linked": check}


print(json.dumps(dict({"compile": compile_bench, "memory": memory_bench, "engine": engine_bench,
                       "mapped": mapped_bench, "speed": speed_bench}[what](), jit=jit, what=what, n=n)))

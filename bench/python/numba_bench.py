"""One benchmark measurement in a fresh process, printed as one JSON line:
    python3 numba_bench.py (objrt|mcjit) (compile|memory|speed) [N]
compile: compile + first call of N small jitted functions (wall and process CPU ms; numba
         import and one warm-up function excluded).
memory:  N jitted functions compiled, called and dropped: RSS growth (KiB) after
         gc.collect(), and for objrt the units linked/unloaded.
mapped:  (objrt only) N jitted functions compiled, called and kept: bytes mapped per live
         unit (shared pages of small units plus own reservations) and content per unit.
speed:   mandelbrot (200x200, 100 iterations) and a reduction (sum of sqrt over 10^6
         float64) per call: the thread's CPU time, median of 15 calls after a warm-up (us)."""
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


def make(i):
    # A distinct small function each time (a different constant: no cache hit).
    ns = {}
    exec("def f(x):\n    s = 0\n    for k in range(x):\n        s += k * %d + %d\n    return s\n"
         % (i % 7 + 1, i), ns)
    return numba.njit(ns["f"])


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


print(json.dumps(dict({"compile": compile_bench, "memory": memory_bench,
                       "mapped": mapped_bench, "speed": speed_bench}[what](), jit=jit, what=what, n=n)))

"""objrt.numba against the installed numba release: which releases run (the gate), what
numba hands to numpy and C stays alive (ufunc loops, cfunc addresses, NRT objects' code,
first-class function pointers), and the switches
(OBJRT_NUMBA, --stats, enabled()). python3 numba_life_cases.py TMPDIR; run by
tests/suites/73-numba-lifetime.sh with each root's numba (0.56, 0.61, 0.65)."""
import os
import re
import subprocess
import sys

from check import case, expect

TMP = sys.argv[1]
STATS = re.compile(r"^objrt\.numba: .*units=(\d+) .*unloaded=(\d+)", re.M)


def py(code, *pre, env=None, timeout=600):
    """python3 [PRE...] -c CODE in TMP; (status, stdout, stderr)."""
    e = dict(os.environ, **(env or {}))
    r = subprocess.run([sys.executable] + list(pre) + ["-c", code], capture_output=True,
                       text=True, env=e, cwd=TMP, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def on_objrt(code, env=None):
    return py(code, "-m", "objrt.numba", "--stats", env=env)


def units(err):
    m = STATS.search(err)
    return int(m.group(1)) if m else -1


# ---- the release gate ------------------------------------------------------------------------
SMALL = "import numba\nprint(numba.njit(lambda x: x + 1)(41))\n"


@case("numba-gate-tested-release-runs")
def _():
    # The installed release is a tested one: it runs on objrt, no warning.
    rc, out, err = on_objrt("import warnings; warnings.simplefilter('error')\n" + SMALL)
    expect(rc == 0 and out.strip() == "42" and units(err) > 0 and "tested with" not in err,
           "rc=%d out=%r err=%r" % (rc, out, err[-400:]))


NEWER = """
import warnings, llvmlite, numba, objrt.numba
from numba.core import codegen
numba.__version__, llvmlite.__version__ = '0.67.0', '0.49.0'
%s
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    try:
        objrt.numba.enable()
    except objrt.numba.UnsupportedNumba as e:
        print('refused:', e)
%s
for x in w:
    print('warning:', x.category.__name__, x.message)
print(objrt.numba.enabled(), numba.njit(lambda x: x + 1)(41))
import objrt.llvm
print(objrt.llvm.totals.units > 0)
"""


@case("numba-gate-newer-release-warns-once")
def _():
    # numba 0.67 / llvmlite 0.49 (the installed code, its version strings changed): every
    # hook point is there, so it runs on objrt with one warning naming the tested range.
    rc, out, err = py(NEWER % ("", ""))
    lines = out.splitlines()
    warns = [x for x in lines if x.startswith("warning:")]
    expect(rc == 0 and len(warns) == 1 and "UntestedNumba" in warns[0]
           and "tested with numba 0.56 to 0.65 with llvmlite 0.39 to 0.47" in warns[0]
           and "numba 0.67.0 and llvmlite 0.49.0" in warns[0]
           and lines[-2:] == ["True 42", "True"], "rc=%d out=%r err=%r" % (rc, out, err[-300:]))


@case("numba-gate-newer-release-missing-hook-refused")
def _():
    # The same release without numba.core.codegen.JitEngine (a numba that moved it): refused,
    # naming it; numba (given its class back) keeps MCJIT.
    rc, out, err = py(NEWER % ("engine = codegen.JitEngine; del codegen.JitEngine",
                               "codegen.JitEngine = engine"))
    lines = out.splitlines()
    expect(rc == 0 and lines[0].startswith("refused: objrt.numba: numba 0.67.0 lacks "
                                           "numba.core.codegen.JitEngine, where objrt hooks in")
           and not any(x.startswith("warning:") for x in lines)
           and lines[-2:] == ["False 42", "False"], "rc=%d out=%r err=%r" % (rc, out, err[-300:]))


@case("numba-gate-older-release-refused")
def _():
    rc, out, err = py(NEWER.replace("'0.67.0', '0.49.0'", "'0.55.2', '0.38.1'") % ("", ""))
    lines = out.splitlines()
    expect(rc == 0 and lines[0] == "refused: objrt.numba supports numba 0.56 to 0.65; this is "
           "numba 0.55.2 (numba keeps using MCJIT: run without objrt.numba)"
           and lines[-2:] == ["False 42", "False"], "rc=%d out=%r err=%r" % (rc, out, err[-300:]))


# Both scripts below compile and drop small functions between handing things out and using
# them (their units unloaded, their memory reused): one text of it.
CHURN = r'''
def churn(n):
    t = 0.0
    for i in range(n):
        ns = {}
        exec("def f(x):\n    return x * %d + 1.5\n" % i, ns)
        f = njit(ns["f"])
        t += f(2.0)
        del f, ns
        gc.collect()
    return t
'''


# ---- what numba hands to numpy and C stays alive -------------------------------------------
# Ufuncs of every kind and a cfunc whose address is kept while the cfunc object is dropped,
# called after numba compiled and dropped other functions (their units unloaded, their memory
# reused): the results must be MCJIT's. Without the rule (OBJRT_NUMBA_PIN=0) the loops and the
# callback point at unloaded code: the control must see wrong numbers or a crash.
HANDED_OUT = r'''
import ctypes, gc
import numpy as np
from numba import cfunc, guvectorize, njit, vectorize

''' + CHURN + r'''

@vectorize(["float64(float64, float64)"])
def eager(a, b):
    return a * b + 1

@vectorize
def lazy(a, b):
    return a - b

@vectorize(["float64(float64, float64)"], target="parallel")
def par(a, b):
    return a + 2 * b

@guvectorize(["void(float64[:], float64[:])"], "(n)->()")
def gsum(a, r):
    s = 0.0
    for v in a:
        s += v
    r[0] = s

x, y = np.arange(5.0), np.ones(5)
lazy(x, y)
gc.collect()
print(churn(20))
print(eager(x, y).tolist(), lazy(x, y).tolist(), par(x, y).tolist())
print(gsum(np.arange(12.0).reshape(3, 4)).tolist())

@cfunc("float64(float64)")
def cf(v):
    return v * 3 + 0.25

addr = cf.address
del cf
gc.collect()
print(churn(20))
print(ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(addr)(2.0))
'''


def handed_out(*pre, env=None):
    path = os.path.join(TMP, "handed_out.py")
    with open(path, "w") as f:
        f.write(HANDED_OUT)
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable] + list(pre) + [path], capture_output=True,
                          text=True, env=e, cwd=TMP, timeout=600)


@case("numba-ufunc-cfunc-loops-kept")
def _():
    m = handed_out()
    o = handed_out("-m", "objrt.numba", "--stats")
    st = STATS.search(o.stderr)
    expect(m.returncode == 0 and len(m.stdout.splitlines()) == 5, "MCJIT run: rc=%d %r %r"
           % (m.returncode, m.stdout, m.stderr[-300:]))
    expect(o.returncode == 0 and o.stdout == m.stdout and st and int(st.group(2)) > 0,
           "objrt: rc=%d out=%r (MCJIT %r) err=%r" % (o.returncode, o.stdout, m.stdout,
                                                       o.stderr[-300:]))


@case("numba-ufunc-cfunc-loops-kept-control")
def _():
    m = handed_out()
    c = handed_out("-m", "objrt.numba", "--stats", env={"OBJRT_NUMBA_PIN": "0"})
    expect(m.returncode == 0 and (c.returncode != 0 or c.stdout != m.stdout),
           "with OBJRT_NUMBA_PIN=0 the run was MCJIT's too: rc=%d out=%r" % (c.returncode, c.stdout))


# NRT objects and first-class function pointers outliving the code that made them: a typed
# Dict of jitclass instances, a typed List of them, a jitclass instance, a structref built
# with structref.new, each made by a function compiled for it and dropped, and a typed List
# of FunctionType holding a dispatcher's address (unboxed through a typed FunctionType
# argument) whose dispatcher is dropped. Then numba compiles and drops 3 functions, and the
# objects are used and freed (their destructors and method tables run). OBJRT_PACK=0 and
# OBJRT_REUSE=0: every unloaded unit's pages are unmapped at once, so code that is called
# after its unit went faults at once. Output must be MCJIT's; with OBJRT_NUMBA_PIN=0 each
# kind alone (the control) must be killed by a signal or print other numbers.
OUTLIVE = r'''
import gc, sys
import numpy as np
from numba import njit, types, typed
from numba.experimental import jitclass, structref


''' + CHURN + r'''


@jitclass([("v", types.float64), ("w", types.float64[:])])
class P:
    def __init__(self, v):
        self.v = v
        self.w = np.arange(3.0) * v


@jitclass([("k", types.int64)])
class Q:
    def __init__(self, k):
        self.k = k


@structref.register
class SType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


class S(structref.StructRefProxy):
    @property
    def x(self):
        return s_x(self)


structref.define_proxy(S, SType, ["x", "w"])


@njit
def s_x(s):
    return s.x + s.w.sum()


QT = Q.class_type.instance_type
ST = SType([("x", types.float64), ("w", types.float64[:])])
FT = types.FunctionType(types.float64(types.float64))


def creator(kind):
    if kind == "dict":
        def mk(n):
            d = typed.Dict.empty(types.int64, QT)
            for i in range(n):
                d[i] = Q(i * 10)
            return d
    elif kind == "list":
        def mk(n):
            l = typed.List()
            for i in range(n):
                l.append(P(float(i)))
            return l
    elif kind == "jitclass":
        def mk(n):
            return P(float(n))
    elif kind == "structref":
        def mk(n):
            s = structref.new(ST)
            s.x = float(n)
            s.w = np.arange(3.0)
            return s
    else:
        def mk(fs, f):
            fs.append(f)
        return njit(types.void(types.ListType(FT), FT))(mk)
    return njit(mk)


@njit
def call_all(fs, x):
    t = 0.0
    for f in fs:
        t += f(x)
    return t


def show(kind, obj):
    if kind == "dict":
        return sorted((k, v.k) for k, v in obj.items())
    if kind == "list":
        return [(p.v, p.w.tolist()) for p in obj]
    if kind == "jitclass":
        return obj.v, obj.w.tolist()
    if kind == "structref":
        return obj.x
    return call_all(obj, 2.0)


for kind in sys.argv[1].split(","):
    mk = creator(kind)
    if kind == "function":
        exec("def g(x):\n    return x * 4.0 + 0.5\n", globals())
        g2 = njit(g)
        obj = typed.List.empty_list(FT)
        mk(obj, g2)
        del g2
    else:
        obj = mk(4)
    del mk
    gc.collect()
    churn(3)
    print(kind, show(kind, obj))
    sys.stdout.flush()
    del obj
    gc.collect()
    print(kind, "freed", churn(1))
'''
KINDS = ("dict", "list", "jitclass", "structref", "function")
STRICT = {"OBJRT_PACK": "0", "OBJRT_REUSE": "0"}


def outlive(kinds, *pre, env=None):
    path = os.path.join(TMP, "outlive.py")
    with open(path, "w") as f:
        f.write(OUTLIVE)
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable] + list(pre) + [path, ",".join(kinds)],
                          capture_output=True, text=True, env=e, cwd=TMP, timeout=600)


_mcjit_outlive = []


def mcjit_outlive():
    if not _mcjit_outlive:
        _mcjit_outlive.append(outlive(KINDS))
    return _mcjit_outlive[0]


@case("numba-nrt-objects-outlive-creator")
def _():
    m = mcjit_outlive()
    o = outlive(KINDS, "-m", "objrt.numba", "--stats", env=STRICT)
    st = STATS.search(o.stderr)
    expect(m.returncode == 0 and len(m.stdout.splitlines()) == 2 * len(KINDS),
           "MCJIT run: rc=%d %r %r" % (m.returncode, m.stdout, m.stderr[-300:]))
    expect(o.returncode == 0 and o.stdout == m.stdout and st and int(st.group(2)) > 0,
           "objrt: rc=%d out=%r (MCJIT %r) err=%r" % (o.returncode, o.stdout, m.stdout,
                                                       o.stderr[-300:]))


for _kind in KINDS:
    @case("numba-nrt-%s-unkept-control" % _kind)
    def _(kind=_kind):
        want = [x for x in mcjit_outlive().stdout.splitlines() if x.split()[0] == kind]
        c = outlive([kind], "-m", "objrt.numba", env=dict(STRICT, OBJRT_NUMBA_PIN="0"))
        # Killed by a signal, or wrong output (a Python exception does not count).
        expect(len(want) == 2 and (c.returncode < 0 or (c.returncode == 0 and
                                                        c.stdout.splitlines() != want)),
               "with OBJRT_NUMBA_PIN=0 the %s run was MCJIT's too: rc=%d out=%r"
               % (kind, c.returncode, c.stdout))


# Memory goes back where numba dropped the last user: a gufunc numba does not keep (built
# with GUFuncBuilder, as guvectorize does) holds its loop's unit until it is dropped; a cfunc
# whose address nobody read goes with the cfunc object; one whose address was read stays.
GIVEN_BACK = r'''
import gc
import numpy as np
import objrt.llvm as L
from numba import cfunc
from numba.np.ufunc.ufuncbuilder import GUFuncBuilder

def pinned():
    return sum(1 for e in list(L._engines) for r in e.units if r.pins)

def k(a, r):
    r[0] = a.sum() * 2

b = GUFuncBuilder(k, "(n)->()")
b.add("void(float64[:], float64[:])")
g = b.build_ufunc()
del b
gc.collect()
before = pinned()
print(g(np.arange(4.0)).tolist(), before > 0)
u0 = L.totals.unloaded
del g
gc.collect()
print(pinned() == before - 1, L.totals.unloaded > u0)

def cb(v):
    return v + 1.0

c = cfunc("float64(float64)")(cb)
u0 = L.totals.unloaded
del c
gc.collect()
print("unread cfunc unloaded", L.totals.unloaded > u0)
c = cfunc("float64(float64)")(cb)
c.address
u0 = L.totals.unloaded
del c
gc.collect()
print("read cfunc kept", L.totals.unloaded == u0)

# A function whose typed Dict comes from numba's own (kept) code gives its unit back; one
# that builds a jitclass instance (its destructor is that function's code) keeps it.
from numba import njit, typed, types
from numba.experimental import jitclass

def kept():
    return sum(e.kept for e in list(L._engines))

ns = {"typed": typed, "types": types}
exec("def h(n):\n    d = typed.Dict.empty(types.int64, types.float64)\n"
     "    d[n] = 1.5\n    return d[n]\n", ns)
h = njit(ns["h"])
h(3)
u0, k0 = L.totals.unloaded, kept()
del h, ns
gc.collect()
print("local dict given back", L.totals.unloaded > u0 and kept() == k0)

@jitclass([("v", types.float64)])
class R:
    def __init__(self, v):
        self.v = v

def mkr(v):
    return R(v)

k0 = kept()
m = njit(mkr)
r = m(2.0)
print("jitclass maker kept", kept() == k0 + 1, r.v)
'''


@case("numba-dropped-holders-give-back")
def _():
    rc, out, err = on_objrt(GIVEN_BACK)
    expect(rc == 0 and out.splitlines() == ["12.0 True", "True True",
                                            "unread cfunc unloaded True", "read cfunc kept True",
                                            "local dict given back True",
                                            "jitclass maker kept True 2.0"],
           "rc=%d out=%r err=%r" % (rc, out, err[-400:]))


# ---- the switches and what they report -----------------------------------------------------
@case("numba-stats-releases-and-linking")
def _():
    # --stats: the releases, whether objrt linked numba's code, then the counters.
    rc, out, err = on_objrt(SMALL)
    import llvmlite
    import numba
    lines = [x for x in err.splitlines() if x.startswith("objrt.numba: ")]
    expect(rc == 0 and len(lines) == 2 and lines[0] == (
        "objrt.numba: numba %s, llvmlite %s, objrt linking numba's code: yes"
        % (numba.__version__, llvmlite.__version__)) and units(err) > 0,
        "rc=%d err=%r" % (rc, err[-400:]))


@case("numba-enabled-only-when-linking")
def _():
    # enabled(): False before enable(), True after it when numba's target is still to be
    # set up, False after an enable() that came too late (numba kept MCJIT; 0 units).
    code = ("import warnings; warnings.simplefilter('ignore')\n"
            "import numba, objrt.numba\nprint(objrt.numba.enabled())\n"
            "numba.njit(lambda x: x)(1)\nobjrt.numba.enable()\nprint(objrt.numba.enabled())\n")
    rc, out, err = py(code)
    expect(rc == 0 and out.split() == ["False", "False"], "late: rc=%d %r %r" % (rc, out, err[-300:]))
    code = ("import numba, objrt.numba, objrt.llvm\nobjrt.numba.enable()\n"
            "print(objrt.numba.enabled())\nnumba.njit(lambda x: x)(1)\n"
            "print(objrt.numba.enabled(), objrt.llvm.totals.units > 0)\n")
    rc, out, err = py(code)
    expect(rc == 0 and out.split() == ["True", "True", "True"], "early: rc=%d %r %r"
           % (rc, out, err[-300:]))


@case("numba-totals-repr")
def _():
    rc, out, err = py("import numba, objrt.numba, objrt.llvm\nobjrt.numba.enable()\n"
                      "numba.njit(lambda x: x)(1)\nprint(objrt.llvm.totals)\n")
    expect(rc == 0 and re.fullmatch(r"<objrt\.llvm\.totals units=[1-9]\d* relocations=\d+ "
                                    r"reserved_bytes=\d+ used_bytes=\d+ unloaded=\d+>\n", out),
           "rc=%d %r %r" % (rc, out, err[-300:]))


@case("numba-main-module-without-m")
def _():
    # `python3 -m objrt.numba pytest x.py`: pytest is not a file; the message says -m.
    r = subprocess.run([sys.executable, "-m", "objrt.numba", "pytest", "x.py"],
                       capture_output=True, text=True, cwd=TMP, timeout=120)
    expect(r.returncode == 2 and "can't open file 'pytest'" in r.stderr
           and "python3 -m objrt.numba -m pytest x.py" in r.stderr and "Traceback" not in r.stderr,
           "rc=%d %r" % (r.returncode, r.stderr[-300:]))

"""objrt.numba itself: python3 numba_cases.py TMPDIR (numba's own test modules are compared
with MCJIT by the suite; these cases check what only objrt does)."""
import os
import re
import subprocess
import sys

from check import case, expect

TMP = sys.argv[1]
STATS = re.compile(r"^objrt\.numba: units=(\d+) relocations=(\d+) reserved_bytes=(\d+) "
                   r"used_bytes=(\d+) unloaded=(\d+)$", re.M)
DROP = """
import gc, numba
total = 0
for i in range(30):
    ns = {}
    exec("def f(x):\\n    return x * %d + 1\\n" % i, ns)
    f = numba.njit(ns["f"])
    total += f(2)
    del f, ns
    gc.collect()
print(total)
"""


def run_objrt_numba(script, env=None):
    path = os.path.join(TMP, "script.py")
    with open(path, "w") as f:
        f.write(script)
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "objrt.numba", "--stats", path],
                          capture_output=True, text=True, env=e, timeout=900)


def stats_of(r):
    m = STATS.search(r.stderr)
    expect(r.returncode == 0 and m, "rc=%d stderr=%r" % (r.returncode, r.stderr[-300:]))
    return [int(v) for v in m.groups()]


@case("numba-stats-line-and-unload")
def _():
    r = run_objrt_numba(DROP)
    expect(r.stdout.strip() == str(sum(2 * i + 1 for i in range(30))), "wrong results")
    units, relocs, reserved, used, unloaded = stats_of(r)
    expect(units >= 30 and relocs > 0 and 0 < used <= reserved, "stats %r" % r.stderr)
    expect(unloaded >= 30, "only %d of %d units unloaded after their dispatchers went"
           % (unloaded, units))


@case("numba-unload-control")
def _():
    r = run_objrt_numba(DROP, {"OBJRT_NUMBA_UNLOAD": "0"})
    expect(stats_of(r)[4] == 0, "units unloaded with OBJRT_NUMBA_UNLOAD=0")


@case("numba-enable-after-numba-compiled")
def _():
    # numba's codegen already existed (MCJIT): it stays on MCJIT, keeps working, and
    # freeing its libraries does not reach objrt's engine (no unit is ever linked).
    path = os.path.join(TMP, "late.py")
    with open(path, "w") as f:
        f.write("import gc, numba\n@numba.njit\ndef a(x): return x + 1\nprint(a(1))\n"
                "import objrt.numba, objrt.llvm\nobjrt.numba.enable()\nobjrt.numba.enable()\n"
                "@numba.njit\ndef b(x): return x + 2\nprint(b(1))\ndel a, b\ngc.collect()\n"
                "print(objrt.llvm.totals.units)\n")
    r = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=600)
    expect(r.returncode == 0 and r.stdout.split() == ["2", "3", "0"],
           "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr[-300:]))
    # called twice: one warning, saying what stays on MCJIT
    expect(r.stderr.count("RuntimeWarning: objrt.numba.enable() came after numba set up") == 1
           and "stays on MCJIT" in r.stderr, "warning: %r" % r.stderr[-400:])


@case("numba-usage")
def _():
    r = subprocess.run([sys.executable, "-m", "objrt.numba", "--stats"], capture_output=True,
                       text=True, timeout=120)
    expect(r.returncode == 2 and "usage: python3 -m objrt.numba" in r.stderr, repr(r.stderr))


@case("numba-unknown-version-refused")
def _():
    # A numba release objrt.numba was not made for: a clear refusal, numba keeps MCJIT.
    # The control is every other case, where the installed release is accepted.
    code = ("import numba, objrt.numba\nnumba.__version__ = '0.50.0'\n"
            "try:\n    objrt.numba.enable()\nexcept objrt.numba.UnsupportedNumba as e:\n"
            "    print(e)\nprint(objrt.numba.enabled(), numba.njit(lambda x: x + 1)(1))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    out = r.stdout.splitlines()
    expect(r.returncode == 0 and len(out) == 2 and out[1] == "False 2" and
           "objrt.numba supports numba 0.56 to 0.65; this is numba 0.50.0" in out[0],
           "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr[-300:]))


def main_run(*args, **kw):
    return subprocess.run([sys.executable, "-m", "objrt.numba"] + list(args), capture_output=True,
                          text=True, timeout=600, cwd=TMP, **kw)


@case("numba-main-parses-like-python3")
def _():
    # -c (sys.argv[0] '-c'), -mMODULE attached, a script, --help and --version (exit 0),
    # an unknown option (exit 2); each as python3 takes it.
    prog = "import sys, numba; print(sys.argv, numba.njit(lambda x: x * 2)(21))"
    r = main_run("--stats", "-c", prog, "a", "-b")
    expect(r.returncode == 0 and r.stdout.strip() == "['-c', 'a', '-b'] 42" and stats_of(r)[0] > 0,
           "-c: rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr[-300:]))
    with open(os.path.join(TMP, "mainmod.py"), "w") as f:
        f.write("import sys\nprint(__name__, sys.argv[1:])\n")
    r = main_run("-mmainmod", "x")
    expect(r.returncode == 0 and r.stdout.strip() == "__main__ ['x']", "-m: %r %r" % (r.stdout, r.stderr[-300:]))
    r = main_run(os.path.join(TMP, "mainmod.py"), "y")
    expect(r.returncode == 0 and r.stdout.strip() == "__main__ ['y']", "script: %r %r" % (r.stdout, r.stderr[-300:]))
    r = main_run("--help")
    expect(r.returncode == 0 and r.stdout.startswith("usage: python3 -m objrt.numba") and "-c COMMAND" in r.stdout,
           "--help: rc=%d %r" % (r.returncode, r.stdout[:200]))
    import numba
    r = main_run("--version")
    expect(r.returncode == 0 and re.match(r"objrt \S+ \(numba %s, llvmlite " % re.escape(numba.__version__), r.stdout),
           "--version: rc=%d %r %r" % (r.returncode, r.stdout, r.stderr[-200:]))
    r = main_run("-x", "s.py")
    expect(r.returncode == 2 and "Unknown option: -x" in r.stderr, "-x: rc=%d %r" % (r.returncode, r.stderr))


# numba's JitEngine lists every definition of every module (is_symbol_defined); on objrt the
# engine answers from its units and pending modules instead. SHADOW runs numba's listing
# beside it and records every question whose answer differs; "break" (the control) makes
# the engine claim a name nothing defines.
SHADOW = """
import sys, objrt.numba, objrt.llvm as ol
objrt.numba.enable()
import numba
from numba.core.registry import cpu_target
shadow, asked, differ = set(), [], []
add, amap = ol.ExecutionEngine.add_module, ol.ExecutionEngine.add_global_mapping
def add_module(self, m):
    for gs in (m.functions, m.global_variables):
        shadow.update(g.name for g in gs if not g.is_declaration)
    add(self, m)
def add_global_mapping(self, gv, addr):
    shadow.add(gv if isinstance(gv, str) else gv.name)
    amap(self, gv, addr)
ol.ExecutionEngine.add_module, ol.ExecutionEngine.add_global_mapping = add_module, add_global_mapping
if sys.argv[1:] == ["break"]:
    defines = ol.ExecutionEngine.defines
    ol.ExecutionEngine.defines = lambda self, n: n == "objrt_nothing" or defines(self, n)
engine = type(cpu_target.target_context.codegen()._engine)
isd = engine.is_symbol_defined
def is_symbol_defined(self, name):
    got = isd(self, name)
    asked.append(name)
    if got != (name in shadow):
        differ.append((name, got))
    return got
engine.is_symbol_defined = is_symbol_defined

@numba.njit
def outer(n):
    return 1 if n < 1 else n * inner(n - 1)
@numba.njit
def inner(n):
    return 1 if n < 1 else n * outer(n - 1)
@numba.njit
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
@numba.cfunc("int64(int64)")
def twice(x):
    return 2 * x
@numba.njit
def gen(n):
    for i in range(n):
        yield i * i
def closure(k):
    @numba.njit
    def f(x):
        return x + k
    return f
res = [outer(5), fib(15), twice.ctypes(21), sum(gen(4)), closure(3)(4), inner(4)]
res.append(fib.overloads[fib.signatures[0]].library.get_pointer_to_function("objrt_nothing"))
print(res, len(asked), sum(n.startswith(".numba.unresolved$") for n in asked), differ[:3])
"""


def run_shadow(*args):
    path = os.path.join(TMP, "shadow.py")
    with open(path, "w") as f:
        f.write(SHADOW)
    r = subprocess.run([sys.executable, path] + list(args), capture_output=True, text=True,
                       timeout=900)
    m = re.match(r"^\[120, 610, 42, 14, 7, 24, 0\] (\d+) (\d+) (.*)$", r.stdout.strip())
    expect(r.returncode == 0 and m, "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr[-300:]))
    return int(m.group(1)), int(m.group(2)), m.group(3)


@case("numba-symbol-tracking-as-numba")
def _():
    asked, unresolved, differ = run_shadow()
    # mutual recursion makes numba ask for its .numba.unresolved$ slots while the module is
    # still pending; every library lookup asks after the link, one for a name nothing defines
    expect(asked >= 7 and unresolved >= 1 and differ == "[]",
           "asked %d (%d unresolved slots), answers differing from numba's: %s"
           % (asked, unresolved, differ))


@case("numba-symbol-tracking-control")
def _():
    differ = run_shadow("break")[2]
    expect("objrt_nothing" in differ, "an engine claiming a name nothing defines went unnoticed")


# objrt.numba leaves out numba's per-function pass runs on declarations (numba 0.61 on, each
# run a PassBuilder that llvmlite never fully frees). Every module numba optimizes function
# by function is optimized twice: numba's own way on a copy, objrt's way on the module; the
# IR must be the same text and objrt's way must create fewer PassBuilders.
BODIES = r"""
import sys
import objrt.numba
objrt.numba.enable()
import llvmlite.binding as ll
import numba
import numpy as np
from numba.core import codegen
from numba.typed import List
ours = codegen.CPUCodeLibrary._optimize_functions
if not hasattr(ours, "__wrapped__"):
    print("legacy", hasattr(codegen.CPUCodegen, "_pass_builder"))
    sys.exit(0)
numba_own, control = ours.__wrapped__, sys.argv[1:] == ["control"]
real_fpm, made = codegen.CPUCodegen._function_pass_manager, [0]
def counted(self, *a, **k):
    made[0] += 1
    return real_fpm(self, *a, **k)
codegen.CPUCodegen._function_pass_manager = counted
n = {"modules": 0, "differ": 0, "numba_pbs": 0, "objrt_pbs": 0}
def both(self, module):
    twin = ll.parse_assembly(str(module))
    twin.name = module.name
    made[0] = 0
    if not control:
        numba_own(self, twin)
    n["numba_pbs"] += made[0]
    made[0] = 0
    ours(self, module)
    n["objrt_pbs"] += made[0]
    n["modules"] += 1
    n["differ"] += str(twin) != str(module)
codegen.CPUCodeLibrary._optimize_functions = both

@numba.njit
def saxpy(a, x, y):
    return a * x + y
@numba.njit
def gen(k):
    for i in range(k):
        yield i * i
@numba.njit
def use(k):
    out = List()
    for v in gen(k):
        out.append(v)
    if k < 0:
        raise ValueError("negative")
    return sum(out) + saxpy(2.0, np.arange(k), np.ones(k)).sum()
print(use(5), n["modules"], n["differ"], n["numba_pbs"], n["objrt_pbs"])
"""


def run_bodies(*args):
    path = os.path.join(TMP, "bodies.py")
    with open(path, "w") as f:
        f.write(BODIES)
    r = subprocess.run([sys.executable, path] + list(args), capture_output=True, text=True,
                       timeout=900)
    expect(r.returncode == 0, "rc=%d err=%r" % (r.returncode, r.stderr[-300:]))
    return r.stdout.split()


@case("numba-passes-bodies-as-numba")
def _():
    out = run_bodies()
    if out[0] == "legacy":      # numba 0.56: legacy pass manager, numba's runs untouched
        expect(out == ["legacy", "False"], "a new-pass-manager numba left unwrapped: %r" % out)
        return
    res, modules, differ, numba_pbs, objrt_pbs = float(out[0]), *map(int, out[1:])
    expect(res == 55.0 and modules >= 3 and differ == 0 and 0 < objrt_pbs < numba_pbs / 3,
           "result %s, %d modules, %d differ, PassBuilders %d (numba's way %d)"
           % (res, modules, differ, objrt_pbs, numba_pbs))


@case("numba-passes-bodies-control")
def _():
    out = run_bodies("control")
    # a copy left unoptimized must differ from the optimized module: the comparison can fail
    expect(out[0] == "legacy" or int(out[2]) > 0, "unoptimized copies compared equal: %r" % out)

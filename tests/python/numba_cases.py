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
                "import objrt.numba, objrt.llvm\nobjrt.numba.enable()\n"
                "@numba.njit\ndef b(x): return x + 2\nprint(b(1))\ndel a, b\ngc.collect()\n"
                "print(objrt.llvm.totals.units)\n")
    r = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=600)
    expect(r.returncode == 0 and r.stdout.split() == ["2", "3", "0"],
           "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr[-300:]))


@case("numba-usage")
def _():
    r = subprocess.run([sys.executable, "-m", "objrt.numba", "--stats"], capture_output=True,
                       text=True, timeout=120)
    expect(r.returncode == 2 and "usage: python3 -m objrt.numba" in r.stderr, repr(r.stderr))


@case("numba-unknown-version-refused")
def _():
    # A numba release objrt.numba was not made for: a clear refusal, numba keeps MCJIT.
    # The control is every other case, where the installed release is accepted.
    code = ("import numba, objrt.numba\nnumba.__version__ = '0.99.0'\n"
            "try:\n    objrt.numba.enable()\nexcept objrt.numba.UnsupportedNumba as e:\n"
            "    print(e)\nprint(objrt.numba.enabled(), numba.njit(lambda x: x + 1)(1))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    out = r.stdout.splitlines()
    expect(r.returncode == 0 and len(out) == 2 and out[1] == "False 2" and
           "objrt.numba supports numba 0.56 to 0.61; this is numba 0.99.0" in out[0],
           "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr[-300:]))

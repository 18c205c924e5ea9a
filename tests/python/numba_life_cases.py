"""objrt.numba against the installed numba release: which releases run (the gate), what
numba hands to numpy and C stays alive (ufunc loops, cfunc addresses), and the switches
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

"""PASS/FAIL reporting for the Python suites (same line format as tests/lib.sh)."""
import os
import sys
import traceback


LIST = os.environ.get("T_LIST") == "1"     # tests/lib.sh run_cases: declare, run nothing
PREFIX = os.environ.get("T_CASE_PREFIX", "")  # the same cases run again elsewhere (numba 0.61)


def case(name, harness=None):
    """Decorator: run the case at once; it passes unless it raises (a crash of the whole
    process leaves declared cases without a result, which the suite reports). A case named
    *-control is a negative control of the test machinery: reported as a HARNESS line."""
    prefix = "HARNESS " if (name.endswith("-control") if harness is None else harness) else ""
    name = PREFIX + name

    def run(fn):
        if LIST:
            print("EXPECT %s%s" % (prefix, name))
            return fn
        try:
            fn()
        except Exception as e:                      # noqa: BLE001 - reported as FAIL
            tb = traceback.extract_tb(e.__traceback__)[-1]
            print("%sFAIL %s: %s: %s (line %d)" % (prefix, name, type(e).__name__,
                                                   str(e).replace("\n", " ")[:300], tb.lineno))
        else:
            print("%sPASS %s" % (prefix, name))
        sys.stdout.flush()
        return fn
    return run


def expect(cond, why):
    if not cond:
        raise AssertionError(why)


def raises(exc, fn, *a):
    """The exception fn(*a) raises (must be `exc`)."""
    try:
        fn(*a)
    except exc as e:
        return e
    raise AssertionError("%s not raised" % exc.__name__)


def mapped(addr):
    """Is addr inside a mapping of this process?"""
    with open("/proc/self/maps") as f:
        for line in f:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if lo <= addr < hi:
                return True
    return False

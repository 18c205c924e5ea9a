"""PASS/FAIL reporting for the Python suites (same line format as tests/lib.sh)."""
import sys
import traceback


def case(name):
    """Decorator: run the case at once; it passes unless it raises (a crash of the whole
    process is a missing PASS line, which the suite reports)."""
    def run(fn):
        try:
            fn()
        except Exception as e:                      # noqa: BLE001 - reported as FAIL
            tb = traceback.extract_tb(e.__traceback__)[-1]
            print("FAIL %s: %s: %s (line %d)" % (name, type(e).__name__,
                                                 str(e).replace("\n", " ")[:300], tb.lineno))
        else:
            print("PASS %s" % name)
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

"""One lifecycle for contexts and units (issue 40, items 2 and 3): python3 lifecycle.py TMPDIR.
close() while another thread loads: that thread gets LinkError("context is closed") and
nothing crashes or hangs; two threads unloading one unit at once: neither raises, the unit
is gone. Controls: the outcome check flags a planted wrong outcome; the unload race, run
through the package's unload of before (check, then objrt_unload), is caught; close()
really overtook running loads in some rounds."""
import os
import subprocess
import sys
import threading

import objrt
from check import case, expect

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
TMP = sys.argv[1]
ROUNDS = 40


def fixture():
    c, o = os.path.join(TMP, "life.c"), os.path.join(TMP, "life.o")
    with open(c, "w") as f:
        f.write("int life_value = 42; int life(void) { return life_value; }\n"
                "__attribute__((destructor)) static void bye(void) { life_value = 0; }\n")
    subprocess.run(["gcc", "-O2", "-fPIC", "-c", c, "-o", o], check=True)
    with open(o, "rb") as f:
        return f.read()


OBJ = None if os.environ.get("T_LIST") == "1" else fixture()


def outcome_ok(errors):
    """The loading thread's exceptions: exactly one, LinkError('context is closed')."""
    return (len(errors) == 1 and type(errors[0]) is objrt.LinkError
            and str(errors[0]) == "context is closed")


overtaken = [0]


def close_during_loads():
    """One round: a thread loads in a loop until it fails; close() comes meanwhile."""
    ctx = objrt.Context()
    errors, started = [], threading.Event()
    real_adopt = getattr(ctx, "_adopt", None)

    def adopt(h, u):                         # counts loads that close() overtook
        if u and not ctx._h:
            overtaken[0] += 1
        return real_adopt(h, u)
    if hasattr(ctx, "_adopt"):               # the package before the lifecycle has none
        ctx._adopt = adopt

    def loader():
        try:
            while True:
                ctx.load(OBJ)
                started.set()
        except BaseException as e:           # noqa: B902 - the outcome is checked
            errors.append(e)
            started.set()

    t = threading.Thread(target=loader)
    t.start()
    started.wait(30)
    ctx.close()
    t.join(60)
    expect(not t.is_alive(), "the loading thread still runs 60 s after close()")
    return errors


@case("close while another thread loads: LinkError('context is closed') there")
def _():
    for r in range(ROUNDS):
        errors = close_during_loads()
        expect(outcome_ok(errors), "round %d: the loading thread ended with %r" % (r, errors))


@case("close overtook a running load in some round-control")
def _():
    expect(overtaken[0] > 0, "no round had close() come during a load (%d rounds)" % ROUNDS)


@case("the outcome check flags a wrong outcome-control")
def _():
    expect(not outcome_ok([objrt.LinkError("")]) and not outcome_ok([]) and
           not outcome_ok([RuntimeError("context is closed")]) and
           outcome_ok([objrt.LinkError("context is closed")]), "the check accepts wrong outcomes")


def unload_race(unload):
    """Rounds of two threads unloading one unit at once; the exceptions they raised."""
    ctx = objrt.Context()
    raised = []
    for _ in range(ROUNDS * 5):
        u = ctx.load(OBJ)
        go = threading.Barrier(2)

        def one():
            go.wait()
            try:
                unload(u)
            except BaseException as e:       # noqa: B902 - the outcome is checked
                raised.append(e)
        ts = [threading.Thread(target=one) for _ in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
        if u.loaded or ctx.sym("life"):
            raised.append(AssertionError("the unit is still loaded"))
    ctx.close()
    return raised


@case("two threads unload one unit at once: neither raises")
def _():
    raised = unload_race(objrt.Unit.unload)
    expect(not raised, "%d exceptions, the first %r" % (len(raised), raised[:1]))


def unload_before(self):
    """The package's unload before the lifecycle: check, then objrt_unload, then forget."""
    from objrt import _lib
    live = self.context._live
    if not self._h or self._h not in live:
        self._h = None
        return
    h = self._h
    if _lib.objrt_unload(h):
        raise objrt.LinkError(self.context._error())
    live.discard(h)
    self._h = None


@case("the unload race through the old unload is caught-control")
def _():
    raised = unload_race(unload_before)
    expect(raised, "no round raised: the race is not exercised")

"""Run one numba test module and record every test's outcome as JSON:
    python3 numba_run.py MODULE[,MODULE...] OUT.json
(under `python3 -m objrt.numba` for objrt, plainly for MCJIT; several modules run in one
process, one after the other). The JSON also counts the
MCJIT engines llvmlite created ("_mcjit_engines"), so a run can prove which JIT it used."""
import json
import sys
import unittest

import llvmlite.binding as ll

mcjit = {"n": 0}
_create = ll.create_mcjit_compiler


def counting_create(module, tm, *args, **kwargs):
    mcjit["n"] += 1
    return _create(module, tm, *args, **kwargs)     # llvmlite 0.42+: use_lmm


ll.create_mcjit_compiler = counting_create


class Result(unittest.TextTestResult):
    outcome = {}

    def _note(self, test, what):
        Result.outcome[test.id()] = what

    def addSuccess(self, test):
        super().addSuccess(test)
        self._note(test, "ok")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._note(test, "fail")

    def addError(self, test, err):
        super().addError(test, err)
        self._note(test, "error")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._note(test, "skip")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._note(test, "xfail")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._note(test, "xpass")


def main(module, out):
    suite = unittest.defaultTestLoader.loadTestsFromNames(module.split(","))
    unittest.TextTestRunner(stream=sys.stderr, verbosity=1, resultclass=Result).run(suite)
    with open(out, "w") as f:
        json.dump(dict(Result.outcome, _mcjit_engines=mcjit["n"]), f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

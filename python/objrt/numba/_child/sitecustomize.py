"""Put on PYTHONPATH by `python3 -m objrt.numba` so that Python processes the program
starts (numba's tests run code in subprocesses) also compile through objrt. It enables
objrt.numba when numba's codegen is first imported, then runs the sitecustomize this one
shadows, if any."""
import os
import sys


def _chain():
    here = os.path.dirname(os.path.abspath(__file__))
    for d in sys.path:
        p = os.path.join(d or ".", "sitecustomize.py")
        if os.path.abspath(d or ".") != here and os.path.isfile(p):
            with open(p) as f:
                exec(compile(f.read(), p, "exec"), {"__name__": "sitecustomize", "__file__": p})
            return


try:
    from objrt.numba import _lazy
    _lazy.enable_on_import()
finally:
    _chain()

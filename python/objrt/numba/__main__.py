"""python3 -m objrt.numba [--stats] (-m MODULE | SCRIPT) [ARG...]

Runs a program with numba's CPU JIT linking through objrt (objrt.numba.enable()), the way
`python3 -m cProfile` runs one under the profiler. With --stats, prints at exit one line on
stderr:  objrt.numba: units=<n> relocations=<n> reserved_bytes=<n> used_bytes=<n> unloaded=<n>
"""
import atexit
import os
import runpy
import sys

from . import UnsupportedNumba, enable, stats_line

USAGE = "usage: python3 -m objrt.numba [--stats] (-m MODULE | SCRIPT) [ARG...]"


def _children_too():
    """Python processes the program starts run on objrt too (see _child/sitecustomize.py)."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))       # the directory holding objrt/
    parts = [os.path.join(here, "_child"), root] + [
        p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(parts)


def main(argv):
    stats = False
    while argv and argv[0] == "--stats":
        stats = True
        argv = argv[1:]
    if not argv or argv[0] in ("-h", "--help") or (argv[0] == "-m" and len(argv) < 2):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        enable()
    except UnsupportedNumba as e:
        print(e, file=sys.stderr)
        return 1
    _children_too()
    if stats:
        atexit.register(lambda: print(stats_line(), file=sys.stderr, flush=True))
    if argv[0] == "-m":
        sys.argv = [argv[1]] + argv[2:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv[:]
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

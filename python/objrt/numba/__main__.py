"""python3 -m objrt.numba [--stats] (-c COMMAND | -m MODULE | SCRIPT) [ARG...]

Runs a program with numba's CPU JIT linking through objrt (objrt.numba.enable()), the way
`python3 -m cProfile` runs one under the profiler; the program's own arguments are parsed
as python3 parses them (-c, -m, a script; sys.argv as python3 sets it). With --stats,
prints at exit two lines on stderr:
  objrt.numba: numba <release>, llvmlite <release>, objrt linking numba's code: yes|no
  objrt.numba: units=<n> relocations=<n> reserved_bytes=<n> used_bytes=<n> unloaded=<n>
"""
import atexit
import os
import runpy
import sys

from . import UnsupportedNumba, enable, stats_lines

USAGE = "usage: python3 -m objrt.numba [--stats] (-c COMMAND | -m MODULE | SCRIPT) [ARG...]"
HELP = USAGE + """

Run a Python program with numba's CPU JIT linking through objrt instead of MCJIT
(memory of dropped functions returned; on AArch64 code and data always within reach).

  --stats       at exit print on stderr the numba and llvmlite releases, whether
                objrt linked numba's code, and objrt.numba: units=N relocations=N
                reserved_bytes=N used_bytes=N unloaded=N
  -c COMMAND    run COMMAND (sys.argv[0] is '-c')
  -m MODULE     run library module MODULE as a script
  SCRIPT        run the file SCRIPT
  -h, --help    print this help and exit
  -V, --version print objrt's, numba's and llvmlite's versions and exit

Python processes the program starts run on objrt too. OBJRT_NUMBA=1 enables objrt.numba
in any Python process (the objrt-numba.pth hook installed with the package);
OBJRT_NUMBA_UNLOAD=0 keeps every unit, as MCJIT does. See docs/numba.md."""


def _children_too():
    """Python processes the program starts run on objrt too (see _child/sitecustomize.py)."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))       # the directory holding objrt/
    parts = [os.path.join(here, "_child"), root] + [
        p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(parts)


def _versions():
    from .. import __version__
    try:
        import llvmlite
        import numba
        return "objrt %s (numba %s, llvmlite %s)" % (__version__, numba.__version__,
                                                     llvmlite.__version__)
    except ImportError as e:
        return "objrt %s (%s)" % (__version__, e)


def _parse(argv):
    """(stats, kind, target, args) with kind "c", "m" or "script"; or (None, message,
    exit status, None) when the command line asks for help or is wrong."""
    stats = False
    while argv:
        a = argv[0]
        if a == "--stats":
            stats = True
            argv = argv[1:]
        elif a in ("-h", "--help"):
            return None, HELP, 0, None
        elif a in ("-V", "--version"):
            return None, _versions(), 0, None
        elif a in ("-c", "-m") or (a[:2] in ("-c", "-m") and len(a) > 2):
            kind, rest = a[1], argv[1:]
            if len(a) > 2:                  # -cCOMMAND, -mMODULE, as python3 takes them
                rest = [a[2:]] + rest
            if not rest:
                return None, "Argument expected for the -%s option\n%s" % (kind, USAGE), 2, None
            return stats, kind, rest[0], rest[1:]
        elif a.startswith("-") and a != "-":
            return None, "Unknown option: %s\n%s" % (a, USAGE), 2, None
        elif not os.path.exists(a):
            return None, _no_script(a, argv[1:]), 2, None
        else:
            return stats, "script", a, argv[1:]
    return None, USAGE, 2, None


def _no_script(name, rest):
    """The message for a SCRIPT that is not a file; when it reads as a module name
    (pytest, pkg.mod), the command that runs it as a module."""
    msg = "python3 -m objrt.numba: can't open file %r: no such file" % name
    if all(p.isidentifier() for p in name.split(".")) and not name.endswith(".py"):
        msg += ("\nto run the module %s, use -m as with python3:  python3 -m objrt.numba -m %s"
                % (name, " ".join([name] + rest)))
    return msg


def main(argv):
    stats, kind, target, args = _parse(argv)
    if stats is None:
        print(kind, file=sys.stdout if target == 0 else sys.stderr)
        return target
    try:
        enable()
    except UnsupportedNumba as e:
        print(e, file=sys.stderr)
        return 1
    _children_too()
    if stats:
        atexit.register(lambda: print("\n".join(stats_lines()), file=sys.stderr, flush=True))
    if kind == "c":
        sys.argv = ["-c"] + args
        sys.path.insert(0, "")
        import __main__
        exec(compile(target, "<string>", "exec"), vars(__main__))
    elif kind == "m":
        sys.argv = [target] + args
        sys.path.insert(0, os.getcwd())
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.argv = [target] + args
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

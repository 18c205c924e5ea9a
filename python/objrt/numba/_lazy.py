"""Enable objrt.numba when numba.core.codegen is imported: for OBJRT_NUMBA=1 (the
objrt-numba.pth hook, run by site.py at start-up) and for the child processes of
`python3 -m objrt.numba` (_child/sitecustomize.py). Nothing here imports numba or llvmlite:
site.py runs .pth lines before Debian's dist-packages is on sys.path, and a process that
never uses numba should not pay for it. When objrt cannot link numba's code, one line on
stderr says why; the program goes on (numba on MCJIT)."""
import importlib.abc
import importlib.util
import sys

TARGET = "numba.core.codegen"


def _say(why):
    print("objrt.numba: not enabled (numba runs on MCJIT): %s" % why, file=sys.stderr,
          flush=True)


def _enable():
    try:
        from . import UnsupportedNumba, enable
        enable()
    except UnsupportedNumba as e:
        print(e, file=sys.stderr, flush=True)
    except Exception as e:                          # noqa: BLE001 - the program must go on
        _say("%s: %s" % (type(e).__name__, e))


def _missing():
    """What of numba and llvmlite this Python cannot import (as the finders see sys.path)."""
    return [n for n in ("numba", "llvmlite") if importlib.util.find_spec(n) is None]


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, check_installed):
        self._check = check_installed

    def find_spec(self, name, path, target=None):
        if name == "sitecustomize" and self._check:
            # site.py imports sitecustomize once every site directory is on sys.path: the
            # moment to say that OBJRT_NUMBA=1 cannot do anything in this Python.
            self._check = False
            missing = _missing()
            if missing:
                _say("OBJRT_NUMBA=1, but %s cannot be imported by %s"
                     % (" and ".join(missing), sys.executable))
            return None
        if name != TARGET:
            return None
        sys.meta_path.remove(self)          # find the real module with the other finders
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        real_exec = spec.loader.exec_module

        def exec_module(module):
            real_exec(module)
            _enable()                       # numba.core.codegen is in sys.modules now
        spec.loader.exec_module = exec_module
        return spec


def enable_on_import(check_installed=False):
    """Enable objrt.numba when numba's codegen is imported (at once if it already is).
    check_installed: say in one line, once site.py is done, when numba or llvmlite cannot
    be imported (the OBJRT_NUMBA=1 hook)."""
    if TARGET in sys.modules:
        _enable()
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        # once: a venv may list its site-packages twice (lib and lib64), running the hook twice
        sys.meta_path.insert(0, _Finder(check_installed))

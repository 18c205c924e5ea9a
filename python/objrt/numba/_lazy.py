"""Enable objrt.numba when numba.core.codegen is imported (for child processes, which
should not pay for importing numba unless they use it)."""
import importlib.abc
import sys

TARGET = "numba.core.codegen"


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != TARGET:
            return None
        sys.meta_path.remove(self)          # find the real module with the other finders
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        real_exec = spec.loader.exec_module

        def exec_module(module):
            real_exec(module)
            from . import UnsupportedNumba, enable     # codegen is in sys.modules now
            try:
                enable()
            except UnsupportedNumba as e:   # the program runs on MCJIT, saying why
                print(e, file=sys.stderr)
        spec.loader.exec_module = exec_module
        return spec


def enable_on_import():
    if TARGET in sys.modules:
        from . import enable
        enable()
    else:
        import importlib.util               # noqa: F401 - used by the finder
        sys.meta_path.insert(0, _Finder())

"""objrt as tvm-ffi's loader of object files: once objrt and tvm_ffi are both imported, in
either order, tvm_ffi.load_module("k.o") (also ".a", and ".tar" from TVM's export_library)
loads through objrt and returns a tvm_ffi.Module (objrt_tvm_ffi_loader in <objrt.h>,
docs/tvm-ffi.md). Nothing happens in a process that never imports tvm_ffi."""
import ctypes
import importlib.abc
import importlib.util
import sys

from . import LinkError, _lib

_register = _lib._decl("objrt_tvm_ffi_loader", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)

#: Why the automatic registration did not happen ("" when it did, None before tvm_ffi).
status = None


def tvm_ffi_loader():
    """Register objrt's loader in the process's tvm-ffi; LinkError says why it cannot."""
    global status
    err = ctypes.create_string_buffer(1024)
    status = "" if _register(err, len(err)) == 0 else err.value.decode(errors="replace")
    if status:
        raise LinkError(status)


def _quietly():
    # An import must not fail because objrt cannot serve tvm-ffi (no libobjrt_tvm_ffi.so
    # where tvm-ffi's headers were never installed): load_module("k.o") then fails with
    # tvm-ffi's own message, and objrt._tvm_ffi_loader.status says why.
    try:
        tvm_ffi_loader()
    except LinkError:
        pass


class _After(importlib.abc.Loader):
    """tvm_ffi's own loader, then the registration."""

    def __init__(self, inner):
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        _quietly()


class _Watch(importlib.abc.MetaPathFinder):
    """Waits for `import tvm_ffi`, once."""

    def find_spec(self, name, path, target=None):
        if name != "tvm_ffi":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _After(spec.loader)
        return spec


if "tvm_ffi" in sys.modules:
    _quietly()
else:
    sys.meta_path.insert(0, _Watch())

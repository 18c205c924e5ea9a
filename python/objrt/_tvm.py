"""Calling a unit's TVM packed functions from Python (Unit.packed): numpy arrays (or any
object with __dlpack__) go in as DLTensor handles, ints, floats, strings and None as TVM
values; objrt's TVMFuncCall makes the call; a kernel error raises objrt.KernelError with
TVMGetLastError()'s text."""
import ctypes

from . import KernelError, LinkError, _lib

_tvm_func = _lib._decl("objrt_tvm_func", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)
_last_error = _lib._decl("TVMGetLastError", ctypes.c_char_p)


class TVMValue(ctypes.Union):
    _fields_ = [("v_int64", ctypes.c_int64), ("v_float64", ctypes.c_double),
                ("v_handle", ctypes.c_void_p), ("v_str", ctypes.c_char_p)]


_call = _lib._decl("TVMFuncCall", ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(TVMValue),
                   ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.POINTER(TVMValue),
                   ctypes.POINTER(ctypes.c_int))

# Type codes (TVMArgTypeCode in <objrt/tvm_backend.h>)
ARG_INT, ARG_FLOAT, NULLPTR, DLTENSOR, STR = 0, 2, 4, 7, 11

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _encode(arg, keep):
    """(TVMValue, type code) for one argument; `keep` holds what must outlive the call."""
    v = TVMValue()
    if arg is None:
        return v, NULLPTR
    if isinstance(arg, (bool, int)):
        v.v_int64 = int(arg)
        return v, ARG_INT
    if isinstance(arg, float):
        v.v_float64 = arg
        return v, ARG_FLOAT
    if isinstance(arg, str):
        b = arg.encode()
        keep.append(b)
        v.v_str = b
        return v, STR
    if hasattr(arg, "__dlpack__"):
        # The capsule owns a DLManagedTensor whose first member is the DLTensor. It is not
        # consumed, so its deleter runs when the capsule goes (after the call).
        capsule = arg.__dlpack__()
        keep.append(capsule)
        v.v_handle = _capsule_pointer(capsule, b"dltensor")
        return v, DLTENSOR
    raise TypeError("packed call: cannot pass %s (arrays with __dlpack__, int, float, str, "
                    "None)" % type(arg).__name__)


def _decode(v, code):
    if code == ARG_INT:
        return v.v_int64
    if code == ARG_FLOAT:
        return v.v_float64
    if code == STR:
        return v.v_str.decode() if v.v_str else ""
    if code == NULLPTR:
        return None
    return v.v_handle                       # an opaque handle: its address


class PackedFunction:
    """A unit's TVM packed function; calling it returns the kernel's return value (None
    when it sets none). Keeps the unit loaded."""

    def __init__(self, unit, name):
        self.unit = unit
        self.name = name
        self._h = _tvm_func(unit._handle(), name.encode())
        if not self._h:
            raise LinkError("no packed function '%s' in this unit" % name)

    def __call__(self, *args):
        self.unit._handle()                 # raises once the unit is unloaded
        keep = []
        n = len(args)
        values = (TVMValue * max(n, 1))()
        codes = (ctypes.c_int * max(n, 1))()
        for i, a in enumerate(args):
            values[i], codes[i] = _encode(a, keep)
        ret, rcode = TVMValue(), ctypes.c_int(NULLPTR)
        if _call(self._h, values, codes, n, ctypes.byref(ret), ctypes.byref(rcode)) != 0:
            raise KernelError((_last_error() or b"").decode(errors="replace")
                              or "%s failed" % self.name)
        return _decode(ret, rcode.value)

    def __repr__(self):
        return "<objrt packed function %s>" % self.name

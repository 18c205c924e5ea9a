"""Calling a unit's TVM-FFI functions (TVM 0.21-0.26) from Python, for Unit.packed: numpy
arrays (or any object with __dlpack__) go in as DLTensor pointers (type index 7), ints,
bools, floats, strings and None as TVMFFIAny values; TVMFFIFunctionCall makes the call; a
raised error becomes objrt.KernelError(kind, message). See <objrt/tvm_ffi.h>."""
import ctypes

from . import KernelError, LinkError, _lib
from ._tvm import _capsule_pointer

NONE, INT, BOOL, FLOAT, OPAQUE, DLTENSOR, RAWSTR = 0, 1, 2, 3, 4, 7, 8
OBJECT_BEGIN = 64


class _Value(ctypes.Union):
    _fields_ = [("v_int64", ctypes.c_int64), ("v_float64", ctypes.c_double),
                ("v_ptr", ctypes.c_void_p)]


class Any(ctypes.Structure):
    """TVMFFIAny: 16 bytes."""
    _fields_ = [("type_index", ctypes.c_int32), ("zero_padding", ctypes.c_uint32),
                ("v", _Value)]


class _ByteArray(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]


class _ErrorCell(ctypes.Structure):  # after the 24-byte object header
    _fields_ = [("kind", _ByteArray), ("message", _ByteArray)]


_func = _lib._decl("objrt_ffi_func", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p,
                   ctypes.POINTER(ctypes.c_void_p))
_is_unit = _lib._decl("objrt_ffi_unit", ctypes.c_int, ctypes.c_void_p)
_call = _lib._decl("TVMFFIFunctionCall", ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(Any),
                   ctypes.c_int32, ctypes.POINTER(Any))
_move_raised = _lib._decl("TVMFFIErrorMoveFromRaised", None, ctypes.POINTER(ctypes.c_void_p))
_dec_ref = _lib._decl("TVMFFIObjectDecRef", ctypes.c_int, ctypes.c_void_p)


def speaks_ffi(unit, name):
    """Whether `name` of the unit is called with the TVM-FFI convention."""
    h = unit._handle()
    return bool(_is_unit(h)) or bool(_lib.objrt_unit_sym(h, b"__tvm_ffi_" + name.encode()))


def _text(b):
    return ctypes.string_at(b.data, b.size).decode(errors="replace") if b.size else ""


def raised_error(default):
    """The raised error as KernelError(kind, message), consuming it."""
    e = ctypes.c_void_p()
    _move_raised(ctypes.byref(e))
    if not e.value:
        return KernelError("RuntimeError", default)
    cell = _ErrorCell.from_address(e.value + 24)
    err = KernelError(_text(cell.kind), _text(cell.message))
    _dec_ref(e)
    return err


def _encode(arg, keep):
    a = Any()
    if arg is None:
        a.type_index = NONE
    elif isinstance(arg, bool):
        a.type_index, a.v.v_int64 = BOOL, int(arg)
    elif isinstance(arg, int):
        a.type_index, a.v.v_int64 = INT, arg
    elif isinstance(arg, float):
        a.type_index, a.v.v_float64 = FLOAT, arg
    elif isinstance(arg, str):
        b = ctypes.create_string_buffer(arg.encode())
        keep.append(b)
        a.type_index, a.v.v_ptr = RAWSTR, ctypes.addressof(b)
    elif hasattr(arg, "__dlpack__"):
        capsule = arg.__dlpack__()          # not consumed: freed after the call
        keep.append(capsule)
        a.type_index, a.v.v_ptr = DLTENSOR, _capsule_pointer(capsule, b"dltensor")
    else:
        raise TypeError("packed call: cannot pass %s (arrays with __dlpack__, int, float, "
                        "str, None)" % type(arg).__name__)
    return a


def _decode(r):
    t = r.type_index
    if t == NONE:
        return None
    if t == INT:
        return r.v.v_int64
    if t == BOOL:
        return bool(r.v.v_int64)
    if t == FLOAT:
        return r.v.v_float64
    if t >= OBJECT_BEGIN:                   # an object Python cannot use: released
        _dec_ref(r.v.v_ptr)
        return None
    return r.v.v_ptr


class FFIFunction:
    """A unit's TVM-FFI function; calling it returns an int or float result as such (None
    for none). Keeps the unit loaded."""

    def __init__(self, unit, name):
        self.unit = unit
        self.name = name
        h = ctypes.c_void_p()
        if _func(unit._handle(), name.encode() if name is not None else None, ctypes.byref(h)):
            raise LinkError(str(raised_error("no function %s" % name)))
        self._h = h

    def __call__(self, *args):
        self.unit._handle()                 # raises once the unit is unloaded
        keep = []
        n = len(args)
        values = (Any * max(n, 1))()
        for i, a in enumerate(args):
            values[i] = _encode(a, keep)
        ret = Any()
        if _call(self._h, values, n, ctypes.byref(ret)) != 0:
            raise raised_error("%s failed and raised no error" % self.name)
        return _decode(ret)

    def __del__(self):
        if getattr(self, "_h", None) and self._h.value and self.unit.loaded:
            _dec_ref(self._h)

    def __repr__(self):
        return "<objrt TVM-FFI function %s>" % self.name

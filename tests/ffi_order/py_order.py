"""py_order.py ORDER FUNCS.O [REFERENCE.so] - objrt in a Python process with tvm-ffi's
package: ORDER tvm_ffi-first imports tvm_ffi, then objrt; objrt-first the other way. Prints
which TVM-FFI objrt chose, test_add(10, 20) and the error of test_add(1.5, 20) through
objrt; with REFERENCE, the same two lines from tvm-ffi loading the unit built as a .so."""
import sys

if sys.argv[1] == "tvm_ffi-first":
    import tvm_ffi
    import objrt
else:
    import objrt
    import tvm_ffi
from objrt import _lib


def show(f):
    print("test_add", f(10, 20))
    try:
        f(1.5, 20)
        print("no error")
    except Exception as e:                  # objrt.KernelError, tvm_ffi's TypeError
        print("error", getattr(e, "kind", type(e).__name__) + ":", getattr(e, "message", e))


if len(sys.argv) > 3:
    show(tvm_ffi.load_module(sys.argv[3])["test_add"])
else:
    u = objrt.Context().load(sys.argv[2])
    show(u.packed("test_add"))
    print("external", _lib.lib.objrt_ffi_external())

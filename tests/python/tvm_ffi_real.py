"""The real tvm-ffi (0.1.12+, Debian sid's python3-tvm-ffi) with objrt, run in the sid root by
tests/suites/62-tvm-ffi-real.sh: tvm_ffi.load_module("x.o") through objrt compared call by call
with tvm_ffi.load_module("x.so") of the same source (tvm-ffi's own loader), and the cases of
tvm-ffi-orcjit's test_basic.py that apply to an object loader (docs/tvm-ffi.md lists them).

    python3 tvm_ffi_real.py DIR ORDER
DIR holds the fixtures the suite built (capi/cxx in the clang, gcc and gcc-fpie variants, .so
of each compiler, second.o); ORDER is objrt-first or tvm_ffi-first (which import comes first).
"""
import ctypes
import gc
import os
import sys
import tarfile
import threading

from check import LIST, case, expect, raises

D, ORDER = sys.argv[1], sys.argv[2]
if LIST:
    pass                                        # declaring the cases imports nothing
elif ORDER == "objrt-first":
    import objrt
    import tvm_ffi
else:
    import tvm_ffi
    import objrt

VARIANTS = ("clang", "gcc", "gcc-fpie")     # each built as .o and (-fPIC) as .so


def P(name):
    return os.path.join(D, name)


def outcome(fn, *args):
    """What a call gives, comparable across loaders: the value or the error's type and text."""
    try:
        v = fn(*args)
    except Exception as e:                      # noqa: BLE001 - compared, not hidden
        return ("raised", type(e).__name__, str(e).split("\n")[0])
    if isinstance(v, tvm_ffi.Array) or isinstance(v, (list, tuple)):
        return ("seq", [x for x in v])
    if isinstance(v, tvm_ffi.Map):
        return ("map", sorted(dict(v).items()))
    return (type(v).__name__, v)


if not LIST:
    tvm_ffi.register_global_func("objrt_test.host_triple", lambda x: 3 * x, override=True)

CAPI_CALLS = [("add_int", 2, 40), ("add_int", 1), ("add_int", 1.5, 2), ("sum4", 1, 2, 3, 4),
              ("mul_float", 1.5, 4.0), ("zero",), ("zero", 1), ("bump",), ("bump",), ("count",),
              ("fail",), ("fail_parts",), ("call_global", "objrt_test.host_triple", 14),
              ("call_global", "objrt_test.nobody", 1), ("ctor_log",), ("ctx_set",)]
CXX_CALLS = [("add_one", 41), ("add_one", "x"), ("concat", "ab", "cd"), ("range", 5),
             ("lengths", ["a", "bcd", "ef"]), ("both", 21), ("throws", 3), ("throws", -2),
             ("throws", 0), ("pair_sum", 20, 22), ("inits",), ("call_triple", 5)]


def run_calls(mod, calls):
    return [(c[0],) + tuple(c[1:]) + (outcome(getattr(mod, c[0]), *c[1:]),) for c in calls]


def compare(a, b):
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    expect(len(a) == len(b) and not diff, "objrt vs tvm-ffi's .so: %s" % diff[:3])


for v in VARIANTS:
    @case("%s-%s-capi-as-so" % (ORDER, v))
    def _(v=v):
        o = tvm_ffi.load_module(P("capi.%s.o" % v))
        s = tvm_ffi.load_module(P("capi.%s.so" % v))
        expect(o.kind == "objrt" and s.kind == "library", "kinds %s %s" % (o.kind, s.kind))
        compare(run_calls(o, CAPI_CALLS), run_calls(s, CAPI_CALLS))

    @case("%s-%s-cxx-as-so" % (ORDER, v))
    def _(v=v):
        o = tvm_ffi.load_module(P("cxx.%s.o" % v))
        s = tvm_ffi.load_module(P("cxx.%s.so" % v))
        compare(run_calls(o, CXX_CALLS), run_calls(s, CXX_CALLS))
        for name in ("add_one", "lengths"):
            mo, ms = o.get_function_metadata(name), s.get_function_metadata(name)
            expect(mo == ms and mo, "metadata of %s: %r vs %r" % (name, mo, ms))
        do, ds = o.get_function_doc("add_one"), s.get_function_doc("add_one")
        expect(do == ds == "add_one(x) -> x + 1", "docs %r vs %r" % (do, ds))
        names = tvm_ffi.registry.list_global_func_names()
        expect("objrt_test.%s.triple" % v in names, "the static initializer's global is missing")
        expect("objrt_test.%s.Pair" % v in tvm_ffi.registry.get_registered_type_keys(),
               "the static initializer's reflection type is missing")

    @case("%s-%s-objrt-context" % (ORDER, v))
    def _(v=v):
        with objrt.Context().load(P("capi.%s.o" % v)) as u:
            expect(u.packed("add_int")(20, 22) == 42, "add_int through objrt.Context")
            e = raises(objrt.KernelError, u.packed("fail"))
            expect((e.kind, e.message) == ("ValueError", "fail: raised from C"), str(e))


    @case("%s-%s-f16-weak-helpers-as-so" % (ORDER, v))
    def _(v=v):
        # TVM's float16: weak __truncsfhf2/__extendhfsf2 defined in the object; its code must
        # call its own (counted), and round as the .so does.
        xs = [0.0, -0.0, 1.0, 1 / 3, 65504.0, 65520.0, 1e-5, 6e-8, 2.98e-8, -2.5,
              float("inf"), 1e10]
        o = tvm_ffi.load_module(P("f16.%s.o" % v))
        s = tvm_ffi.load_module(P("f16.%s.so" % v))
        compare([o.round_half(x) for x in xs], [s.round_half(x) for x in xs])
        expect(o.helper_calls() == 2 * len(xs), "the object's own helpers ran %d times, not %d"
               % (o.helper_calls(), 2 * len(xs)))


@case(ORDER + "-missing-function")
def _():
    o = tvm_ffi.load_module(P("capi.gcc.o"))
    s = tvm_ffi.load_module(P("capi.gcc.so"))
    for m in (o, s):
        raises(AttributeError, getattr, m, "no_such_function")
        expect(not m.implements_function("no_such_function"), "implements a missing function")
    expect(o.implements_function("add_int"), "add_int not implemented")


def flag_after(fn):
    """A C int64 a unit's destructor writes 42 into (set_flag), and fn's outcome."""
    flag = ctypes.c_int64(0)
    fn(flag)
    gc.collect()
    return flag.value


@case(ORDER + "-drop-unloads")
def _():
    def use(flag):
        m = tvm_ffi.load_module(P("capi.gcc.o"), keep_module_alive=False)
        m.set_flag(ctypes.addressof(flag))
        expect(m.add_int(1, 2) == 3, "add_int")
    expect(flag_after(use) == 42, "the destructor did not run when the Module was dropped")


@case(ORDER + "-function-keeps-module")
def _():
    flag = ctypes.c_int64(0)
    m = tvm_ffi.load_module(P("capi.gcc.o"), keep_module_alive=False)
    m.set_flag(ctypes.addressof(flag))
    f = m.add_int
    del m
    gc.collect()
    expect(flag.value == 0 and f(2, 3) == 5, "the Function lost its Module")
    del f
    gc.collect()
    expect(flag.value == 42, "the unit stayed after its last Function went")


@case(ORDER + "-keep-module-alive")
def _():
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    addr = libc.malloc(8)                   # never freed: the destructor may write it at exit
    flag = ctypes.c_int64.from_address(addr)
    flag.value = 0
    m = tvm_ffi.load_module(P("capi.clang.o"))          # keep_module_alive=True: kept
    m.set_flag(addr)
    del m
    gc.collect()
    expect(flag.value == 0, "a kept Module was unloaded")


@case(ORDER + "-reload-32-sibling-survives")
def _():
    sib = tvm_ffi.load_module(P("capi.clang.o"), keep_module_alive=False)
    for i in range(32):
        flag = ctypes.c_int64(0)
        m = tvm_ffi.load_module(P("capi.gcc.o"), keep_module_alive=False)
        m.set_flag(ctypes.addressof(flag))
        expect(m.add_int(i, 1) == i + 1 and m.count() == 0, "cycle %d" % i)
        del m
        gc.collect()
        expect(flag.value == 42, "cycle %d: not unloaded" % i)
        expect(sib.add_int(i, i) == 2 * i, "cycle %d: the sibling broke" % i)


@case(ORDER + "-threads-8")
def _():
    m = tvm_ffi.load_module(P("capi.gcc.o"))
    bad = []

    def work(k):
        for i in range(500):
            if m.add_int(i, k) != i + k or not m.ctx_set():
                bad.append((k, i))
                return
    ts = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    expect(not bad, "wrong results from threads: %s" % bad[:3])


@case(ORDER + "-bad-path-and-garbage")
def _():
    e = raises(Exception, tvm_ffi.load_module, P("no-such.o"))
    expect("no-such.o" in str(e), "the error does not name the file: %s" % e)
    junk = P("junk.%d.o" % os.getpid())
    with open(junk, "wb") as f:
        f.write(b"\x7fELF this is not an object" * 10)
    e = raises(Exception, tvm_ffi.load_module, junk)
    expect("junk" in str(e), "the error does not name the file: %s" % e)
    os.unlink(junk)


def tar_of(path, members):
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as t:
        for arcname, src in members:
            t.add(src, arcname=arcname)
        t.add(P("capi.c"), arcname="README")       # not an object: not linked


@case(ORDER + "-tar-two-objects")
def _():
    path = P("lib.%d.tar" % os.getpid())
    tar_of(path, [("lib0.o", P("capi.gcc.o")), ("a-rather-long-directory-name/" * 4 + "devc.o",
                                                 P("second.o"))])
    m = tvm_ffi.load_module(path)
    expect(m.second(3, 4) == 14 and m.add_int(3, 4) == 7, "functions of a tar's two objects")
    os.unlink(path)


@case(ORDER + "-archive-two-objects")
def _():
    m = tvm_ffi.load_module(P("two.a"))
    expect(m.second(1, 2) == 6 and m.zero() == 7, "functions of an archive's two members")


@case(ORDER + "-duplicate-symbol")
def _():
    path = P("dup.%d.tar" % os.getpid())
    tar_of(path, [("a.o", P("capi.gcc.o")), ("b.o", P("capi.clang.o"))])
    e = raises(Exception, tvm_ffi.load_module, path)
    expect("duplicate definition" in str(e), "not a duplicate-definition error: %s" % e)
    os.unlink(path)


@case(ORDER + "-wrong-loader-name-control")
def _():
    # A loader registered under a name tvm-ffi does not ask for is not found: take objrt's
    # away from "ffi.Module.load_from_file.o", offer it as ".obj", and load_module must fail.
    name = "ffi.Module.load_from_file.o"
    f = tvm_ffi.get_global_func(name)
    tvm_ffi.registry.remove_global_func(name)
    tvm_ffi.register_global_func("ffi.Module.load_from_file.obj", f, override=True)
    try:
        e = raises(Exception, tvm_ffi.load_module, P("capi.gcc.o"))
        expect(name in str(e) or "load_from_file" in str(e), "an unexpected error: %s" % e)
    finally:
        tvm_ffi.register_global_func(name, f, override=True)
    expect(tvm_ffi.load_module(P("capi.gcc.o")).zero() == 7, "restored")


RELAX = {}


@case(ORDER + "-relax-vm-anylist")
def _():
    # Relax VM compiled mode: registers in an anylist (objrt's TVMBackendAnyList*). Objects
    # (Arrays made by the Python callback) pass through registers 1000 times: a missing
    # release leaks, a double one crashes or corrupts the values.
    m = tvm_ffi.load_module(P("relax.o"))
    expect(m.chain(lambda x: x * 3, 5) == 45, "ints through the registers")
    x = tvm_ffi.convert([7])
    mid = []

    def f(a):
        b = tvm_ffi.convert(list(a) + [len(a)])
        mid.append(b) if len(a) == 1 else None
        return b

    def strong(o):                          # the low 32 bits of combined_ref_count
        return ctypes.c_uint64.from_address(o.__chandle__()).value & 0xffffffff
    base = strong(x)
    m.chain_leaky(f, x)
    leaked = strong(mid.pop())
    for i in range(1000):
        out = m.chain(f, x)
        expect(list(out) == [7, 1, 2], "round %d: %s" % (i, list(out)))
    expect(strong(x) == base, "the argument's count moved: %d -> %d" % (base, strong(x)))
    expect(all(strong(b) == 1 for b in mid), "an intermediate register kept a reference")
    expect(strong(out) == 1, "the result has %d references, not 1" % strong(out))
    e = raises(Exception, m.chain, lambda x: 1 / 0, 1)
    expect("division by zero" in str(e), "the callback's error: %r" % e)
    RELAX["leaked"] = leaked


@case(ORDER + "-relax-vm-anylist-leak-control")
def _():
    expect(RELAX.get("leaked") == 2, "the planted leak shows %s references, not 2"
           % RELAX.get("leaked"))


HEADER = {}


@case(ORDER + "-alloc-header")
def _():
    # tvm-ffi 0.1.13+: every object body is preceded by a TVMFFIObjectAllocHeader; objrt's
    # objects (a unit's Module here) carry one whose delete_space is NULL.
    with objrt.Context().load(P("capi.gcc.o")) as u:
        _lib = objrt._lib
        _lib.lib.objrt_ffi_module.restype = ctypes.c_void_p
        h = _lib.lib.objrt_ffi_module(ctypes.c_void_p(u._handle()))
        expect(h, "no Module for the unit")
        expect(ctypes.c_int32.from_address(h + 8).value == 73, "not a Module (type 73)")
        expect(ctypes.c_void_p.from_address(h - 8).value is None,
               "the word before objrt's Module is not a NULL delete_space")
    # the same word before an object tvm-ffi 0.1.12 allocated itself (no header yet)
    HEADER["foreign"] = ctypes.c_void_p.from_address(tvm_ffi.convert([1, 2]).__chandle__() - 8).value


@case(ORDER + "-alloc-header-control")
def _():
    expect(HEADER.get("foreign") is not None, "the check cannot tell: the word before a "
           "tvm-ffi object is NULL too")


@case(ORDER + "-tvm026-dso-and-system-lib")
def _():
    # tests/tvm_ffi/kernel.c in TVM 0.26's shape (58-tvm-ffi's kernel), DSO mode (context
    # slots: __TVMFFIFunctionCall, __TVMFFIEnvModLookupFromImports, __TVMFFIHandleInitOnce,
    # the TVMBackend ones; TVMFFIErrorSetRaisedFromCStrParts called directly) and system lib
    # (prefix lib_, registered by its constructor), with libtvm_ffi as the process's core.
    import numpy as np
    tvm_ffi.register_global_func("host.mul", lambda a, b: a * b, override=True)
    for k in ("k26_dso.o", "k26_sys.o"):
        m = tvm_ffi.load_module(P(k))
        a, b, c = np.arange(8, dtype="float32"), np.ones(8, "float32"), np.zeros(8, "float32")
        m.add(a, b, c)
        expect((c == a + 1).all(), "%s: add gave %s" % (k, c))
        x, y, t = np.arange(1000, dtype="float32"), np.zeros(1000, "float32"), np.zeros(1, "int32")
        m.par(x, y, t)
        expect(t[0] >= 1 and (y == x * 2 + t[0]).all(), "%s: par gave %s %s" % (k, t, y[:4]))
        expect(m.callg(6, 7) == 43, "%s: callg through the library context" % k)
        e = raises(Exception, m.miss)
        expect(type(e).__name__ == "RuntimeError" and "Cannot find function" in str(e), str(e))
        e = raises(Exception, m.add, a, b)
        expect(type(e).__name__ == "TypeError" and str(e).startswith("Expected 3 arguments"),
               "%s: %s: %s" % (k, type(e).__name__, e))

"""objrt.llvm.ExecutionEngine against llvmlite's MCJIT on the same IR:
python3 engine_cases.py TMPDIR. `engine_cases.py --cache-load DIR` is the second process
of the object-cache round trip (it must compile nothing)."""
import ctypes
import gc
import os
import subprocess
import sys

import llvmlite.binding as llvm

import objrt
import objrt.llvm
from check import case, expect, raises, mapped

llvm.initialize()
llvm.initialize_native_target()
llvm.initialize_native_asmprinter()
I64 = ctypes.c_int64
FN = ctypes.CFUNCTYPE(I64, I64)

BASE = """
@counter = global i64 40
@shared = common global i64 0
define i64 @base(i64 %x) {
  %c = load i64, i64* @counter
  %r = add i64 %x, %c
  ret i64 %r
}
define linkonce_odr i64 @helper(i64 %x) {
  %r = mul i64 %x, 3
  ret i64 %r
}
"""
TOP = """
declare i64 @base(i64)
@counter = external global i64
@shared = common global i64 0
define linkonce_odr i64 @helper(i64 %x) {
  %r = mul i64 %x, 3
  ret i64 %r
}
define i64 @top(i64 %x) {
  %a = call i64 @base(i64 %x)
  %h = call i64 @helper(i64 %a)
  %old = load i64, i64* @counter
  %n = add i64 %old, 1
  store i64 %n, i64* @counter
  store i64 %h, i64* @shared
  ret i64 %h
}
"""


def machine():
    # numba's JIT settings: static relocations on x86_64, the JIT (large) code model.
    return llvm.Target.from_default_triple().create_target_machine(
        reloc="static", codemodel="jitdefault", jit=True)


def run_sequence(ee):
    mods = [llvm.parse_assembly(BASE), llvm.parse_assembly(TOP)]
    for m in mods:
        ee.add_module(m)
        ee.finalize_object()
    top = FN(ee.get_function_address("top"))
    return [top(1), top(1), top(5)], mods


CACHED_IR = """
@k = global i64 11
define i64 @cached_fn(i64 %x) {
  %v = load i64, i64* @k
  %r = mul i64 %x, %v
  ret i64 %r
}"""


def cache_engine(cache_dir, compile_allowed):
    tm = machine()
    if not compile_allowed:
        def refuse(module):
            raise AssertionError("compiled %s: the cache was not used" % module.name)
        tm.emit_object = refuse
    ee = objrt.llvm.ExecutionEngine(tm)
    path = os.path.join(cache_dir, "cached.o")

    def notify(module, buf):
        with open(path, "wb") as f:
            f.write(buf)

    def getbuffer(module):
        return open(path, "rb").read() if os.path.exists(path) else None
    ee.set_object_cache(notify, getbuffer)
    # The second process adds an empty module, as numba does for a library restored from
    # its cache: the code comes from getbuffer only.
    m = llvm.parse_assembly(CACHED_IR if compile_allowed else "")
    m.name = "cached"
    ee.add_module(m)
    ee.finalize_object()
    addr = ee.get_function_address("cached_fn")
    if not addr:
        raise AssertionError("cached_fn is not linked: the cache was not used")
    return FN(addr)(3)


keep = []
if sys.argv[1] == "--cache-load":
    print(cache_engine(sys.argv[2], False))
    sys.exit(0)
TMP = sys.argv[1]


@case("engine-cross-module")
def _():
    ee = objrt.llvm.ExecutionEngine(machine())
    got, mods = run_sequence(ee)
    mc = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine())
    want, _ = run_sequence(mc)
    expect(got == want, "objrt %r, MCJIT %r" % (got, want))
    expect(len(ee.units) == 2, "%d units for two finalized modules" % len(ee.units))
    # MCJIT's rule: the first definition of a common or weak symbol is the one used.
    expect(ee.get_global_value_address("shared") == ee.get_module_address(mods[0], "shared"),
           "second module kept its own copy of a common symbol")
    shared = ctypes.c_int64.from_address(ee.get_global_value_address("shared")).value
    expect(shared == got[-1], "shared=%d, last result %d" % (shared, got[-1]))


@case("engine-cross-module-control")
def _():
    # Without MCJIT's first-definition rule each unit keeps its own @shared: the check
    # above would see two addresses.
    ee = objrt.llvm.ExecutionEngine(machine(), context=objrt.Context(earlier_wins=False))
    _, mods = run_sequence(ee)
    expect(ee.get_module_address(mods[1], "shared") != ee.get_module_address(mods[0], "shared"),
           "the address check cannot tell the rules apart")


@case("engine-global-mapping")
def _():
    ee = objrt.llvm.ExecutionEngine(machine())
    m = llvm.parse_assembly("""
@ext_value = external global i64
define i64 @read_ext(i64 %x) {
  %v = load i64, i64* @ext_value
  %r = add i64 %v, %x
  ret i64 %r
}""")
    cell = ctypes.c_int64(1000)
    ee.add_global_mapping(m.get_global_variable("ext_value"), ctypes.addressof(cell))
    ee.add_module(m)
    ee.finalize_object()
    f = FN(ee.get_function_address("read_ext"))
    cell.value = 2000
    expect(f(1) == 2001, "read %d through the mapping" % f(1))


SYM_IR = """
declare i64 @objrt_test_added(i64)
define i64 @use_added(i64 %x) {
  %r = call i64 @objrt_test_added(i64 %x)
  ret i64 %r
}"""


@case("engine-add-symbol")
def _():
    cb = FN(lambda v: v * 7)
    llvm.add_symbol("objrt_test_added", ctypes.cast(cb, ctypes.c_void_p).value)
    ee = objrt.llvm.ExecutionEngine(machine())
    ee.add_module(llvm.parse_assembly(SYM_IR))
    ee.finalize_object()
    expect(FN(ee.get_function_address("use_added"))(6) == 42, "add_symbol name not bound")
    keep.append(cb)


@case("engine-add-symbol-control")
def _():
    ee = objrt.llvm.ExecutionEngine(machine())
    ee.add_module(llvm.parse_assembly(SYM_IR.replace("objrt_test_added", "objrt_test_absent")))
    e = raises(objrt.LinkError, ee.finalize_object)
    expect("undefined symbol 'objrt_test_absent'" in str(e), "message: %s" % e)


LLABS_IR = """
declare i64 @llabs(i64)
define i64 @use_llabs(i64 %x) {
  %r = call i64 @llabs(i64 %x)
  ret i64 %r
}"""


@case("engine-add-symbol-overrides-host")
def _():
    # llvmlite's symbol table comes before the process (numba maps PyExc_* this way).
    fake = FN(lambda v: 4242)
    keep.append(fake)
    llvm.add_symbol("llabs", ctypes.cast(fake, ctypes.c_void_p).value)
    results = []
    for ee in (objrt.llvm.ExecutionEngine(machine()),
               llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine())):
        ee.add_module(llvm.parse_assembly(LLABS_IR))
        ee.finalize_object()
        results.append(FN(ee.get_function_address("use_llabs"))(-5))
    expect(results == [4242, 4242], "objrt, MCJIT: %r" % results)


@case("engine-add-symbol-overrides-host-control")
def _():
    # Plain objrt order (host first, then a resolver asking llvmlite): the host's llabs.
    ctx = objrt.Context()
    ctx.set_resolver(llvm.address_of_symbol)
    o = machine().emit_object(llvm.parse_assembly(LLABS_IR))
    with ctx.load(o) as u:
        got = u.function("use_llabs", I64, I64)(-5)
    expect(got == 5, "got %d: the override check could not tell the orders apart" % got)


ABS_IR = """
declare i64 @%(f)s(i64)
define i64 @use_%(f)s_%(k)d(i64 %%x) {
  %%r = call i64 @%(f)s(i64 %%x)
  ret i64 %%r
}"""


def abs_after_add(f, add):
    # Each engine links f, a C library function llvmlite does not know (the host's), then
    # llvmlite is given f through `add`, then each links a second module calling f.
    fake = FN(lambda v: 4343)
    keep.append(fake)
    engines = [objrt.llvm.ExecutionEngine(machine()),
               llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine())]
    got = []
    for k in (0, 1):
        if k:
            add(f, ctypes.cast(fake, ctypes.c_void_p).value)
        for ee in engines:
            ee.add_module(llvm.parse_assembly(ABS_IR % {"f": f, "k": k}))
            ee.finalize_object()
            got.append(FN(ee.get_function_address("use_%s_%d" % (f, k)))(-5))
    return got


@case("engine-add-symbol-after-a-load")
def _():
    # objrt.llvm remembers that llvmlite did not know labs; add_symbol makes it ask again.
    got = abs_after_add("labs", llvm.add_symbol)
    expect(got == [5, 5, 4343, 4343], "objrt, MCJIT before and after add_symbol: %r" % got)


@case("engine-add-symbol-after-a-load-control")
def _():
    # The same table change behind llvmlite's back (its ffi directly): objrt.llvm does not
    # see it and keeps the host's imaxabs, so the case above tells asking again from not.
    from llvmlite.binding import ffi
    got = abs_after_add("imaxabs",
                        lambda n, a: ffi.lib.LLVMPY_AddSymbol(n.encode(), ctypes.c_void_p(a)))
    expect(got[:2] == [5, 5] and got[3] == 4343, "MCJIT: %r" % got)
    expect(got[2] == 5, "objrt asked llvmlite again unseen (%r): the check above proves nothing"
           % got)


@case("engine-defines")
def _():
    # What numba's JitEngine.is_symbol_defined answers from the modules it saw: a body or
    # an initialiser, pending or linked, or a global mapping; not a declaration, not a name
    # only llvmlite's symbol table (add_symbol) gave.
    cb = FN(lambda v: v)
    keep.append(cb)
    llvm.add_symbol("objrt_test_added", ctypes.cast(cb, ctypes.c_void_p).value)
    ee = objrt.llvm.ExecutionEngine(machine())
    m = llvm.parse_assembly(SYM_IR + "@objrt_test_data = global i64 3\n")
    ee.add_module(m)
    pending = [ee.defines(n) for n in ("use_added", "objrt_test_data", "objrt_test_added")]
    ee.finalize_object()
    linked = [ee.defines(n) for n in ("use_added", "objrt_test_data", "objrt_test_added")]
    cell = ctypes.c_int64(0)
    ee.add_global_mapping("objrt_test_mapped", ctypes.addressof(cell))
    got = pending + linked + [ee.defines("objrt_test_mapped"), ee.defines("objrt_nothing")]
    expect(got == [True, True, False, True, True, False, True, False], "answers %r" % got)


@case("engine-remove-module-unloads")
def _():
    ee = objrt.llvm.ExecutionEngine(machine())
    _, (m1, m2) = run_sequence(ee)
    u1, u2 = ee.units[0].unit, ee.units[1].unit
    a1, a2 = u1.address("base"), u2.address("top")
    expect(u1.dependants == 1 and u2.dependants == 0,
           "dependants %d/%d, expected 1/0" % (u1.dependants, u2.dependants))
    ee.remove_module(m1)                    # still bound from m2's unit: kept
    expect(u1.loaded and mapped(a1), "unloaded a unit another unit is bound to")
    ee.remove_module(m2)                    # both go
    expect(not u1.loaded and not u2.loaded and not mapped(a1) and not mapped(a2),
           "units left after removing every module")


@case("engine-memory-returned")
def _():
    # 300 modules added and removed: the mappings come and go (MCJIT keeps them all).
    ee = objrt.llvm.ExecutionEngine(machine())
    def maps():
        with open("/proc/self/maps") as f:
            return sum(1 for _ in f)
    before = maps()
    for i in range(300):
        m = llvm.parse_assembly("define i64 @f%d(i64 %%x) {\n %%r = add i64 %%x, %d\n ret i64 %%r\n}" % (i, i))
        ee.add_module(m)
        ee.finalize_object()
        expect(FN(ee.get_function_address("f%d" % i))(1) == i + 1, "wrong result")
        ee.remove_module(m)
    gc.collect()
    expect(maps() <= before + 2, "mappings %d -> %d" % (before, maps()))


def second_process(cache_dir):
    return subprocess.run([sys.executable, __file__, "--cache-load", cache_dir],
                          capture_output=True, text=True)


@case("engine-object-cache")
def _():
    d = os.path.join(TMP, "cache")
    os.makedirs(d, exist_ok=True)
    expect(cache_engine(d, True) == 33, "first process: wrong result")
    expect(os.path.getsize(os.path.join(d, "cached.o")) > 0, "notify hook got no object")
    r = second_process(d)
    expect(r.returncode == 0 and r.stdout.strip() == "33",
           "second process: rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr[-300:]))


@case("engine-object-cache-control")
def _():
    d = os.path.join(TMP, "cache-empty")
    os.makedirs(d, exist_ok=True)
    r = second_process(d)                   # nothing cached: it would have to compile
    expect(r.returncode != 0 and "the cache was not used" in r.stderr,
           "the no-compile guard did not fire: rc=%d" % r.returncode)


@case("engine-surface")
def _():
    ee = objrt.llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine())
    expect(str(ee.target_data) == str(machine().target_data), "target data differs")
    m = llvm.parse_assembly(CACHED_IR)
    ee.add_module(m)
    raises(KeyError, ee.add_module, m)
    expect(FN(ee.get_function_address("cached_fn"))(2) == 22, "lazy finalize failed")
    expect(ee.get_function_address("no_such_symbol") == 0, "missing symbol not 0")
    expect(ee.enable_jit_events() is True, "enable_jit_events")
    ee.run_static_constructors()


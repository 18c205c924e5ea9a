"""objrt's Python API: python3 api_cases.py TMPDIR (fixtures compiled by gcc at test time).
Each case prints PASS/FAIL; each guard has a negative control (a case named *-control
that shows the same check failing on a deliberately wrong input)."""
import ctypes
import gc
import os
import subprocess
import sys
import weakref

import objrt
from check import case, expect, raises, mapped

TMP = sys.argv[1]
C_INT = ctypes.c_int


def cc(name, src, *flags):
    c = os.path.join(TMP, name + ".c")
    o = os.path.join(TMP, name + ".o")
    with open(c, "w") as f:
        f.write(src)
    subprocess.run(["gcc", "-O2", "-fPIC", "-c", c, "-o", o] + list(flags), check=True)
    return o


def native(src, expr):
    """What the same C code prints when linked natively (the reference)."""
    c = os.path.join(TMP, "native.c")
    exe = os.path.join(TMP, "native")
    with open(c, "w") as f:
        f.write(src + '\n#include <stdio.h>\nint main(void){printf("%%d\\n", %s);return 0;}\n' % expr)
    subprocess.run(["gcc", "-O2", c, "-o", exe], check=True)
    return int(subprocess.run([exe], check=True, capture_output=True, text=True).stdout)


ADD = "int scale = 7;\nint mul_add(int a, int b) { return a * scale + b; }\n"
ADD_WRONG = "int scale = 8;\nint mul_add(int a, int b) { return a * scale + b; }\n"
add_o = cc("add", ADD)
add_wrong_o = cc("add_wrong", ADD_WRONG)
want = native(ADD, "mul_add(6, 5)")


def call_mul_add(ctx, *inputs):
    with ctx.load(*inputs) as u:
        return u.function("mul_add", C_INT, C_INT, C_INT)(6, 5)


@case("py-load-path")
def _():
    got = call_mul_add(objrt.Context(), add_o)
    expect(got == want, "objrt %d, native %d" % (got, want))


@case("py-load-path-control")
def _():
    got = call_mul_add(objrt.Context(), add_wrong_o)
    expect(got != want, "a wrong fixture gave the native result: the comparison proves nothing")


@case("py-load-bytes")
def _():
    data = open(add_o, "rb").read()
    got = call_mul_add(objrt.Context(), data)
    expect(got == want, "objrt %d, native %d" % (got, want))
    got = call_mul_add(objrt.Context(), ("named.o", bytearray(data)))
    expect(got == want, "(name, bytearray): objrt %d, native %d" % (got, want))


# An archive: main.o needs sq() from one member; the other member must not be pulled.
LIB1 = "int sq(int x) { return x * x; }\n"
LIB2 = "int undefined_elsewhere(int);\nint unused_fn(int x) { return undefined_elsewhere(x); }\n"
MAIN = "int sq(int);\nint sum_sq(int n) { int s = 0; for (int i = 1; i <= n; i++) s += sq(i); return s; }\n"


def archive():
    a = os.path.join(TMP, "libsq.a")
    if os.path.exists(a):
        os.unlink(a)
    subprocess.run(["ar", "rcs", a, cc("lib1", LIB1), cc("lib2", LIB2)], check=True)
    return a


@case("py-archive")
def _():
    a = archive()
    want_sq = native(LIB1 + MAIN, "sum_sq(10)")
    ctx = objrt.Context()
    for inputs in ((cc("main", MAIN), a), (open(cc("main", MAIN), "rb").read(), open(a, "rb").read())):
        with ctx.load(*inputs) as u:
            got = u.function("sum_sq", C_INT, C_INT)(10)
            expect(got == want_sq, "objrt %d, native %d" % (got, want_sq))
            expect(u.stats.objects == 2, "objects=%d, expected main.o + one member" % u.stats.objects)


@case("py-linkerror-text")
def _():
    o = cc("undef", "int missing_fn(int);\nint use(int x) { return missing_fn(x) + 1; }\n")
    e = raises(objrt.LinkError, objrt.Context().load, o)
    expect("undef.o: undefined symbol 'missing_fn'" in str(e), "message: %s" % e)
    e = raises(objrt.LinkError, objrt.Context().load, ("mem.o", b"\x7fELF" + b"\0" * 20))
    expect(str(e).startswith("mem.o: "), "message: %s" % e)
    e = raises(objrt.LinkError, objrt.Context().load, os.path.join(TMP, "no-such.o"))
    expect("no-such.o" in str(e), "message: %s" % e)


@case("py-linkerror-control")
def _():
    o = cc("undef", "int missing_fn(int);\nint use(int x) { return missing_fn(x) + 1; }\n")
    ctx = objrt.Context()
    ctx.define("missing_fn", ctypes.CFUNCTYPE(C_INT, C_INT)(lambda x: x))
    with ctx.load(o) as u:                  # the same input loads once the name is defined
        expect(u.function("use", C_INT, C_INT)(4) == 5, "wrong result")


CB = "int cb(int);\nint via_cb(int x) { return cb(x) * 2; }\n"


@case("py-callback-survives-gc")
def _():
    ctx = objrt.Context()
    fn = ctypes.CFUNCTYPE(C_INT, C_INT)(lambda x: x + 100)
    alive = weakref.ref(fn)
    ctx.define("cb", fn)
    del fn
    gc.collect()
    expect(alive() is not None, "the context did not keep the callback")
    u = ctx.load(cc("cb", CB))
    expect(u.function("via_cb", C_INT, C_INT)(1) == 202, "wrong result through the callback")


@case("py-callback-control")
def _():
    # The raw C call keeps nothing: the same callback is collected (what define() prevents).
    ctx = objrt.Context()
    fn = ctypes.CFUNCTYPE(C_INT, C_INT)(lambda x: x + 100)
    alive = weakref.ref(fn)
    objrt._lib.objrt_define(ctx._h, b"cb", ctypes.cast(fn, ctypes.c_void_p).value)
    del fn
    gc.collect()
    expect(alive() is None, "callback still alive without define()'s reference")


@case("py-resolver")
def _():
    o = cc("res", "int lazy_fn(int);\nint call_lazy(int x) { return lazy_fn(x) - 1; }\n")
    ctx = objrt.Context()
    lazy = ctypes.CFUNCTYPE(C_INT, C_INT)(lambda x: x * 10)
    asked = []

    def resolver(name):
        asked.append(name)
        return ctypes.cast(lazy, ctypes.c_void_p).value if name == "lazy_fn" else None
    ctx.set_resolver(resolver)
    with ctx.load(o) as u:
        expect(u.function("call_lazy", C_INT, C_INT)(3) == 29, "wrong result")
    expect(asked == ["lazy_fn"], "resolver asked %r (host names must not reach it)" % asked)
    ctx.set_resolver(lambda name: None)     # declines: the load fails with objrt's message
    e = raises(objrt.LinkError, ctx.load, o)
    expect("undefined symbol 'lazy_fn'" in str(e), "message: %s" % e)

    def broken(name):
        raise ValueError("resolver bug for " + name)
    ctx.set_resolver(broken)                # an exception fails the load, kept as the cause
    e = raises(objrt.LinkError, ctx.load, o)
    expect(isinstance(e.__cause__, ValueError), "cause: %r" % (e.__cause__,))
    ctx.set_resolver(None)
    raises(objrt.LinkError, ctx.load, o)


@case("py-unit-lifetime-via-function")
def _():
    ctx = objrt.Context()
    u = ctx.load(add_o)
    f = u.function("mul_add", C_INT, C_INT, C_INT)
    addr = u.address("mul_add")
    ref = weakref.ref(u)
    del u
    gc.collect()
    expect(ref() is not None and mapped(addr), "unit unloaded while its function lives")
    expect(f(6, 5) == want, "wrong result after gc")
    del f
    gc.collect()
    expect(ref() is None and not mapped(addr), "unit still loaded after its last function went")


DTOR = ("void note(int);\nint ready(void) { return 1; }\n"
        "__attribute__((destructor)) static void bye(void) { note(42); }\n")


@case("py-unload-on-with-exit")
def _():
    ctx = objrt.Context()
    seen = []
    ctx.define("note", ctypes.CFUNCTYPE(None, C_INT)(seen.append))
    with ctx.load(cc("dtor", DTOR)) as u:
        addr = u.address("ready")
        expect(mapped(addr) and u.loaded and seen == [], "not loaded inside the block")
    expect(not u.loaded and not mapped(addr), "still mapped after the block")
    expect(seen == [42], "destructor did not run on unload: %r" % seen)
    raises(objrt.LinkError, u.address, "ready")


@case("py-unload-control")
def _():
    ctx = objrt.Context()
    ctx.define("note", ctypes.CFUNCTYPE(None, C_INT)(lambda v: None))
    u = ctx.load(cc("dtor", DTOR))
    addr = u.address("ready")
    expect(mapped(addr), "the mapping probe does not see a loaded unit")
    u.unload()
    u.unload()                              # idempotent
    expect(not mapped(addr), "unload left the mapping")


@case("py-stats")
def _():
    with objrt.Context().load(add_o) as u:
        s = u.stats
        expect(isinstance(s, objrt.Stats) and s.objects == 1 and s.relocations >= 1, repr(s))
        # packed (the Python default): the unit's 64-byte chunks; otherwise whole pages
        expect(s.packed == 1 and 0 < s.used_bytes <= s.reserved_bytes and
               s.reserved_bytes % 64 == 0, repr(s))
    with objrt.Context(pack_small=False).load(add_o) as u:
        s = u.stats
        expect(s.packed == 0 and 0 < s.used_bytes <= s.reserved_bytes and
               s.reserved_bytes % 4096 == 0, repr(s))


def close_during_a_load(leave):
    # A load whose resolver waits for close() to start: close() must wait for the load to
    # end (which then raises "context is closed"), woken by the call's leave.
    import threading
    o = cc("waits", "int later_fn(int);\nint call_later(int x) { return later_fn(x); }\n")
    ctx = objrt.Context()
    ctx._leave = leave.__get__(ctx)
    fn = ctypes.CFUNCTYPE(C_INT, C_INT)(lambda x: x)
    inside, events = threading.Event(), []

    def resolver(name):
        inside.set()
        while ctx._h:                       # close() clears it, then waits for this call
            threading.Event().wait(0.01)
        return ctypes.cast(fn, ctypes.c_void_p).value

    def load():
        try:
            ctx.load(o)
        except objrt.LinkError as e:
            events.append(str(e))
    ctx.set_resolver(resolver)
    t = threading.Thread(target=load)
    t.start()
    inside.wait(10)
    closer = threading.Thread(target=lambda: (ctx.close(), events.append("closed")))
    closer.daemon = True                    # the control's close() never returns
    closer.start()
    closer.join(10)
    t.join(10)
    return events


@case("py-context-close-waits-for-a-call")
def _():
    got = close_during_a_load(objrt.Context._leave)
    expect(sorted(got) == ["closed", "context is closed"], "events %r" % got)


@case("py-context-close-waits-for-a-call-control")
def _():
    # A leave that wakes nobody: close() still waits after the load ended, so the case above
    # sees close() woken, not merely finished.
    def silent_leave(self):
        with self._cv:
            self._calls -= 1
            self._mine.depth -= 1
    got = close_during_a_load(silent_leave)
    expect(got == ["context is closed"], "events %r" % got)


@case("py-context-close")
def _():
    ctx = objrt.Context()
    u = ctx.load(add_o)
    addr = u.address("mul_add")
    ctx.close()
    expect(not u.loaded and not mapped(addr), "close() left the unit")
    u.unload()                              # harmless after close
    raises(objrt.LinkError, ctx.load, add_o)


@case("py-define-types")
def _():
    ctx = objrt.Context()
    raises(TypeError, ctx.define, "x", lambda: 0)       # a bare Python callable has no C type
    raises(TypeError, ctx.load, 42)
    raises(objrt.LinkError, ctx.load)
    v = ctypes.c_int(9)
    ctx.define("scale", v)                  # a ctypes object: its address
    o = cc("ext", "extern int scale;\nint get_scale(void) { return scale; }\n")
    with ctx.load(o) as u:
        expect(u.function("get_scale", C_INT)() == 9, "define(ctypes object) not bound")


# ---- TVM packed functions (Unit.packed) ------------------------------------------------------
def packed_unit(ctx):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "packed_kernel.c")
    o = os.path.join(TMP, "packed_kernel.o")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    subprocess.run(["gcc", "-O2", "-fPIC", "-I", os.path.join(root, "include"), "-c", src, "-o", o],
                   check=True)
    return ctx.load(o)


@case("py-packed-numpy")
def _():
    import numpy as np
    with packed_unit(objrt.Context()) as u:
        add_k = u.packed("add_k")
        a, out = np.linspace(0, 1, 33), np.zeros(33)
        expect(add_k(a, out, 0.25) == 33, "return value")
        expect(np.array_equal(out, a + 0.25), "result differs from numpy's a + 0.25")
        expect(add_k(a[3:], out[3:], 1.0) == 30 and np.array_equal(out[3:], a[3:] + 1.0),
               "a sliced view (byte_offset or data pointer) gave a wrong result")
        expect(not np.array_equal(out, a + 0.25), "control: the comparison cannot fail")
        raises(objrt.LinkError, u.packed, "no_such_kernel")


@case("py-packed-kernel-error")
def _():
    import numpy as np
    with packed_unit(objrt.Context()) as u:
        add_k = u.packed("add_k")
        e = raises(objrt.KernelError, add_k, np.zeros(4), np.zeros(3), 1.0)
        expect(str(e) == "add_k: float64 vectors of one length please", "message: %s" % e)
        e = raises(objrt.KernelError, add_k, np.zeros(4), np.zeros(4), 1)     # int, not float
        expect("expected (DLTensor a, DLTensor out, float k)" in str(e), "message: %s" % e)
        raises(TypeError, add_k, object())
    raises(objrt.LinkError, add_k, np.zeros(4), np.zeros(4), 1.0)             # unit unloaded


@case("py-unload-refused-while-bound")
def _():
    ctx = objrt.Context()
    first = ctx.load(add_o)
    o = cc("user", "int mul_add(int, int);\nint use_it(void) { return mul_add(2, 1); }\n")
    second = ctx.load(o)
    expect(first.dependants == 1 and second.dependants == 0, "dependants %d/%d"
           % (first.dependants, second.dependants))
    e = raises(objrt.LinkError, first.unload)
    expect("cannot unload" in str(e) and first.loaded, "message: %s" % e)
    expect(second.function("use_it", C_INT)() == 2 * 7 + 1, "dependant broken after refusal")
    second.unload()
    first.unload()
    expect(not first.loaded, "unload after the dependant went")


@case("py-add-library")
def _():
    o = cc("sqlv", "int sqlite3_libversion_number(void);\nint sql_version(void) { return sqlite3_libversion_number(); }\n")
    ctx = objrt.Context()
    e = raises(objrt.LinkError, ctx.load, o)        # control: not in the host process
    expect("undefined symbol 'sqlite3_libversion_number'" in str(e), "message: %s" % e)
    ctx.add_library("libsqlite3.so.0")
    want_v = ctypes.CDLL("libsqlite3.so.0").sqlite3_libversion_number()
    with ctx.load(o) as u:
        expect(u.function("sql_version", C_INT)() == want_v, "wrong version number")
    e = raises(objrt.LinkError, ctx.add_library, "no_such_library_xyz")
    expect("no_such_library_xyz" in str(e), "message: %s" % e)


@case("py-structs-match-header")
def _():
    # The ctypes declarations must follow include/objrt.h (a field added there shows here).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    c = os.path.join(TMP, "sizes.c")
    exe = os.path.join(TMP, "sizes")
    with open(c, "w") as f:
        f.write('#include <stdio.h>\n#include <stddef.h>\n#include <objrt.h>\nint main(void){'
                'printf("%zu %zu %zu %zu %zu\\n", sizeof(objrt_stats), sizeof(objrt_options),'
                ' offsetof(objrt_options, earlier_wins), sizeof(objrt_input),'
                ' offsetof(objrt_stats, stubs_used));return 0;}\n')
    subprocess.run(["gcc", "-I", os.path.join(root, "include"), c, "-o", exe], check=True)
    got = [int(v) for v in subprocess.run([exe], capture_output=True, text=True).stdout.split()]
    L = objrt._lib
    want = [ctypes.sizeof(L.CStats), ctypes.sizeof(L.Options), L.Options.earlier_wins.offset,
            ctypes.sizeof(L.Input), L.CStats.stubs_used.offset]
    expect(got == want, "C %r, ctypes %r" % (got, want))

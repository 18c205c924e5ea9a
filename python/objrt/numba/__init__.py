"""numba on objrt: numba's CPU target compiles through objrt.llvm.ExecutionEngine.

    import objrt.numba
    objrt.numba.enable()            # before numba compiles anything
    import numba
    ...

or run a program unchanged: ``python3 -m objrt.numba [--stats] (-m MODULE | SCRIPT) [ARG...]``.

enable() replaces MCJIT where numba creates it: while numba's JITCPUCodegen._init runs,
llvmlite's create_mcjit_compiler and numba's JitEngine are objrt's (the JIT codegen only;
AOT compilation is untouched). numba 0.56 to 0.65 with llvmlite 0.39 to 0.47; a newer
release runs with a warning (UntestedNumba) when every hook point is there, else it is
refused (UnsupportedNumba), as is an older one. When numba frees a code library (its
dispatcher and overloads are gone), the library's unit is unloaded unless another unit is
bound to it (then it goes when that one does) or numba handed its code out (ufunc loops,
cfunc addresses, first-class function pointers, NRT objects' destructors: docs/numba.md,
"What stays loaded"). OBJRT_NUMBA_UNLOAD=0 keeps every unit, as
MCJIT does. At interpreter exit nothing is unloaded any more: objects still alive may call
their code from destructors.
"""
import atexit
import functools
import os
import sys
import threading
import warnings
import weakref



def _llvm():
    """objrt.llvm, imported when first needed: it imports llvmlite, which the objrt-numba.pth
    hook must not do while site.py has not yet put Debian's dist-packages on sys.path."""
    from .. import llvm
    return llvm


from ._passes import skip_declarations as _skip_declarations

__all__ = ["enable", "enabled", "stats_line", "stats_lines", "UnsupportedNumba",
           "UntestedNumba"]

_state = {"enabled": False, "exiting": False}


def _stop_unloading():
    _state["exiting"] = True


def _make_engine_class(codegen):
    class ObjrtJitEngine(codegen.JitEngine):
        """numba's JitEngine over an objrt engine instead of MCJIT. numba tracks the names
        its modules define so that a lookup never reaches MCJIT's exit(1) on an unknown
        name; objrt knows its units' definitions, so the tracking is asked of it."""

        def add_module(self, module):
            # numba's add_module lists every definition through llvmlite, one call per
            # global, for every module; is_symbol_defined asks the engine instead.
            self._ee.add_module(module)

        def is_symbol_defined(self, name):
            return name in self._defined_symbols or self._ee.defines(name)

        def set_object_cache(self, notify, getbuffer):
            self._ee.set_object_cache(notify, getbuffer)

        def finalize_object(self):
            self._ee.finalize_object()

        def get_function_address(self, name):
            return self._ee.get_function_address(name)

        def get_global_value_address(self, name):
            return self._ee.get_global_value_address(name)

        def remove_module(self, module):
            if not _state["exiting"]:
                self._ee.remove_module(module)

    return ObjrtJitEngine


# The numba and llvmlite releases objrt.numba is tested with (Debian 12: 0.56 / 0.39,
# Debian 13: 0.61 / 0.44, Debian sid: 0.65 / 0.47). An older release is refused; a newer one
# runs, with one warning, when every place objrt hooks into is there (HOOK_POINTS): a numba
# that moved them would create engines these hooks never see.
NUMBA_VERSIONS = ((0, 56), (0, 65))
LLVMLITE_VERSIONS = ((0, 39), (0, 47))


class UnsupportedNumba(RuntimeError):
    """enable() was called with a numba or llvmlite release objrt.numba cannot hook into:
    older than the tested range, or without one of its hook points."""


class UntestedNumba(RuntimeWarning):
    """enable() runs on a numba or llvmlite release newer than the tested range."""


def _release(version):
    try:
        return tuple(int(x) for x in version.split(".")[:2])
    except ValueError:
        return None


def _gate():
    """The newest numba release that runs: by default any whose hook points are present.
    OBJRT_NUMBA_GATE=X.Y (a test hook: the negative control of the gate) refuses what is
    newer than X.Y, as releases before 0.65 support did."""
    return _release(os.environ.get("OBJRT_NUMBA_GATE", "")) or None


def _hook_points(codegen):
    """(name, present) for every attribute of numba.core.codegen enable() replaces or
    calls."""
    cg = getattr(codegen, "JITCPUCodegen", None)
    lib = getattr(codegen, "JITCodeLibrary", None)
    return (("numba.core.codegen.ll", hasattr(codegen, "ll")),
            ("numba.core.codegen.JitEngine", hasattr(codegen, "JitEngine")),
            ("JITCPUCodegen._init", hasattr(cg, "_init")),
            ("JITCPUCodegen._add_module", hasattr(cg, "_add_module")),
            ("JITCodeLibrary.get_pointer_to_function",
             hasattr(lib, "get_pointer_to_function")))


def _range(what, lo, hi):
    return "%s %d.%d to %d.%d" % (what, lo[0], lo[1], hi[0], hi[1])


def _check_versions(numba_version, llvmlite_version, codegen):
    """Raise UnsupportedNumba naming what does not fit; return None when the releases are
    the tested ones, else the warning's text for a newer release whose hook points are all
    present."""
    tested = "%s with %s" % (_range("numba", *NUMBA_VERSIONS),
                             _range("llvmlite", *LLVMLITE_VERSIONS))
    newer = []
    gate = _gate()
    for what, ver, (lo, hi) in (("numba", numba_version, NUMBA_VERSIONS),
                                ("llvmlite", llvmlite_version, LLVMLITE_VERSIONS)):
        rel = _release(ver)
        if gate is not None and what == "numba":
            hi = gate
        if rel is None or rel < lo or (gate is not None and what == "numba" and rel > hi):
            raise UnsupportedNumba(
                "objrt.numba supports %s; this is %s %s (numba keeps using MCJIT: run "
                "without objrt.numba)" % (_range(what, lo, hi), what, ver))
        if rel > hi:
            newer.append("%s %s" % (what, ver))
    missing = [n for n, ok in _hook_points(codegen) if not ok]
    if missing:
        raise UnsupportedNumba("objrt.numba: numba %s lacks %s, where objrt hooks in (numba "
                               "keeps using MCJIT: run without objrt.numba)"
                               % (numba_version, ", ".join(missing)))
    if newer:
        return ("objrt.numba was tested with %s; this is %s: running on objrt (every hook "
                "point is present)" % (tested, " and ".join(newer)))
    return None


# ---- what numba hands to numpy and C: kept while its holder lives -------------------------
# numba frees a code library when no Python object refers to it any more, and objrt then
# unloads its unit. Two kinds of holder reach code without such a reference (MCJIT never
# frees, so numba never needed one):
# - numpy, through the loops of the ufuncs numba builds (vectorize eager, lazy (DUFunc) and
#   parallel, guvectorize): numba's ufunc code (numba.np.ufunc) takes the loop's address from
#   a wrapper library and lets that library go before it hands the address to numpy
#   (_internal.fromfunc, DUFunc._add_loop); the ufunc keeps only the kernel's library. An
#   address numba.np.ufunc takes is pinned at once (objrt.llvm.pin); the Pin goes into the
#   ufunc's (or DUFunc's) own keep-alive list when numba hands the address over, so the unit
#   stays exactly as long as the ufunc.
# - whoever reads a cfunc's address (.address, and .ctypes, .cffi and first-class function
#   arguments, which read it): an integer can be kept anywhere, so that unit stays for the
#   process, as under MCJIT. The same for the address of a dispatcher's overload that numba's
#   first-class function code takes (a dispatcher passed where a FunctionType is expected):
#   compiled code holds it as a plain pointer, which may be stored (a typed List of
#   functions) beyond the dispatcher's life.
# - NRT objects (a typed Dict or List, a jitclass instance, a structref, a reflected list or
#   set inside one of those): their meminfo's destructor and the container's method table
#   (element incref/decref, key equality) are functions of the module of the code that made
#   the object, and the object can outlive that code (returned to Python, stored in a
#   container passed in). numba gives the pointers to its C runtime inside compiled code,
#   where nothing sees them go, so a unit defining such a function is kept for the process
#   (_NRT_CODE), as MCJIT keeps it; functions that build no such object are unaffected.
_PENDING = {}                       # address taken by numba.np.ufunc -> its Pin, until handed
_FOREVER = {}                       # id(unit record) -> a Pin: kept for the process
_FOREVER_ADDRS = set()              # addresses whose unit is in _FOREVER (never unloaded)
_UFUNC_CODE = "numba.np.ufunc"
_FIRST_CLASS_CODE = ("numba.experimental.function_type", "numba.core.types.function_type")
# Names numba gives those functions, the same in 0.56 to 0.65, as they stand in an object's
# string table: typed Dict/List destructors (numba.typed.dictobject/listobject._imp_dtor),
# jitclass and structref destructors (jitclass.base.imp_dtor: "_Dtor.<type>"), reflected
# list and set destructors (cpython.listobj/setobj: ".dtor.list.<dtype>", ".dtor.set.<dtype>"),
# and the method tables' functions (typed.typedobjectutils: ".numba_<fn>.<elem>_incref",
# "_decref", "_equal.wrap"; elem dict_key, dict_value or list; a decref comes with its incref).
_NRT_CODE = (b"_numba_dict_dtor\0", b"_numba_list_dtor\0", b"_Dtor.", b".dtor.list.",
             b".dtor.set.", b".dict_key_incref\0", b".dict_value_incref\0", b".list_incref\0",
             b".dict_key_equal.wrap\0")


def _nrt_code(obj):
    """(name, weak) of the NRT destructor and method-table functions an emitted object
    defines. Most objects name none: their symbols are not read."""
    if not any(name in obj for name in _NRT_CODE):
        return []
    pats = tuple(n.rstrip(b"\0").decode() for n in _NRT_CODE)
    return [(n, w) for n, w in _llvm().defined_symbols(obj)
            if any(p in n and (n.endswith(p) or p.endswith(".")) for p in pats)]


def _pending_pin(addr):
    p = _llvm().pin(addr)
    if p is not None:
        _PENDING[addr] = p


def _keep_forever(pins):
    for p in pins:
        _FOREVER.setdefault(id(p._rec), p)


def _keep_address_forever(addr):
    if addr not in _FOREVER_ADDRS:
        p = _llvm().pin(addr)
        if p is not None:
            _keep_forever([p])
            _FOREVER_ADDRS.add(addr)


def _claim(addresses):
    """The Pins of loop addresses numba now gives to numpy (pinned when taken; an address
    taken some other way is pinned now)."""
    pins = []
    for a in addresses:
        p = _PENDING.pop(a, None) or _llvm().pin(a)
        if p is not None:
            pins.append(p)
    return pins


def _hook_fromfunc(internal):
    """numba.np.ufunc._internal.fromfunc(name, doc, loops, types, nin, nout, data, keepalive,
    ...) builds every ufunc and gufunc (eager, parallel); the ufunc owns `keepalive`."""
    orig = internal.fromfunc

    def fromfunc(*args, **kwargs):
        pins = _claim(int(p) for p in (args[2] if len(args) > 2 else ()))
        if len(args) > 7 and isinstance(args[7], list):
            args = args[:7] + (args[7] + [pins],) + args[8:]
        else:                       # a layout this code does not know: keep them, as MCJIT
            _keep_forever(pins)
        return orig(*args, **kwargs)
    fromfunc.__wrapped__ = orig
    internal.fromfunc = fromfunc


def _hook_dufunc(dufunc):
    """DUFunc._add_loop(ptr, types) gives numpy one loop; the DUFunc owns `_keepalive`."""
    cls = dufunc.DUFunc
    orig = cls._add_loop

    def _add_loop(self, ptr, dtypenums):
        pins = _claim([int(ptr)])
        keep = getattr(self, "_keepalive", None)
        if isinstance(keep, list):
            keep.append(pins)
        else:
            _keep_forever(pins)
        return orig(self, ptr, dtypenums)
    _add_loop.__wrapped__ = orig
    cls._add_loop = _add_loop


def _hook_cfunc(ccallback):
    """CFunc.address (and .ctypes, .cffi, first-class function arguments, which read it)."""
    cls = ccallback.CFunc
    orig = cls.address
    given = weakref.WeakSet()

    def address(self):
        addr = orig.fget(self)
        if addr and self not in given:
            p = _llvm().pin(addr)
            _keep_forever([p] if p is not None else [])
            given.add(self)
        return addr
    address.__wrapped__ = orig.fget
    cls.address = property(address, doc=orig.__doc__)


def _keep_handed_out():
    """Install the hooks above (each only where numba has the place it hooks), once numba
    is imported: enable() may run while numba.core.codegen is being imported (the
    OBJRT_NUMBA=1 hook), when numba's ufunc modules cannot be imported yet; then numba's
    first JIT codegen (before anything is compiled) installs them."""
    if _state.get("hooked"):
        return
    numba = sys.modules.get("numba")
    if numba is None or getattr(getattr(numba, "__spec__", None), "_initializing", False):
        return
    _state["hooked"] = True
    from numba.core import ccallback
    from numba.np.ufunc import _internal, dufunc
    if callable(getattr(_internal, "fromfunc", None)):
        _hook_fromfunc(_internal)
    if callable(getattr(getattr(dufunc, "DUFunc", None), "_add_loop", None)):
        _hook_dufunc(dufunc)
    if isinstance(getattr(getattr(ccallback, "CFunc", None), "address", None), property):
        _hook_cfunc(ccallback)


class _Binding:
    """llvmlite.binding as numba's CPUCodegen._init sees it while enable()'s wrapper runs:
    the same module but for create_mcjit_compiler, which makes an objrt engine (keep: the
    engine's test for units kept for the process)."""

    def __init__(self, ll, keep):
        self._ll, self._keep = ll, keep

    def __getattr__(self, name):
        return getattr(self._ll, name)

    def create_mcjit_compiler(self, module, target_machine, use_lmm=None):
        # use_lmm (llvmlite 0.42+): MCJIT's memory manager; objrt has its own.
        return _llvm().ExecutionEngine(target_machine, module, keep=self._keep)


def _cpu_target_built():
    """True when numba's CPU target context (and with it the JIT codegen and its MCJIT
    engine) already exists: numba compiled, or set up to compile, before enable()."""
    try:
        from numba.core.registry import cpu_target
    except ImportError:
        return False
    return "_toplevel_target_context" in vars(cpu_target)


def enable():
    """Make numba's CPU JIT link through objrt from now on. Idempotent. Code numba compiled
    before the call stays with MCJIT (enable first: ``python3 -m objrt.numba`` does).
    Raises UnsupportedNumba for a numba or llvmlite release older than NUMBA_VERSIONS and
    LLVMLITE_VERSIONS or one without a hook point; warns (UntestedNumba) for a newer one."""
    if _state["enabled"]:
        return
    import llvmlite
    import numba
    from numba.core import codegen

    untested = _check_versions(numba.__version__, llvmlite.__version__, codegen)
    engine_class = _make_engine_class(codegen)
    unload = os.environ.get("OBJRT_NUMBA_UNLOAD", "1") != "0"
    # OBJRT_NUMBA_PIN=0 (a test hook): what numba hands out is not kept, the negative
    # control of the lifetime rule.
    keep = unload and os.environ.get("OBJRT_NUMBA_PIN", "1") != "0"
    orig_init = codegen.JITCPUCodegen._init
    init_lock = threading.Lock()

    def _init(self, llvm_module):
        # numba's own _init, with its two names for MCJIT (ll.create_mcjit_compiler and
        # JitEngine, globals of numba.core.codegen) bound to objrt's for the call: whatever
        # else a numba release sets up there (vectorizer flags, opt levels) stays its own.
        with init_lock:
            real_ll, real_engine = codegen.ll, codegen.JitEngine
            codegen.ll, codegen.JitEngine = (_Binding(real_ll, _nrt_code if keep
                                                      else None), engine_class)
            try:
                orig_init(self, llvm_module)
            finally:
                codegen.ll, codegen.JitEngine = real_ll, real_engine
        if keep:
            _keep_handed_out()

    orig_add_module = codegen.JITCPUCodegen._add_module
    orig_get_pointer = codegen.JITCodeLibrary.get_pointer_to_function

    def _add_module(self, module):
        # numba registers the returned callable with weakref.finalize(library, ...): it
        # runs when the code library is freed. A codegen created before enable() keeps MCJIT.
        if not isinstance(self._engine, engine_class):
            return orig_add_module(self, module)
        self._engine.add_module(module)
        if unload:
            return functools.partial(self._engine.remove_module, module)
        return None

    def get_pointer_to_function(self, name):
        # The library's own definition (or the one its unit was bound to), not whichever
        # unit defines the name last: a later library may be dropped before this one.
        ee = self._codegen._engine
        if not isinstance(ee, engine_class):
            return orig_get_pointer(self, name)
        self._ensure_finalized()
        if not ee.is_symbol_defined(name):
            return 0
        addr = ee._ee.get_module_address(self._final_module, name)
        if keep and addr:
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if caller.startswith(_UFUNC_CODE):
                _pending_pin(addr)  # a ufunc loop: its library may go before numpy has it
            elif caller.startswith(_FIRST_CLASS_CODE):
                _keep_address_forever(addr)     # a first-class function's pointer
        return addr

    codegen.JITCPUCodegen._init = _init
    codegen.JITCPUCodegen._add_module = _add_module
    codegen.JITCodeLibrary.get_pointer_to_function = get_pointer_to_function
    _skip_declarations(codegen)
    if keep:
        _keep_handed_out()
    # atexit runs handlers last-registered first: make sure weakref.finalize's exit hook
    # is registered, then register ours after it so it runs before the finalizers do.
    weakref.finalize(enable, lambda: None).atexit = False
    atexit.register(_stop_unloading)
    _state["enabled"] = True
    if untested:
        warnings.warn(untested, UntestedNumba, stacklevel=2)
    if _cpu_target_built():
        warnings.warn(
            "objrt.numba.enable() came after numba set up its CPU target with MCJIT: what "
            "numba compiles for @jit/@njit/@cfunc in this process stays on MCJIT (enable "
            "before numba compiles anything: import objrt.numba first, python3 -m "
            "objrt.numba, or OBJRT_NUMBA=1)", RuntimeWarning, stacklevel=2)


def enabled():
    """True when numba's CPU JIT links through objrt: enable() ran, and numba's CPU target
    either is not set up yet (it will be on objrt) or was set up on objrt. False after an
    enable() that came too late (numba's target kept MCJIT)."""
    if not _state["enabled"]:
        return False
    if not _cpu_target_built():
        return True
    from numba.core.registry import cpu_target
    engine = getattr(cpu_target.target_context.codegen(), "_engine", None)
    return type(engine).__name__ == "ObjrtJitEngine"


def _release_of(name):
    import sys
    mod = sys.modules.get(name)
    return getattr(mod, "__version__", "?") if mod else "not imported"


def stats_lines():
    """What --stats prints: the numba and llvmlite releases and whether objrt links numba's
    code, then the totals over every unit objrt linked for numba in this process."""
    return ["objrt.numba: numba %s, llvmlite %s, objrt linking numba's code: %s"
            % (_release_of("numba"), _release_of("llvmlite"), "yes" if enabled() else "no"),
            stats_line()]


def stats_line():
    """The --stats counters line: totals over every unit objrt linked for numba."""
    if "objrt.llvm" not in sys.modules:     # nothing was linked (objrt.llvm never needed)
        return "objrt.numba: units=0 relocations=0 reserved_bytes=0 used_bytes=0 unloaded=0"
    return _llvm().totals.line("objrt.numba")

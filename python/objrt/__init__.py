"""objrt for Python: load ELF relocatable objects (.o) and static archives (.a) into the
running process and call them, through libobjrt.so (ctypes, nothing compiled).

    import ctypes, objrt
    ctx = objrt.Context()
    with ctx.load("kernel.o", open("libhelpers.a", "rb").read()) as unit:
        dot = unit.function("dot", ctypes.c_double, ctypes.c_void_p, ctypes.c_size_t)
        print(dot(buf, n))
    # leaving the block unloads the unit (destructors run, memory returned)

Every failure raises objrt.LinkError carrying objrt's own message (file, section, symbol).
objrt.llvm is an llvmlite-compatible execution engine, objrt.numba runs numba on it.
"""
from __future__ import annotations

import ctypes
import dataclasses
import os
import threading
from typing import Any, Callable, Optional, Tuple, Union

from . import _lib
from ._version import __version__

__all__ = ["Context", "Unit", "Stats", "Memory", "LinkError", "KernelError", "library_path",
           "tvm_ffi_loader", "__version__"]

#: What load() takes: a path, the bytes of an object or archive, or (name, bytes).
Input = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview,
              Tuple[str, Union[bytes, bytearray, memoryview]]]
#: What define() takes: an address, a ctypes function or a ctypes object.
Target = Union[int, "ctypes._CFuncPtr", "ctypes._SimpleCData", ctypes.Structure, ctypes.Union,
               ctypes.Array]

library_path: str = _lib.path
"""The libobjrt.so this package uses (OBJRT_LIBRARY overrides the search)."""


class LinkError(Exception):
    """A load, link or lookup failed; str(e) is objrt's message."""


class KernelError(Exception):
    """A kernel returned an error. KernelError(message) for TVM <= 0.20 (str(e) is
    TVMGetLastError()'s text, e.kind None); KernelError(kind, message) for TVM-FFI, e.g.
    ("ValueError", "Mismatched B.shape[0] ..."), str(e) being "kind: message"."""

    def __init__(self, kind, message=None):
        if message is None:
            kind, message = None, kind
        super().__init__(message if kind is None else "%s: %s" % (kind, message))
        self.kind = kind
        self.message = message


@dataclasses.dataclass(frozen=True)
class Stats:
    """What objrt did for one unit (struct objrt_stats of objrt.h)."""
    link_us: float          #: first byte parsed to code ready to run, in microseconds
    objects: int            #: object files linked, archive members pulled in included
    relocations: int        #: relocations applied
    reserved_bytes: int     #: size of the unit's own reservation; packed: its chunks' bytes
    used_bytes: int         #: bytes of sections, GOT and stubs, without padding
    got_slots: int
    stubs: int
    stubs_used: int         #: calls that went through a stub (the others were in reach)
    comdat_groups_dropped: int  #: COMDAT groups dropped as duplicates of a kept group
    comdat_bytes_dropped: int   #: their sections' bytes: what deduplication saved
    packed: int             #: 1: the unit shares pages with other small units


@dataclasses.dataclass(frozen=True)
class Memory:
    """The context's shared pages of small units, and the reservations of unloaded units
    kept for its next load (struct objrt_memory of objrt.h)."""
    arena_blocks: int           #: memory files of the arena
    arena_reserved_bytes: int   #: address space they take
    arena_page_bytes: int       #: pages holding at least one unit's chunk
    arena_chunk_bytes: int      #: the chunks themselves
    spare_reservations: int     #: reservations of unloaded units kept for the next load
    spare_bytes: int            #: their address space (at most 64 MiB)


def _name_bytes(name):
    if isinstance(name, bytes):
        return name
    if not isinstance(name, str) or not name:
        raise TypeError("symbol name must be a non-empty str, got %r" % (name,))
    return name.encode()


def _address_of(target):
    """An integer address for define(): an int, a ctypes function, or a ctypes object."""
    if isinstance(target, bool):
        raise TypeError("define: an address or a ctypes object, not a bool")
    if isinstance(target, int):
        return target
    if isinstance(target, ctypes._CFuncPtr):
        return ctypes.cast(target, ctypes.c_void_p).value
    if isinstance(target, (ctypes._SimpleCData, ctypes.Structure, ctypes.Union, ctypes.Array)):
        return ctypes.addressof(target)
    raise TypeError("define: expected an int address, a ctypes function (CFUNCTYPE(...)(f)) or "
                    "a ctypes object, got %s" % type(target).__name__)


class Context:
    """A set of loaded units, symbols given with define(), libraries and a resolver.

    Later loads bind to earlier units of the same context. A context lives as long as any
    of its units (each holds a reference); close() (or garbage collection) unloads what is
    left. Safe to use from several threads: objrt serialises loads per context, and the
    lifecycle is objrt_free's (objrt.h): close() stops new calls (they raise
    LinkError("context is closed")), waits for the running ones, a load it overtook
    unloads what it made and raises the same, and only then is the context freed.

    page_size: plan granule (0 = the system's, or 4096/16384/65536).
    constructors: False to skip the units' constructors and destructors.
    earlier_wins: True to let weak and common definitions yield to one already in the
    context, as MCJIT does (objrt.llvm sets it).
    pack_small: True (the default here, unlike the C API) to let small units share pages
    (objrt_options.pack_small: a JIT makes many small units); OBJRT_PACK=0 overrides it.
    """

    def __init__(self, page_size: int = 0, constructors: bool = True, earlier_wins: bool = False,
                 pack_small: bool = True) -> None:
        h = _lib.objrt_new()
        if not h:
            raise MemoryError("objrt_new failed")
        self._h = h
        self._keep = {}                 # name -> object whose address was defined
        self._resolver = None           # (python callable, C trampoline)
        self._resolver_error = threading.local()
        self._live = set()              # unit handles not yet unloaded (no weakrefs: the
                                        # collector clears those before running __del__)
        self._cv = threading.Condition()  # guards _h, _live and _calls
        self._calls = 0                 # calls into objrt running on this context
        self._mine = threading.local()  # .depth: this thread's calls (close() inside one)
        opt = _lib.Options(page_size, 0 if constructors else 1, 1 if earlier_wins else 0,
                           1 if pack_small else 0)
        if _lib.objrt_set_options(h, ctypes.byref(opt)):
            msg = self._error()
            _lib.objrt_free(h)
            self._h = None
            raise LinkError(msg)

    # -- internals ------------------------------------------------------------------------
    def _handle(self):
        if not self._h:
            raise LinkError("context is closed")
        return self._h

    def _enter(self):
        """Count a call into objrt (objrt_ctx_enter's rule): close() waits for it."""
        with self._cv:
            if not self._h:
                raise LinkError("context is closed")
            self._calls += 1
            self._mine.depth = getattr(self._mine, "depth", 0) + 1
            return self._h

    def _leave(self):
        with self._cv:
            self._calls -= 1
            self._mine.depth -= 1
            if self._calls == 0 and not self._h:    # close() waits once it cleared _h
                self._cv.notify_all()

    class _Call:
        __slots__ = ("ctx", "h")

        def __init__(self, ctx):
            self.ctx = ctx

        def __enter__(self):
            self.h = self.ctx._enter()
            return self.h

        def __exit__(self, *exc):
            self.ctx._leave()

    def _call(self):
        return Context._Call(self)

    def _error(self, h=None):
        """objrt_error() of handle h (the one a running call holds), else of ours."""
        return (_lib.objrt_error(h or self._h) or b"").decode(errors="replace")

    def _fail(self, h=None):
        err = getattr(self._resolver_error, "exc", None)
        self._resolver_error.exc = None
        e = LinkError(self._error(h) or "objrt failed")
        if err is not None:
            raise e from err
        raise e

    # -- loading --------------------------------------------------------------------------
    def load(self, *inputs: Input) -> Unit:
        """Link the inputs as one unit and return it.

        Each input is a path (str or os.PathLike), or the bytes of an object, archive or
        TVM export_library tar (bytes, bytearray, memoryview; a tar's every .o member joins
        the unit), or a (name, bytes) pair naming the bytes in error
        messages. Raises LinkError with objrt's message when the load fails; nothing of a
        failed load stays mapped.
        """
        self._handle()
        if not inputs:
            raise LinkError("nothing to load")
        if all(isinstance(i, (str, os.PathLike)) for i in inputs):
            paths = [os.fsencode(i) for i in inputs]
            arr = (ctypes.c_char_p * len(paths))(*paths)
            with self._call() as h:
                return self._adopt(h, _lib.objrt_load(h, arr, len(paths)))
        arr = (_lib.Input * len(inputs))()
        keep = []
        for k, item in enumerate(inputs):
            name, data = self._input(k, item)
            buf = ctypes.create_string_buffer(data, len(data)) if data else None
            keep.append((name, buf))
            # addressof, not ctypes.cast: the same address without a foreign call (9 us)
            arr[k] = _lib.Input(name, ctypes.addressof(buf) if buf else None, len(data))
        with self._call() as h:
            return self._adopt(h, _lib.objrt_load_memory(h, arr, len(inputs)))

    def _adopt(self, h, u):
        """The unit a load returned, inside the call: a load that close() overtook leaves
        nothing and raises LinkError("context is closed"), as objrt_load does."""
        if not u:
            self._fail(h)
        with self._cv:
            if self._h:
                self._live.add(u)
                return Unit(self, u)
        _lib.objrt_unload(u)
        raise LinkError("context is closed")

    @staticmethod
    def _input(k, item):
        if isinstance(item, (str, os.PathLike)):
            with open(item, "rb") as f:
                return os.fsencode(item), f.read()
        if isinstance(item, tuple) and len(item) == 2:
            name, data = item
            return os.fsencode(name), bytes(data)
        if isinstance(item, (bytes, bytearray, memoryview)):
            return b"<bytes #%d>" % k, bytes(item)
        raise TypeError("load: input %d is %s; expected a path, bytes or (name, bytes)"
                        % (k, type(item).__name__))

    # -- symbols --------------------------------------------------------------------------
    def define(self, name: Union[str, bytes], target: Target) -> None:
        """Give `name` an address for later loads: an int, a ctypes function (for example
        ``CFUNCTYPE(c_int, c_int)(py_callable)``) or a ctypes object (its address). The
        object is kept alive as long as the context, so a Python callback cannot be
        collected while loaded code may call it. Defining a name again replaces it."""
        addr = _address_of(target)
        with self._call() as h:
            if _lib.objrt_define(h, _name_bytes(name), addr):
                self._fail(h)
        self._keep[_name_bytes(name)] = target

    def add_library(self, name: str) -> None:
        """Make a shared library's symbols available to later loads: a path, a soname
        ("libm.so.6") or a short name as for ``cc -l`` ("m")."""
        with self._call() as h:
            if _lib.objrt_add_library(h, os.fsencode(name)):
                self._fail(h)

    def set_resolver(self, fn: Optional[Callable[[str], Optional[int]]]) -> None:
        """Consult ``fn(name) -> address or None`` for names nothing else defines (after
        the host and added libraries, before "undefined symbol"). It is called during
        load() on the loading thread; an exception it raises fails that load and becomes
        the LinkError's __cause__. None removes the resolver."""
        if fn is None:
            with self._call() as h:
                _lib.objrt_set_resolver(h, _lib.RESOLVER(), None)
            self._resolver = None
            return

        def trampoline(_data, cname):
            try:
                addr = fn(cname.decode())
                if addr is None:
                    return None
                if not isinstance(addr, int) or isinstance(addr, bool):
                    raise TypeError("resolver returned %r for %r; expected int or None"
                                    % (addr, cname.decode()))
                return addr or None
            except BaseException as e:           # noqa: B902 - reported through load()
                self._resolver_error.exc = e
                return None

        tramp = _lib.RESOLVER(trampoline)
        with self._call() as h:
            _lib.objrt_set_resolver(h, tramp, None)
        self._resolver = (fn, tramp)

    def sym(self, name: Union[str, bytes]) -> Optional[int]:
        """Address of a global symbol of any loaded unit (latest first) or of a defined
        name, or None."""
        with self._call() as h:
            return _lib.objrt_sym(h, _name_bytes(name)) or None

    # -- lifetime -------------------------------------------------------------------------
    def memory(self) -> Memory:
        """Memory of the context's shared pages and kept reservations (objrt_memory_usage)
        as a Memory."""
        m = _lib.CMemory()
        with self._call() as h:
            if _lib.objrt_memory_usage(h, ctypes.byref(m)):
                raise LinkError("objrt_memory_usage failed")
        return Memory(*(getattr(m, f[0]) for f in _lib.CMemory._fields_))

    def close(self) -> None:
        """Unload every unit still loaded and free the context: nothing new starts on it,
        the calls running in other threads end first (a load among them raises
        LinkError("context is closed") and leaves nothing). Idempotent; not from inside a
        call on the context (a resolver, a constructor)."""
        with self._cv:
            if not self._h:
                return
            if getattr(self._mine, "depth", 0):
                raise LinkError("close() from inside a call on the context")
            h, self._h = self._h, None
            while self._calls:
                self._cv.wait()
            self._live.clear()
        _lib.objrt_free(h)                  # unloads what is left, newest first
        self._keep.clear()
        self._resolver = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_h", None) and _lib is not None and _lib.objrt_free is not None:
            self.close()


class Unit:
    """One loaded unit. Unloaded by unload(), on leaving a ``with`` block, or when it is
    garbage-collected: keep a reference (or a function from function()) while its code
    or addresses are in use."""

    def __init__(self, ctx, handle):
        self.context = ctx
        self._h = handle
        self._funcs = {}

    def _handle(self):
        if not self.loaded:
            raise LinkError("unit is unloaded")
        return self._h

    @property
    def loaded(self) -> bool:
        """False once unloaded (explicitly, by a ``with`` block or by Context.close())."""
        h = self._h
        return bool(h) and h in self.context._live

    def address(self, name: Union[str, bytes]) -> int:
        """Address (int) of a global definition of this unit; LinkError if it has none."""
        with self.context._call():
            p = _lib.objrt_unit_sym(self._handle(), _name_bytes(name))
        if not p:
            raise LinkError("no global symbol '%s' in this unit"
                            % _name_bytes(name).decode(errors="replace"))
        return p

    def function(self, name: Union[str, bytes], restype: Any, *argtypes: Any) -> Any:
        """A ctypes function calling `name` with the given C signature. The function keeps
        this unit loaded as long as it exists (unload() still unloads explicitly)."""
        addr = self.address(name)
        f = ctypes.CFUNCTYPE(restype, *argtypes)(addr)
        f._objrt_unit = self                # ctypes function objects accept attributes
        return f

    def packed(self, name: str) -> Callable[..., Any]:
        """A Python callable for the unit's function `name`: TVM-FFI (objrt._tvm_ffi) when
        the unit speaks it, else TVM's old packed ABI (objrt._tvm)."""
        from . import _tvm, _tvm_ffi
        if _tvm_ffi.speaks_ffi(self, name):
            return _tvm_ffi.FFIFunction(self, name)
        return _tvm.PackedFunction(self, name)

    @property
    def stats(self) -> Stats:
        """The unit's Stats (what the planner and linker did)."""
        s = _lib.CStats()
        _lib.objrt_unit_stats(self._handle(), ctypes.byref(s))
        return Stats(*(getattr(s, f[0]) for f in _lib.CStats._fields_))

    @property
    def dependants(self) -> int:
        """How many loaded units are bound to this one (objrt_unit_dependants)."""
        return _lib.objrt_unit_dependants(self._handle())

    def unload(self) -> None:
        """Run destructors and return the unit's memory. Idempotent, from any thread: of
        two calls at once one unloads, the other returns at once. Raises LinkError (and
        stays loaded) while a later unit is bound to it: unload that one first."""
        ctx = self.context
        with ctx._cv:                       # claimed by one caller, as objrt_unload does
            h = self._h
            if not h or h not in ctx._live or not ctx._h:
                self._h = None              # unloaded, or freed with its context
                return
            ctx._live.discard(h)
        try:
            with ctx._call() as ctx_h:
                if _lib.objrt_unload(h) == 0:
                    self._h = None
                    return
                msg = ctx._error(ctx_h)
        except LinkError:                   # closed meanwhile: objrt_free takes it
            self._h = None
            return
        with ctx._cv:
            if ctx._h:
                ctx._live.add(h)
        raise LinkError(msg or "objrt_unload failed")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.unload()

    def __del__(self):
        if getattr(self, "_h", None) and _lib is not None and _lib.objrt_unload is not None:
            try:
                self.unload()
            except LinkError:
                pass                        # still bound: objrt_free() takes it later

    def __repr__(self):
        return "<objrt.Unit %s>" % ("0x%x" % self._h if self._h else "unloaded")


from . import _tvm_ffi_loader  # noqa: E402  tvm_ffi.load_module("k.o") through objrt
from ._tvm_ffi_loader import tvm_ffi_loader  # noqa: E402

"""An llvmlite-compatible execution engine that links through objrt instead of MCJIT.

    import llvmlite.binding as llvm, objrt.llvm
    tm = llvm.Target.from_default_triple().create_target_machine(codemodel="jitdefault")
    ee = objrt.llvm.ExecutionEngine(tm)          # or objrt.llvm.create_mcjit_compiler(mod, tm)
    ee.add_module(llvm.parse_assembly(ir))
    ee.finalize_object()
    addr = ee.get_function_address("f")

It offers the part of llvmlite.binding.ExecutionEngine that numba uses. Each
finalize_object() emits the modules added since the last one as objects with the target
machine and links them as one objrt unit. Later units bind to earlier ones, with MCJIT's
rule that the first definition of a weak or common symbol wins (objrt_options.earlier_wins).
The names a module declares are looked up with llvmlite.binding.address_of_symbol before
it is linked (so llvm.add_symbol() takes precedence over the process, as in MCJIT), and
names nothing else defines are asked of it too (llvm.load_library_permanently()). A name
llvmlite did not know is asked again only after llvm.add_symbol() or
llvm.load_library_permanently() ran (objrt.llvm watches both).

remove_module() unloads the module's unit once every module of that unit is removed, no
other unit is bound to it and no Pin holds it (pin(): an address given to code objrt cannot
see, such as a numpy ufunc's loop); otherwise the unit is kept and retried after later
unloads and when its last Pin goes. A unit whose own definition of a name the engine's
`keep` test picks out is in use is never unloaded (as MCJIT keeps all code).
"""
import ctypes
import os
import atexit
import struct
import threading
import weakref

import llvmlite.binding as _llvm

from . import Context, LinkError, _lib

__all__ = ["ExecutionEngine", "create_mcjit_compiler", "totals", "mapped", "pin", "Pin",
           "defined_symbols"]


class _Totals:
    """Counters over every engine of the process (what `python3 -m objrt.numba --stats`
    prints)."""

    def __init__(self):
        self.units = self.relocations = self.reserved_bytes = self.used_bytes = 0
        self.unloaded = 0

    def line(self, prefix):
        return ("%s: units=%d relocations=%d reserved_bytes=%d used_bytes=%d unloaded=%d"
                % (prefix, self.units, self.relocations, self.reserved_bytes,
                   self.used_bytes, self.unloaded))

    def __repr__(self):
        return "<objrt.llvm.totals %s>" % self.line("linked").split(": ", 1)[1]


totals = _Totals()
_engines = weakref.WeakSet()
_exiting = []                   # non-empty once the interpreter exits (atexit)
atexit.register(_exiting.append, True)


def mapped():
    """Over the live units of every engine of the process: (units, bytes mapped for them,
    bytes of their content). Mapped: the shared pages of each engine's context (small units
    share pages) plus the own reservation of every unit that was not packed."""
    units = nbytes = content = 0
    contexts = {}
    for e in list(_engines):
        contexts[id(e._ctx)] = e._ctx
        for rec in list(e.units):
            s = rec.unit.stats
            units += 1
            content += s.used_bytes
            nbytes += 0 if s.packed else s.reserved_bytes
    for ctx in contexts.values():
        nbytes += ctx.memory().arena_page_bytes
    return units, nbytes, content


class _Record:
    """One unit, the modules linked into it that are not yet removed (their _module_key),
    and how many Pins hold it."""
    __slots__ = ("unit", "modules", "pins")

    def __init__(self, unit, modules):
        self.unit = unit
        self.modules = set(modules)
        self.pins = 0


class Pin:
    """Made by pin(addr): while this object lives, the unit holding addr stays loaded even
    when every module of it was removed. For addresses handed to code that holds no Python
    reference to the module (a numpy ufunc's loop, a C callback): keep the Pin as long as
    that code can call the address (in the object that owns it), or for the process."""
    __slots__ = ("_engine", "_rec", "__weakref__")

    def __init__(self, engine, rec):
        self._engine, self._rec = engine, rec
        rec.pins += 1

    def __del__(self):
        self._engine._unpin(self._rec)

    def __repr__(self):
        return "<objrt.llvm.Pin of a unit with %d pins>" % self._rec.pins


def pin(addr):
    """A Pin for the unit, of any engine of the process, whose memory holds addr; None when
    no unit does (an address of the process, or of a unit already unloaded)."""
    for e in list(_engines):
        rec = e._record_at(addr)
        if rec is not None:
            return Pin(e, rec)
    return None


_EHDR = struct.Struct("<Q10xHH")       # e_shoff, e_shentsize (at 0x3A), e_shnum
_SHDR = struct.Struct("<IIQQQQIIQQ")    # Elf64_Shdr
_SYM = struct.Struct("<IBBHQQ")         # Elf64_Sym: name, info, other, shndx, value, size


def _symtabs(obj):
    """For each symbol table of an ELF64 little-endian relocatable object: its string
    table's offset and its symbols after the null one, as Elf64_Sym tuples. Raises
    ValueError (or struct.error, IndexError) where the header or a table is not whole: each
    caller treats malformed input its own way."""
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        raise ValueError("not an ELF64 little-endian object")
    view = memoryview(obj)
    shoff, shentsize, shnum = _EHDR.unpack_from(obj, 0x28)
    if shentsize != _SHDR.size or shoff + shnum * _SHDR.size > len(obj):
        raise ValueError("section headers past the end")
    shdrs = list(_SHDR.iter_unpack(view[shoff:shoff + shnum * _SHDR.size]))
    for sh in shdrs:
        if sh[1] != 2:                                  # SHT_SYMTAB
            continue
        symoff, symsize, stroff = sh[4], sh[5], shdrs[sh[6]][4]
        end = symoff + symsize // _SYM.size * _SYM.size
        if end > len(obj):
            raise ValueError("symbol table past the end")
        yield stroff, _SYM.iter_unpack(view[symoff + _SYM.size:end])


def _string(obj, start):
    return obj[start:obj.index(b"\0", start)].decode()


def scan_symbols(obj):
    """(defines, undefined) for an ELF64 little-endian relocatable object: whether it
    defines any function or data symbol (global or local; sections and file names do not
    count), and the names of the global and weak symbols it leaves undefined (what it will
    ask the linker for). Malformed input yields (True, what was readable): objrt itself
    rejects it with a precise message when it is loaded."""
    names = []
    defines = False
    try:
        for stroff, syms in _symtabs(obj):
            for st_name, st_info, _, st_shndx, _, _ in syms:
                if st_shndx:
                    defines = defines or (st_info & 0xF) not in (3, 4)   # SECTION, FILE
                elif st_name and (st_info >> 4) in (1, 2):              # UNDEF, GLOBAL/WEAK
                    names.append(_string(obj, stroff + st_name))
    except (struct.error, ValueError, IndexError, UnicodeDecodeError):
        return True, names
    return defines, names


def defined_symbols(obj):
    """(name, weak) for every function and data symbol an ELF64 little-endian relocatable
    object defines (global, weak or local); weak: STB_WEAK. Nothing for malformed input."""
    out = []
    try:
        for stroff, syms in _symtabs(obj):
            for st_name, st_info, _, st_shndx, _, _ in syms:
                if st_shndx and st_name and (st_info & 0xF) in (0, 1, 2):  # NOTYPE/OBJECT/FUNC
                    out.append((_string(obj, stroff + st_name), st_info >> 4 == 2))
    except (struct.error, ValueError, IndexError, UnicodeDecodeError):
        return []
    return out


def undefined_names(obj):
    """Names of the global and weak symbols an ELF64 little-endian relocatable object leaves
    undefined (scan_symbols(obj)[1])."""
    return scan_symbols(obj)[1]


def _module_key(module):
    # llvmlite compares modules by the LLVM module they wrap, and hashes one through
    # ctypes.cast, a foreign call (about 6 us on a loaded machine, and a load looked a module
    # up 7 times): the same address, read without one.
    try:
        return ctypes.addressof(module._ptr[0])
    except (AttributeError, TypeError, ValueError):
        return module


def _llvmlite_symbol(name):
    return _llvm.address_of_symbol(name)


# llvmlite's symbol table changes through add_symbol and load_library_permanently only. An
# engine remembers which names it asked llvmlite about, found or not, and asks again once
# either ran (MCJIT asks at every link): a failed lookup searches every library the process
# loaded, and numba's modules leave the same CPython names undefined module after module
# (8 per function on numba 0.56), which cost more than the rest of the Python side of a
# load. Calls that bypass these two functions (llvmlite's ffi directly) are not seen.
_table_changes = [0]


def _watch_table(owner, name):
    real = getattr(owner, name, None)
    if real is None or getattr(real, "_objrt_watched", False):
        return
    def changed(*args, **kwargs):
        try:
            return real(*args, **kwargs)
        finally:
            _table_changes[0] += 1
    changed._objrt_watched = True
    changed.__doc__, changed.__name__, changed.__wrapped__ = real.__doc__, real.__name__, real
    setattr(owner, name, changed)


for _owner in (_llvm, getattr(_llvm, "dylib", None)):
    for _name in ("add_symbol", "load_library_permanently"):
        if _owner is not None:
            _watch_table(_owner, _name)


class ExecutionEngine:
    """llvmlite.binding.ExecutionEngine's surface over an objrt context.

    target_machine: an llvmlite TargetMachine; it emits every module's object (JIT code
    model and relocation model as the caller configured it; objrt links the default and
    the large code model). module: optionally a first module, as create_mcjit_compiler
    takes one. context: an objrt.Context to load into (default: a new one with
    earlier_wins=True). keep: optionally keep(object bytes) -> [(name, weak)], the
    definitions of the object that code outliving the module's holder may call; the unit is
    kept for the engine's life, however its modules are removed, when it uses its own
    definition of one of them: every local or strong one, a weak one when it is the first
    of the context (a later weak copy is bound to the first, whose unit is the one kept).
    """

    def __init__(self, target_machine, module=None, context=None, keep=None):
        self._tm = target_machine
        self._td = None
        self._ctx = context if context is not None else Context(earlier_wins=True)
        self._ctx.set_resolver(_llvmlite_symbol)
        self._lock = threading.RLock()
        self._modules = {}          # _module_key(module) -> (module, its _Record or None
                                    # while pending / if it defines nothing)
        self._pending = []          # added, not yet finalized (in order)
        self._retired = []          # records whose modules are all removed, still bound
        self._loading = False       # a load is running: removals only queue
        self._notify = self._getbuffer = None
        self._keep = keep
        self.kept = 0               # units the keep test accepted
        self._explicit = set()      # names defined from llvmlite's symbol table
        self._asked = set()         # names asked of it since _asked_as_of changes of it
        self._asked_as_of = _table_changes[0]
        self._stats = _lib.CStats()
        self._loc = _lib.CLocation()
        self._by_handle = {}        # unit handle -> live record (pin() looks addresses up)
        self.units = []             # live records, oldest first (introspection)
        _engines.add(self)
        if module is not None:
            self.add_module(module)

    # -- modules ------------------------------------------------------------------------
    def add_module(self, module):
        """Queue a module; it is compiled and linked by the next finalize_object()."""
        with self._lock:
            key = _module_key(module)
            if key in self._modules:
                raise KeyError("module already added to this engine")
            self._modules[key] = (module, None)
            self._pending.append(module)

    def add_object_file(self, obj):
        """Link an object file (a path, or its bytes) at once, as a unit of its own."""
        if isinstance(obj, (str, os.PathLike)):
            with open(obj, "rb") as f:
                obj = f.read()
        with self._lock:
            self._load([("object.o", bytes(obj))], ())

    def remove_module(self, module):
        """Forget a module. Its unit is unloaded once all its modules are removed and no
        other unit is bound to it (objrt_unit_dependants() == 0)."""
        with self._lock:
            key = _module_key(module)
            if key not in self._modules:
                raise KeyError(module)
            _, rec = self._modules.pop(key)
            if module in self._pending:
                self._pending.remove(module)
                return
            if rec is None:
                return
            rec.modules.discard(key)
            if not rec.modules:
                self._retired.append(rec)
                self._collect()

    def _collect(self):
        if self._loading:
            return                  # never unload under a load in progress (resolver, GC)
        changed = True
        while changed:
            changed = False
            for rec in list(self._retired):
                if rec.unit.dependants == 0 and not rec.pins:
                    self._retired.remove(rec)
                    self.units.remove(rec)
                    del self._by_handle[rec.unit._h]
                    rec.unit.unload()
                    totals.unloaded += 1
                    changed = True

    def _uses_own(self, rec, names):
        for name, weak in names:
            if not weak:
                return True
            try:
                own = rec.unit.address(name)
            except LinkError:
                continue            # a later weak copy: the unit binds to the first one
            if self._record_at(own) is rec:
                return True
        return False

    def _record_at(self, addr):
        with self._lock:
            if not self.units or _lib.objrt_addr_info(
                    self._ctx._handle(), addr, ctypes.byref(self._loc)) != 0:
                return None
            return self._by_handle.get(self._loc.unit)

    def _unpin(self, rec):
        with self._lock:
            rec.pins -= 1
            # At interpreter exit (atexit ran; later this module's globals are None), objects
            # still alive may call pinned code from their destructors: nothing is unloaded.
            if not rec.pins and rec in self._retired and _exiting == []:
                self._collect()

    # -- compiling and linking -------------------------------------------------------------
    def set_object_cache(self, notify_func=None, getbuffer_func=None):
        """notify_func(module, bytes) receives each object emitted; getbuffer_func(module)
        may return object bytes to load instead of compiling the module."""
        self._notify = notify_func
        self._getbuffer = getbuffer_func

    def _object_of(self, module):
        """The module's object: from the cache hook, else emitted (and given to notify),
        as MCJIT does for every module it finalizes."""
        buf = self._getbuffer(module) if self._getbuffer else None
        if buf is None:
            buf = self._tm.emit_object(module)
            if self._notify:
                self._notify(module, buf)
        return bytes(buf)

    def finalize_object(self):
        """Emit (or take from the object cache) every module added since the last call and
        link them as one unit. A module numba restores from its cache is empty: its code
        comes only from the getbuffer hook. An object that defines nothing (a module of
        declarations only) is not linked."""
        with self._lock:
            if not self._pending:
                return
            pending, self._pending = self._pending, []
            inputs, mods, undefined = [], [], []
            kept = []
            for m in pending:
                buf = self._object_of(m)
                # Whether a module defines anything is read from its object's symbol
                # table, not asked of the module: llvmlite answers one call per function.
                defines, names = scan_symbols(buf)
                if defines:
                    inputs.append(("%s.o" % (m.name or "module"), buf))
                    mods.append(m)
                    undefined.extend(names)
                    if self._keep:
                        kept.extend(self._keep(buf))
            if inputs:
                rec = self._load(inputs, mods, undefined)
                if kept and self._uses_own(rec, kept):
                    rec.pins += 1   # never released: the unit stays for the engine's life
                    self.kept += 1

    def _bind_explicit(self, names):
        # MCJIT asks llvmlite's symbol table (add_symbol) before the process: numba maps
        # PyExc_StopIteration and friends to the exception objects, while the process
        # exports variables of those names that point to them. objrt consults the host
        # before its resolver, so the names the object leaves undefined are defined first.
        # Each name is asked once until llvmlite's table changes (_watch_table).
        changes = _table_changes[0]         # read before asking: a change meanwhile counts
        if changes != self._asked_as_of:
            self._asked, self._asked_as_of = set(), changes
        for name in names:
            if name in self._asked:
                continue
            addr = _llvm.address_of_symbol(name)
            if addr:
                self._ctx.define(name, addr)
                self._explicit.add(name)
            self._asked.add(name)

    def _load(self, inputs, mods, undefined=None):
        if undefined is None:
            undefined = [n for _, buf in inputs for n in undefined_names(buf)]
        self._bind_explicit(undefined)
        self._loading = True
        try:
            unit = self._ctx.load(*inputs)
        finally:
            self._loading = False
        keys = [_module_key(m) for m in mods]
        rec = _Record(unit, keys)
        for m, key in zip(mods, keys):
            self._modules[key] = (m, rec)
        self.units.append(rec)
        self._by_handle[unit._h] = rec
        s = self._stats
        _lib.objrt_unit_stats(unit._h, ctypes.byref(s))    # three counters, not a Stats
        totals.units += 1
        totals.relocations += s.relocations
        totals.reserved_bytes += s.reserved_bytes
        totals.used_bytes += s.used_bytes
        self._collect()             # removals that arrived during the load
        return rec

    # -- symbols ------------------------------------------------------------------------
    def add_global_mapping(self, gv, addr):
        """Bind the global value `gv` (an llvmlite ValueRef or a name) to `addr` for the
        modules linked after this call."""
        self._ctx.define(gv if isinstance(gv, str) else gv.name, addr)

    def get_function_address(self, name):
        """Address of a linked function or global, 0 when nothing defines it (MCJIT
        aborts the process instead). Pending modules are finalized first when one of them
        defines the name."""
        with self._lock:
            addr = self._ctx.sym(name)
            if not addr and self._pending_defines(name):
                self.finalize_object()
                addr = self._ctx.sym(name)
            return addr or 0

    def defines(self, name):
        """True when a module added to this engine defines `name` (a function or global
        with a body or initialiser; a linked one, a global symbol of its unit) or
        add_global_mapping() gave it an address. What numba's JitEngine.is_symbol_defined
        answers from the modules it saw."""
        with self._lock:
            if name not in self._explicit and self._ctx.sym(name):
                return True
            return self._pending_defines(name)

    def _pending_defines(self, name):
        # Like MCJIT, compile pending modules only when one of them defines the name: a
        # lookup must not finalize a module that is still being set up (global mappings).
        for m in self._pending:
            for get in (m.get_function, m.get_global_variable):
                try:
                    if not get(name).is_declaration:
                        return True
                except NameError:
                    pass
        return False

    get_global_value_address = get_function_address

    def get_module_address(self, module, name):
        """Address of `name` as `module`'s unit sees it: its own definition, else the one
        it was bound to. 0 when none."""
        with self._lock:
            if module in self._pending:
                self.finalize_object()
            rec = self._modules.get(_module_key(module), (None, None))[1]
            if rec is not None:
                try:
                    return rec.unit.address(name)
                except LinkError:
                    pass
            return self._ctx.sym(name) or 0

    # -- the rest of llvmlite's surface -----------------------------------------------------
    @property
    def target_data(self):
        """The target machine's TargetData (llvmlite.binding.TargetData)."""
        if self._td is None:
            self._td = self._tm.target_data
        return self._td

    @property
    def context(self):
        """The objrt.Context the units are loaded into."""
        return self._ctx

    def enable_jit_events(self):
        """Name loaded functions for `perf` (/tmp/perf-<pid>.map, objrt's OBJRT_PERF_MAP)."""
        os.environ["OBJRT_PERF_MAP"] = "1"
        return True

    def run_static_constructors(self):
        """Nothing to do: objrt runs a unit's constructors when it loads it."""

    def run_static_destructors(self):
        """Nothing to do: objrt runs a unit's destructors when it unloads it."""

    def close(self):
        """Unload every unit of the engine."""
        with self._lock:
            self._pending.clear()
            self._modules.clear()
            self._retired.clear()
            self.units.clear()
            self._by_handle.clear()
            self._ctx.close()


def create_mcjit_compiler(module, target_machine):
    """Drop-in for llvmlite.binding.create_mcjit_compiler returning an objrt engine."""
    return ExecutionEngine(target_machine, module)

"""numba on objrt: numba's CPU target compiles through objrt.llvm.ExecutionEngine.

    import objrt.numba
    objrt.numba.enable()            # before numba compiles anything
    import numba
    ...

or run a program unchanged: ``python3 -m objrt.numba [--stats] (-m MODULE | SCRIPT) [ARG...]``.

enable() replaces MCJIT where numba creates it (numba.core.codegen.CPUCodegen._init, for the
JIT codegen only; AOT compilation is untouched). When numba frees a code library (its
dispatcher and overloads are gone), the library's unit is unloaded unless another unit is
bound to it (then it goes when that one does). OBJRT_NUMBA_UNLOAD=0 keeps every unit, as
MCJIT does. At interpreter exit nothing is unloaded any more: objects still alive may call
their code from destructors.
"""
import atexit
import functools
import os
import weakref

from .. import llvm as _objrt_llvm

__all__ = ["enable", "enabled", "stats_line"]

_state = {"enabled": False, "exiting": False}


def _stop_unloading():
    _state["exiting"] = True


def _make_engine_class(codegen):
    class ObjrtJitEngine(codegen.JitEngine):
        """numba's JitEngine (symbol tracking) over an objrt engine instead of MCJIT."""

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


def enable():
    """Make numba's CPU JIT link through objrt from now on. Idempotent. Code numba compiled
    before the call stays with MCJIT (enable first: ``python3 -m objrt.numba`` does)."""
    if _state["enabled"]:
        return
    import llvmlite.binding as ll
    from numba.core import codegen, config

    engine_class = _make_engine_class(codegen)
    unload = os.environ.get("OBJRT_NUMBA_UNLOAD", "1") != "0"

    def _init(self, llvm_module):
        # numba 0.56's CPUCodegen._init with objrt's engine in place of MCJIT.
        assert list(llvm_module.global_variables) == [], "Module isn't empty"
        target = ll.Target.from_triple(ll.get_process_triple())
        tm_options = dict(opt=config.OPT)
        self._tm_features = self._customize_tm_features()
        self._customize_tm_options(tm_options)
        tm = target.create_target_machine(**tm_options)
        engine = _objrt_llvm.ExecutionEngine(tm, llvm_module)
        if config.ENABLE_PROFILING:
            engine.enable_jit_events()
        self._tm = tm
        self._engine = engine_class(engine)
        self._target_data = engine.target_data
        self._data_layout = str(self._target_data)
        self._mpm_cheap = self._module_pass_manager(loop_vectorize=False,
                                                    slp_vectorize=False, opt=0, cost="cheap")
        self._mpm_full = self._module_pass_manager()
        self._engine.set_object_cache(self._library_class._object_compiled_hook,
                                      self._library_class._object_getbuffer_hook)

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
        return ee._ee.get_module_address(self._final_module, name)

    codegen.JITCPUCodegen._init = _init
    codegen.JITCPUCodegen._add_module = _add_module
    codegen.JITCodeLibrary.get_pointer_to_function = get_pointer_to_function
    # atexit runs handlers last-registered first: make sure weakref.finalize's exit hook
    # is registered, then register ours after it so it runs before the finalizers do.
    weakref.finalize(enable, lambda: None).atexit = False
    atexit.register(_stop_unloading)
    _state["enabled"] = True


def enabled():
    """True once enable() ran."""
    return _state["enabled"]


def stats_line():
    """The --stats line: totals over every unit objrt linked for numba in this process."""
    return _objrt_llvm.totals.line("objrt.numba")

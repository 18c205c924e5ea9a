"""numba's per-function optimization without its runs on declarations.

numba (0.61 on, llvmlite's new pass manager) optimizes each module function by function
before linking it (CPUCodeLibrary._optimize_functions), with a new PassBuilder for every
function of the module, declarations included: a small jitted function's modules have 3
bodies and 30 declarations. Running passes on a declaration changes nothing, but every
PassBuilder llvmlite creates keeps memory after it is disposed (LLVMPY_CreatePassBuilder's
PassInstrumentationCallbacks is never freed: about 18 KiB each with numba 0.65). So the
runs on declarations are left out; the bodies get exactly numba's passes.
"""
import functools


class _Bodies:
    """A module as numba's _optimize_functions sees it: its functions with a body only."""

    def __init__(self, module):
        object.__setattr__(self, "_module", module)

    def __getattr__(self, name):
        return getattr(self._module, name)

    def __setattr__(self, name, value):
        setattr(self._module, name, value)

    @property
    def functions(self):
        return (f for f in self._module.functions if not f.is_declaration)


def skip_declarations(codegen):
    """Wrap numba's CPUCodeLibrary._optimize_functions (new pass manager releases only)."""
    lib = codegen.CPUCodeLibrary
    if not hasattr(codegen.CPUCodegen, "_pass_builder") or not hasattr(lib, "_optimize_functions"):
        return                  # numba 0.56: the legacy pass manager, one per library
    numba_own = lib._optimize_functions

    @functools.wraps(numba_own)
    def _optimize_functions(self, ll_module):
        numba_own(self, _Bodies(ll_module))

    lib._optimize_functions = _optimize_functions

"""What numba_bench.py (its compile, memory and engine measurements) and engine_replay.py
share: the distinct small functions they compile, numba's final LLVM modules of them, and
the two engines the `engine` measurement drives, so the replay under callgrind measures
exactly what the benchmark times. Import it after objrt.numba.enable() where the process
runs numba on objrt: it imports numba."""
import re
import warnings

import numba
import llvmlite.binding as ll
from numba.core import codegen, config


def make(i):
    # A distinct small function each time (a different constant: no cache hit).
    ns = {}
    exec("def f(x):\n    s = 0\n    for k in range(x):\n        s += k * %d + %d\n    return s\n"
         % (i % 7 + 1, i), ns)
    return numba.njit(ns["f"])


def final_modules(n):
    """numba's final LLVM IR (text) of n small functions, each compiled and called once,
    after a warm-up function whose modules are left out; and each module's entry name."""
    irs = []
    real_add = codegen.JITCPUCodegen._add_module

    def capture(self, module):
        irs.append(str(module))
        return real_add(self, module)
    codegen.JITCPUCodegen._add_module = capture
    try:
        make(-1)(3)
        del irs[:]
        for i in range(n):
            make(i)(10)
    finally:
        codegen.JITCPUCodegen._add_module = real_add
    return irs


def entry_names(irs):
    return [re.search(r'define [^@]*@"?([^"(]+)"?\(', ir).group(1) for ir in irs]


def engines(label):
    """numba's own MCJIT set-up, the same through objrt.numba (enabled here, late on
    purpose: the MCJIT one is made first), and a bare target machine with numba's options
    for emit_object alone."""
    import objrt.numba as objrt_numba
    mc = codegen.JITCPUCodegen(label + "-mcjit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        objrt_numba.enable()
    ob = codegen.JITCPUCodegen(label + "-objrt")
    opts = dict(opt=config.OPT)
    mc._customize_tm_options(opts)
    tm = ll.Target.from_triple(ll.get_process_triple()).create_target_machine(**opts)
    return mc, ob, tm

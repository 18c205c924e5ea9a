"""The `engine` measurement of numba_bench.py, replayed for callgrind (engine_callgrind.sh):
    python3 engine_replay.py dump N FILE          numba's final modules of N functions, to FILE
    python3 engine_replay.py replay N FILE WHICH MARKS  each module linked by WHICH (emit,
                                                  mcjit or objrt) inside a call of MARKS (the
                                                  compiled engine_marks.c)
objrt's region also removes the module and frees it, as when numba drops a function."""
import ctypes
import json
import sys

import llvmlite.binding as ll

from engine_modules import engines, entry_names, final_modules

mode, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]


if mode == "dump":
    irs = final_modules(n)
    with open(path, "w") as f:
        json.dump(irs, f)
    sys.exit(0)

with open(path) as f:
    irs = json.load(f)[:n + 1]
names = entry_names(irs)
mc, ob, tm = engines("replay")
# numba's runtime library stays loaded in both engines, and each engine and the bare target
# machine has run once before the first region: callgrind sums, and a first use's set-up
# would land in one engine's count.
for ee in (ob._engine, mc._engine):
    ee.add_module(ll.parse_assembly(irs[-1]))
    ee.finalize_object()
tm.emit_object(ll.parse_assembly(irs[-1]))
marks = ctypes.CDLL(sys.argv[5])
cur = {}


def emit():
    tm.emit_object(cur["m"])


def mcjit():
    m, name = cur["m"], cur["name"]
    mc._engine.add_module(m)
    mc._engine.finalize_object()
    cur["addr"] = mc._engine.get_function_address(name) and mc._engine.get_function_address(name)


def objrt():
    m, name = cur.pop("m"), cur["name"]
    ee = ob._engine
    ee.add_module(m)
    ee.finalize_object()
    cur["addr"] = ee._ee.get_module_address(m, name) and ee._ee.get_module_address(m, name)
    ee.remove_module(m)
    del m                                               # the module's last reference


which = sys.argv[4]
region = ctypes.CFUNCTYPE(None)({"emit": emit, "mcjit": mcjit, "objrt": objrt}[which])
mark = getattr(marks, "mark_" + which)
linked = 0
for i in range(len(irs) - 1):
    cur.update(m=ll.parse_assembly(irs[i]), name=names[i])
    mark(region)
    linked += bool(cur.pop("addr", 1))
    cur.clear()
if linked != len(irs) - 1:
    sys.exit("engine_replay: %d of %d modules linked" % (linked, len(irs) - 1))

"""Compare two numba_run.py results: python3 numba_compare.py NAME MCJIT.json OBJRT.json STATS
Prints PASS when every test has the same outcome under both JITs, the MCJIT run used MCJIT,
the objrt run used none, and the --stats line (in file STATS) shows units linked."""
import json
import re
import sys

name, mc_path, ob_path, stats_path = sys.argv[1:5]
mc, ob = json.load(open(mc_path)), json.load(open(ob_path))
why = []
if mc.pop("_mcjit_engines") == 0:
    why.append("the MCJIT run created no MCJIT engine")
if ob.pop("_mcjit_engines") != 0:
    why.append("the objrt run created an MCJIT engine")
if not mc:
    why.append("no test ran")
diff = sorted(t for t in set(mc) | set(ob) if mc.get(t) != ob.get(t))
if diff:
    why.append("%d outcomes differ, e.g. %s" % (len(diff), "; ".join(
        "%s: MCJIT %s, objrt %s" % (t.split(".")[-1], mc.get(t), ob.get(t)) for t in diff[:3])))
m = re.search(r"^objrt\.numba: units=(\d+) relocations=(\d+) reserved_bytes=(\d+) "
              r"used_bytes=(\d+) unloaded=(\d+)$", open(stats_path).read(), re.M)
if not m or int(m.group(1)) == 0:
    why.append("no --stats line with units > 0")
if why:
    print("FAIL %s: %s" % (name, "; ".join(why)))
else:
    n_ok = sum(v == "ok" for v in mc.values())
    print("PASS %s: %d tests (%d ok) same as MCJIT; %s" % (name, len(mc), n_ok, m.group(0)))

"""Compare two numba_run.py results.
    python3 numba_compare.py NAME MCJIT.json OBJRT.json STATS [PREFIX]
Prints PASS when every test (whose id starts with PREFIX, if given) has the same outcome
under both JITs, the MCJIT run used MCJIT, the objrt run used none, and the --stats line (in
file STATS) shows units linked.
    python3 numba_compare.py --full MODULE PREFIX MCJIT_S OBJRT_S RELEASE VERSION KNOWN
One line of `make check-numba-full`'s table (tests/python/numba_full.sh) from PREFIX.mcjit.json,
PREFIX.objrt.json, their .rc and .log files: each run's tests, failures, errors and skips and
its seconds, then "same", "KNOWN: reason" (a module listed in the file KNOWN for this release)
or "DIFFERS: ..."."""
import json
import os
import re
import sys

STATS = (r"^objrt\.numba: units=(\d+) relocations=(\d+) reserved_bytes=(\d+) "
         r"used_bytes=(\d+) unloaded=(\d+)$")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def pair():
    name, mc_path, ob_path, stats_path = sys.argv[1:5]
    prefix = sys.argv[5] if len(sys.argv) > 5 else ""
    mc, ob = json.load(open(mc_path)), json.load(open(ob_path))
    why = []
    if mc.pop("_mcjit_engines") == 0:
        why.append("the MCJIT run created no MCJIT engine")
    if ob.pop("_mcjit_engines") != 0:
        why.append("the objrt run created an MCJIT engine")
    # PREFIX "numba.tests.NAME.": NAME's tests, or the one test NAME names
    mine = (lambda t: t.startswith(prefix) or t + "." == prefix) if prefix else (lambda t: True)
    mc = {t: v for t, v in mc.items() if mine(t)}
    ob = {t: v for t, v in ob.items() if mine(t)}
    if not mc:
        why.append("no test ran")
    diff = sorted(t for t in set(mc) | set(ob) if mc.get(t) != ob.get(t))
    if diff:
        why.append("%d outcomes differ, e.g. %s" % (len(diff), "; ".join(
            "%s: MCJIT %s, objrt %s" % (t.split(".")[-1], mc.get(t), ob.get(t)) for t in diff[:3])))
    m = re.search(STATS, open(stats_path).read(), re.M)
    if not m or int(m.group(1)) == 0:
        why.append("no --stats line with units > 0")
    if why:
        print("FAIL %s: %s" % (name, "; ".join(why)))
    else:
        n_ok = sum(v == "ok" for v in mc.values())
        print("PASS %s: %d tests (%d ok) same as MCJIT; %s" % (name, len(mc), n_ok, m.group(0)))


def known_reason(path, release, version, module):
    """The reason KNOWN gives for MODULE on this release: lines 'RELEASES MODULE REASON',
    RELEASES a comma-separated list of numba releases (0.56, 0.61, 0.65) or 'any'."""
    rel = re.search(r"numba (\d+\.\d+)", version)
    rel = rel.group(1) if rel else release
    arch = "arm64" if "aarch64" in version else "x86_64"
    for line in open(path):
        parts = line.split(None, 2)
        if len(parts) < 3 or line.startswith("#") or parts[1] != module:
            continue
        for r in parts[0].split(","):
            if r == "any" or r == rel or r == "%s/%s" % (rel, arch):
                return parts[2].strip()
    return None


def run_summary(prefix, jit, seconds):
    """(outcomes or None, 'tests/F/E/skip s' text) of one run."""
    d = load("%s.%s.json" % (prefix, jit))
    rc = open("%s.%s.rc" % (prefix, jit)).read().strip() if os.path.exists(
        "%s.%s.rc" % (prefix, jit)) else "?"
    if d is None:
        how = {"124": "timeout", "137": "killed"}.get(rc, "exit %s" % rc)
        if rc.isdigit() and int(rc) > 128 and rc not in ("124", "137"):
            how = "signal %d" % (int(rc) - 128)
        return None, "died (%s) %ss" % (how, seconds)
    d.pop("_mcjit_engines", None)
    v = list(d.values())
    return d, "%d/%d/%d/%d %ss" % (len(v), v.count("fail") + v.count("xpass"), v.count("error"),
                                   v.count("skip"), seconds)


def full():
    module, prefix, mc_s, ob_s, release, version, known = sys.argv[2:9]
    mc, mc_text = run_summary(prefix, "mcjit", mc_s)
    ob, ob_text = run_summary(prefix, "objrt", ob_s)
    log = open(prefix + ".objrt.log", errors="replace").read() if os.path.exists(
        prefix + ".objrt.log") else ""
    stats = re.search(STATS, log, re.M)
    if mc is None and ob is None:
        same = mc_text.split("(")[1].split(")")[0] == ob_text.split("(")[1].split(")")[0]
        why = None if same else "both died, differently"
    elif mc is None or ob is None:
        why = "MCJIT run %s, objrt run %s" % ("died" if mc is None else "finished",
                                               "died" if ob is None else "finished")
    else:
        diff = sorted(t for t in set(mc) | set(ob) if mc.get(t) != ob.get(t))
        why = None
        if diff:
            why = "%d outcomes differ, e.g. %s" % (len(diff), "; ".join(
                "%s: MCJIT %s, objrt %s" % (t.split(".")[-1], mc.get(t), ob.get(t))
                for t in diff[:2]))
        elif mc and (not stats or int(stats.group(1)) == 0):
            why = "objrt linked no unit (no --stats line with units > 0)"
    reason = known_reason(known, release, version, module)
    if why is None:
        out = "same" + (" (listed as known, not needed: %s)" % reason if reason else "")
    elif reason:
        out = "KNOWN: %s (%s)" % (reason, why)
    else:
        out = "DIFFERS: " + why
    print("%-44s %-28s %-28s %s" % (module, mc_text, ob_text, out))


if __name__ == "__main__":
    full() if sys.argv[1] == "--full" else pair()

#!/usr/bin/env bash
# bench/python/run.sh BUILD - numba on objrt (objrt.numba) vs numba on MCJIT, same machine,
# same run. Every measurement is a fresh python3 process; the two JITs alternate in
# ROUNDS rounds (order swapped each round); medians are printed with the load average.
#   compile   compile + first call of 200 small jitted functions
#   memory    1000 jitted functions compiled, called and dropped: RSS growth
#   speed     a numba kernel (mandelbrot) and a reduction, per call
#   engine    one process, both JITs: the final modules of COMPILE_N small functions each
#             linked by numba's MCJIT engine and by objrt's, interleaved module by module;
#             medians of what each costs per module beyond emitting the object
#   leak      llvmlite >= 0.44 only (bench/python/passbuilder_leak.py): what its new pass
#             manager keeps per PassBuilder and per numba function, whichever JIT links
#   where     (bench/python/numba_memory.py) one compile-and-drop cycle's growth per JIT, split:
#             Python objects, llvmlite PassBuilders (their count), the rest of malloc
#   mapped    objrt only: MAPPED_N jitted functions kept: bytes mapped per small unit vs its
#             content, small units sharing pages (the Python default) and not (OBJRT_PACK=0)
# Then the same with Debian 13's numba 0.61 and sid's 0.65 in the roots scripts/numba-root.sh
# builds (chroot; BENCH_PY_ROOT=trixie or sid runs only that, BENCH_PY_ROOT=host only the
# host's numba).
# Env: ROUNDS (default 5), COMPILE_N (200), MEMORY_N (1000), MEMORY_ROUNDS (1), MAPPED_N (1000).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
[ "$(uname -m)" = x86_64 ] || { echo "bench/python: x86_64 only (no Python for other targets here)"; exit 0; }
if [ -z "${BENCH_PY_ROOT:-}" ]; then
    BENCH_PY_ROOT=host bash "$0" "$BUILD" || exit 1
    echo
    BENCH_PY_ROOT=trixie bash "$0" "$BUILD" || exit 1
    echo
    BENCH_PY_ROOT=sid exec bash "$0" "$BUILD"
fi
export OBJRT_LIBRARY=$BUILD/libobjrt.so PYTHONPATH=$ROOT/python
PY=/usr/bin/python3
BENCH=$ROOT/bench/python/numba_bench.py
LEAK=$ROOT/bench/python/passbuilder_leak.py
MEM=$ROOT/bench/python/numba_memory.py
pyrun() { "$PY" "$@"; }
if [ "$BENCH_PY_ROOT" != host ]; then
    # The checkout's package, the benchmark and the library copied into the root (no mounts).
    R=$(bash "$ROOT/scripts/numba-root.sh" "$BENCH_PY_ROOT") || { echo "bench/python: no $BENCH_PY_ROOT root" >&2; exit 1; }
    W=$(mktemp -d "$R/tmp/objrt-bench-src.XXXXXX"); W=${W#"$R"}
    cp -r "$ROOT/python" "$R$W/" && cp "$BENCH" "$LEAK" "$MEM" "$ROOT/bench/python/engine_modules.py" "$R$W/" && cp -P "$BUILD"/libobjrt.so* "$R$W/"
    BENCH=$W/numba_bench.py LEAK=$W/passbuilder_leak.py MEM=$W/numba_memory.py
    # /proc (RSS) mounted in a mount namespace of the run's own: gone when it ends.
    pyrun() { unshare -m sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$R" \
        env PYTHONPATH="$W/python" OBJRT_LIBRARY="$W/libobjrt.so" \
        ${OBJRT_PACK:+OBJRT_PACK=$OBJRT_PACK} python3 "$@"; }
fi
ROUNDS=${ROUNDS:-5}; COMPILE_N=${COMPILE_N:-200}; MEMORY_N=${MEMORY_N:-1000}
MEMORY_ROUNDS=${MEMORY_ROUNDS:-1}; MAPPED_N=${MAPPED_N:-1000}
OUT=$(mktemp -d /tmp/objrt-bench-python.XXXXXX)
trap 'rm -rf "$OUT" ${W:+"$R$W"}' EXIT
NUMBA_VERSION=$(pyrun -c 'import numba, llvmlite; print(numba.__version__, "/ llvmlite", llvmlite.__version__)')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if ! why=$(pyrun -c 'import objrt.numba; objrt.numba.enable()' 2>&1); then
    echo "bench/python: numba $NUMBA_VERSION: objrt.numba refuses it, not measured: $(echo "$why" | tail -n 1)"
    exit 0
fi

run() {   # run WHAT N ROUNDS: alternate the JITs, one JSON line per process
    local what=$1 n=$2 rounds=$3 r
    for r in $(seq "$rounds"); do
        if [ $((r % 2)) -eq 1 ]; then order="objrt mcjit"; else order="mcjit objrt"; fi
        for jit in $order; do
            pyrun "$BENCH" "$jit" "$what" "$n" >>"$OUT/$what.jsonl" 2>"$OUT/err" \
                || { echo "bench/python: $jit $what failed: $(tail -n 2 "$OUT/err")" >&2; return 1; }
        done
    done
}
run compile "$COMPILE_N" "$ROUNDS" && run speed 0 "$ROUNDS" && run memory "$MEMORY_N" "$MEMORY_ROUNDS" || exit 1
pyrun "$BENCH" mcjit engine "$COMPILE_N" >"$OUT/engine.json" 2>"$OUT/err" \
    || { echo "bench/python: engine failed: $(tail -n 2 "$OUT/err")" >&2; exit 1; }
for pack in 1 0; do
    OBJRT_PACK=$pack pyrun "$BENCH" objrt mapped "$MAPPED_N" >"$OUT/mapped$pack.json" 2>"$OUT/err" \
        || { echo "bench/python: objrt mapped (OBJRT_PACK=$pack) failed: $(tail -n 2 "$OUT/err")" >&2; exit 1; }
done
# llvmlite's new pass manager (0.44 on) keeps memory per PassBuilder, whichever JIT links.
if pyrun -c 'import llvmlite.binding as ll; ll.create_pass_builder' 2>/dev/null; then
    pyrun "$LEAK" 100 >"$OUT/leak.json" 2>"$OUT/err" \
        || { echo "bench/python: passbuilder_leak failed: $(tail -n 2 "$OUT/err")" >&2; exit 1; }
fi
for jit in objrt mcjit; do
    pyrun "$MEM" "$jit" 100 >"$OUT/where-$jit.json" 2>"$OUT/err" \
        || { echo "bench/python: numba_memory $jit failed: $(tail -n 2 "$OUT/err")" >&2; exit 1; }
done

"$PY" - "$OUT" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$COMPILE_N" "$MEMORY_N" "$NUMBA_VERSION" <<'PYEOF'
import json, statistics, sys
out, load0, load1, cn, mn, version = sys.argv[1:7]
def rows(what):
    return [json.loads(l) for l in open("%s/%s.jsonl" % (out, what))]
def med(what, jit, key):
    return statistics.median(r[key] for r in rows(what) if r["jit"] == jit)
print("numba %s on objrt vs MCJIT (median of fresh processes, load average %s at start, %s at end)"
      % (version, load0, load1))
print("| measurement | objrt | MCJIT | objrt/MCJIT |")
print("|---|---|---|---|")
for what, key, label, unit in (("compile", "ms", "compile + first call of %s functions, wall" % cn, "ms"),
                               ("compile", "cpu_ms", "the same, process CPU time", "ms"),
                               ("speed", "mandel_us", "mandelbrot 200x200x100, CPU per call", "us"),
                               ("speed", "reduce_us", "sum of sqrt over 1e6 float64, CPU per call", "us"),
                               ("memory", "rss_growth_kib", "RSS growth, %s functions compiled and dropped" % mn, "KiB")):
    o, m = med(what, "objrt", key), med(what, "mcjit", key)
    print("| %s | %.0f %s | %.0f %s | %.2f |" % (label, o, unit, m, unit, o / m if m else float("nan")))
e = json.load(open("%s/engine.json" % out))
print("| link work per module beyond emitting its object (%d modules, one process, interleaved) "
      "| %.0f us | %.0f us | %.2f |" % (e["modules"], e["objrt_beyond_us"], e["mcjit_beyond_us"],
                                       e["objrt_beyond_us"] / e["mcjit_beyond_us"]))
print("| the same with the emission (bare emit_object: %.0f us) | %.0f us | %.0f us | %.2f |"
      % (e["emit_us"], e["objrt_us"], e["mcjit_us"], e["objrt_us"] / e["mcjit_us"]))
if e["linked"] != 2 * e["modules"]:
    print("bench/python: engine: %d of %d lookups found the function"
          % (e["linked"], 2 * e["modules"]))
    sys.exit(1)
mem = [r for r in rows("memory") if r["jit"] == "objrt"][-1]
print("objrt memory run: %d units linked, %d unloaded" % (mem["units"], mem["unloaded"]))
for pack, label in (("1", "small units sharing pages"), ("0", "each unit on its own pages (OBJRT_PACK=0)")):
    m = json.load(open("%s/mapped%s.json" % (out, pack)))
    print("objrt, %d jitted functions kept, %s: %.0f bytes mapped per unit for %.0f bytes of content (%.2fx)"
          % (m["units"], label, m["mapped_per_unit"], m["content_per_unit"],
             m["mapped_per_unit"] / m["content_per_unit"]))
try:
    k = json.load(open("%s/leak.json" % out))
    print("llvmlite %s: numba creates %.0f PassBuilders per function; each, run once and dropped, "
          "keeps %.1f KiB of malloc'd memory (LLVMPY_CreatePassBuilder's "
          "PassInstrumentationCallbacks are never freed); a function compiled, called and "
          "dropped keeps %.0f KiB (MCJIT)" % (k["llvmlite"], k["pass_builders_per_function"],
          k["bytes_kept_per_pass_builder"] / 1024, k["bytes_kept_per_function"] / 1024))
except FileNotFoundError:
    pass
for jit in ("objrt", "mcjit"):
    w = json.load(open("%s/where-%s.json" % (out, jit)))
    print("%s, one compile-and-drop cycle (%d): %.0f KiB RSS, %.0f KiB malloc'd, of which Python "
          "objects %.1f KiB; %g PassBuilders (%g function, %g module)"
          % (jit, w["n"], w["rss_kib"], w["malloc_kib"], w["python_kib"],
             sum(w["pass_builders"].values()), w["pass_builders"]["function"],
             w["pass_builders"]["module"]))
checks = {(r["what"], r["jit"]): r.get("check") for w in ("compile", "speed") for r in rows(w)}
bad = [w for w in ("compile", "speed") if checks[(w, "objrt")] != checks[(w, "mcjit")]]
if bad:
    print("bench/python: results differ between objrt and MCJIT in: " + ", ".join(bad))
    sys.exit(1)
PYEOF

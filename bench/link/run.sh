#!/usr/bin/env bash
# bench/link/run.sh BUILD - link-time benchmark: objrt vs LLVM 14 RuntimeDyld vs dlopen.
#
# Input sets (x86_64 Debian static libraries, members extracted with `ar x`, every member
# given explicitly so both in-process linkers link exactly the same objects):
#   sqlite   /usr/lib/<triplet>/libsqlite3.a   vs dlopen("libsqlite3.so.0")
#   lua      /usr/lib/<triplet>/liblua5.4.a    vs dlopen("liblua5.4.so.0")
# Measurements, all in the same run:
#   objrt_link   in-process, files read into memory first, objrt_load_memory (+ unload)
#   rtdyld_link  in-process, same files, fresh RuntimeDyld + SectionMemoryManager per rep
#   dlopen_link  in-process dlopen+dlclose loop (verified to really unload each time) and
#                the first dlopen of a fresh process, sampled over SAMPLES processes
#   objrt run    link_us of `objrt run --stats` in SAMPLES fresh processes (same inputs
#                plus a one-function entry object), the CLI analogue of the fresh dlopen
# Every harness calls into the linked code afterwards (check.c) to prove it works.
# Env: SAMPLES (fresh-process samples, default 20), BENCH_SECONDS (time budget per
# in-process harness, default 15), BENCH_SETS (default "sqlite lua").
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SAMPLES=${SAMPLES:-20}
SECONDS_PER=${BENCH_SECONDS:-15}
SETS=${BENCH_SETS:-sqlite lua}
CC=${CC:-cc}
CXX=${CXX:-c++}
LLVM_CONFIG=${LLVM_CONFIG:-llvm-config-14}
TRIPLET=$(${CC} -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
LIBDIR=/usr/lib/$TRIPLET
W=$(mktemp -d /tmp/objrt-bench-link.XXXXXX)
trap 'rm -rf "$W"' EXIT
status=0

note() { printf '%s\n' "$*" >&2; }

# ---- build the harnesses ---------------------------------------------------------------
# -fPIC: no copy relocations in the harnesses, so libc data (stdin, stdout, stderr) stays
# in libc, where code linked from non-PIC objects (liolib.o: R_X86_64_PC32 to stdout) can
# reach it; with copy relocations stderr would sit in the harness and stdin in libc, and no
# placement of the unit reaches both.
CFLAGS_B="-fPIC -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I$ROOT/bench/link"
$CC $CFLAGS_B -c "$ROOT/bench/link/check.c" -o "$W/check.o" || exit 1
$CC $CFLAGS_B "$ROOT/bench/link/dlopen_link.c" "$W/check.o" -ldl -o "$W/dlopen_link" || exit 1
have_rtdyld=0
if command -v "$LLVM_CONFIG" >/dev/null; then
    # -isystem: LLVM's headers are not ours to warn about.
    if $CXX -fPIC -O2 -Wall $($LLVM_CONFIG --cxxflags | sed 's/-I/-isystem /g') -I"$ROOT/bench/link" \
            "$ROOT/bench/link/rtdyld_link.cpp" "$W/check.o" -o "$W/rtdyld_link" \
            $($LLVM_CONFIG --ldflags --libs core executionengine runtimedyld object support native) -ldl \
            2>"$W/rtdyld-build.log"; then
        have_rtdyld=1
    else
        note "bench/link: rtdyld_link did not build: $(tail -n 3 "$W/rtdyld-build.log")"; status=1
    fi
else
    note "bench/link: $LLVM_CONFIG not found (llvm-14-dev): RuntimeDyld column skipped"; status=1
fi
have_objrt=0
if [ -f "$BUILD/libobjrt.a" ] &&
   $CC $CFLAGS_B -I"$ROOT/include" "$ROOT/bench/link/objrt_link.c" "$W/check.o" "$BUILD/libobjrt.a" \
       -ldl -lpthread -lm -o "$W/objrt_link" 2>"$W/objrt-build.log"; then
    have_objrt=1
else
    note "bench/link: objrt_link did not build against $BUILD/libobjrt.a: $(tail -n 3 "$W/objrt-build.log" 2>/dev/null)"
    status=1
fi

# ---- helpers ---------------------------------------------------------------------------
# field KEY LINE-PREFIX FILE: value of KEY= on the first line of FILE starting with PREFIX.
field() { grep -m 1 "^$2" "$3" 2>/dev/null | grep -Eo "(^| )$1=[^ ]+" | head -n 1 | sed 's/.*=//'; }

# alloc_relocs OBJ...: relocation entries whose target section is allocated (what a loader
# applies; the same count tests/suites/40-debian-libs.sh compares with --stats).
alloc_relocs() {
    local f total=0 n
    for f in "$@"; do
        n=$( { readelf -SW "$f" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '{ print "S", $1, (NF == 10 ? $7 : "") }'
               readelf -rW "$f" | awk '/^Relocation section/ { print "R", $3, $(NF-1) }'; } |
             awk '$1 == "S" { flags[$2] = $3; next }
                  $1 == "R" { gsub("\047", "", $2); t = $2; sub(/^\.rela?/, "", t)
                              if (flags[t] ~ /A/) n += $3 }
                  END { print n + 0 }')
        total=$((total + n))
    done
    echo "$total"
}

# stats MIN MEDIAN of numbers on stdin, one per line -> "min median"
minmed() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "n/a n/a"; exit }
                           m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                           printf "%.1f %.1f\n", v[1], m }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "n/a" }'; }
ms() { awk -v a="$1" 'BEGIN { if (a + 0 > 0) printf "%.3f", a / 1000; else print "n/a" }'; }

# ---- one input set ---------------------------------------------------------------------
checks=()
FMT='%-7s %7s %7s %15s %15s %8s %9s %9s %8s %11s %8s %15s %15s %8s\n'
rows=()
bench_set() {
    local set=$1 archive=$2 so=$3 check=$4 d="$W/$1"
    if [ ! -f "$archive" ]; then
        note "bench/link: $archive missing (scripts/install-deps.sh installs it)"; status=1; return
    fi
    mkdir -p "$d/members"
    (cd "$d/members" && ar x "$archive")
    local objs=("$d"/members/*.o)
    local n_obj=${#objs[@]} n_rel bytes
    n_rel=$(alloc_relocs "${objs[@]}")
    bytes=$(cat "${objs[@]}" | wc -c)
    note "== $set: $n_obj objects, $n_rel relocations, $bytes bytes ($archive)"

    local r_min=n/a r_med=n/a o_min=n/a o_med=n/a o_rel=n/a r_cpu=n/a o_cpu=n/a
    if [ "$have_rtdyld" = 1 ]; then
        "$W/rtdyld_link" -r 1000 -t "$SECONDS_PER" -c "$check" "${objs[@]}" >"$d/rtdyld.txt" 2>&1 || status=1
        cat "$d/rtdyld.txt" >&2
        r_min=$(field min_us "rtdyld link " "$d/rtdyld.txt"); r_med=$(field median_us "rtdyld link " "$d/rtdyld.txt")
        r_cpu=$(field median_us "rtdyld link-cpu" "$d/rtdyld.txt")
        grep -q '^check=ok' "$d/rtdyld.txt" || { note "bench/link: RuntimeDyld result for $set failed its check"; status=1; }
    fi
    if [ "$have_objrt" = 1 ]; then
        "$W/objrt_link" -r 5000 -t "$SECONDS_PER" -c "$check" "${objs[@]}" >"$d/objrt.txt" 2>&1 || status=1
        cat "$d/objrt.txt" >&2
        o_min=$(field min_us "objrt link " "$d/objrt.txt"); o_med=$(field median_us "objrt link " "$d/objrt.txt")
        o_cpu=$(field median_us "objrt link-cpu" "$d/objrt.txt")
        o_rel=$(field relocations "objrt stats" "$d/objrt.txt")
        grep -q '^check=ok' "$d/objrt.txt" || { note "bench/link: objrt result for $set failed its check"; status=1; }
        [ "${o_rel:-x}" = "$n_rel" ] || note "bench/link: objrt counted relocations=${o_rel:-?}, readelf counts $n_rel"
    fi

    # dlopen: in-process loop (verified unloads) and first dlopen in fresh processes.
    "$W/dlopen_link" -t "$SECONDS_PER" -c "$check" "$so" >"$d/dlopen.txt" 2>&1 || status=1
    cat "$d/dlopen.txt" >&2
    local dl_loop_med dl_fresh dl_fresh_min dl_fresh_med k
    dl_loop_med=$(field median_us "dlopen loop" "$d/dlopen.txt")
    grep -q 'unloaded=yes' "$d/dlopen.txt" || note "bench/link: $so stayed loaded after dlclose: loop numbers are cached"
    dl_fresh=$(for k in $(seq "$SAMPLES"); do "$W/dlopen_link" -1 "$so" | sed -n 's/.*first_us=//p'; done)
    read -r dl_fresh_min dl_fresh_med <<<"$(minmed <<<"$dl_fresh")"

    # objrt run --stats in fresh processes: same members plus an entry object.
    local cli_min=n/a cli_med=n/a
    if [ -x "$BUILD/objrt" ]; then
        printf 'int bench_entry(void) { return 0; }\n' >"$d/entry.c"
        $CC -O2 -c "$d/entry.c" -o "$d/entry.o"
        local samples="" out
        for k in $(seq "$SAMPLES"); do
            out=$("$BUILD/objrt" run -l m -e bench_entry --stats "$d/entry.o" "${objs[@]}" 2>&1 >/dev/null) ||
                { note "bench/link: objrt run failed for $set: $(printf '%s' "$out" | tail -n 2)"; status=1; break; }
            samples+="$(printf '%s' "$out" | sed -n 's/^objrt: link_us=\([^ ]*\) .*/\1/p')"$'\n'
        done
        [ -n "$samples" ] && read -r cli_min cli_med <<<"$(minmed <<<"$(printf '%s' "$samples" | sed '/^$/d')")"
    fi

    rows+=("$(printf "$FMT" "$set" "$n_obj" "$n_rel" \
        "$(ms "$o_med")/$(ms "$o_min")" "$(ms "$r_med")/$(ms "$r_min")" "$(ratio "$r_med" "$o_med")" \
        "$(ms "$o_cpu")" "$(ms "$r_cpu")" "$(ratio "$r_cpu" "$o_cpu")" \
        "$(ms "$dl_loop_med")" "$(ratio "$dl_loop_med" "$o_med")" \
        "$(ms "$cli_med")/$(ms "$cli_min")" "$(ms "$dl_fresh_med")/$(ms "$dl_fresh_min")" \
        "$(ratio "$dl_fresh_med" "$cli_med")")")
    local h
    for h in objrt rtdyld dlopen; do
        [ -f "$d/$h.txt" ] && checks+=("$set/$h: $(grep -m 1 '^check=' "$d/$h.txt" || echo 'check=none (harness failed)')")
    done
    if [ "$r_med" != n/a ] && [ "$o_med" != n/a ]; then
        awk -v r="$r_med" -v o="$o_med" 'BEGIN { exit !(r / o >= 10) }' ||
            note "bench/link: $set: RuntimeDyld/objrt = $(ratio "$r_med" "$o_med") (wall median), below the 10x target"
    fi
}

for set in $SETS; do
    case "$set" in
    sqlite) bench_set sqlite "$LIBDIR/libsqlite3.a" libsqlite3.so.0 sqlite ;;
    lua)    bench_set lua "$LIBDIR/liblua5.4.a" liblua5.4.so.0 lua ;;
    *)      note "bench/link: unknown set '$set'"; status=1 ;;
    esac
done

echo
echo "Link time, milliseconds, median/min ($(uname -m), $(nproc) cores; in-process: files already in memory)"
printf "$FMT" set objects relocs objrt RuntimeDyld RTD/ob objrt-cpu RTD-cpu RTD/ob dlopen-loop dl/ob \
    "objrt-run*" "dlopen-1st*" dl/run
for r in "${rows[@]}"; do printf '%s\n' "$r"; done
echo "objrt, RuntimeDyld: in-process link of the extracted members, wall time median/min over repetitions;"
echo " -cpu: median process CPU time of the same repetitions (less disturbed by other load);"
echo " dlopen-loop: in-process dlopen(RTLD_NOW|RTLD_LOCAL)+dlclose of the .so, median, each dlclose verified."
echo "*fresh process per sample ($SAMPLES samples): objrt-run = link_us of 'objrt run --stats' (its own"
echo " timer), dlopen-1st = first dlopen of the .so in a new process (timed around the call)."
echo "Post-link checks (calls into the linked code, bench/link/check.c):"
for c in "${checks[@]}"; do printf '  %s\n' "$c"; done
echo "Ratios are other/objrt (higher = objrt faster); the RuntimeDyld target is >= 10x."
exit $status

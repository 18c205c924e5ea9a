#!/usr/bin/env bash
# bench/link/ab_fresh.sh ROUNDS OBJRT... -- RUN-ARGS...
#
# A/B of the first load in a new process: every round runs `OBJRT run --stats RUN-ARGS`
# once for each binary, alternating, so the binaries see the same machine load. Per binary:
# min and median of link_us (objrt's own timer around objrt_load) and of the whole process
# (exec to exit, wall time: context creation, -l libraries and exit included), and the
# 1-minute load average before and after. Example, bench/link/run.sh's sqlite set:
#   bench/link/ab_fresh.sh 40 old/objrt build/objrt -- -l m -e bench_entry entry.o members/*.o
set -uo pipefail
[ $# -ge 4 ] || { echo "usage: $0 ROUNDS OBJRT... -- RUN-ARGS..." >&2; exit 2; }
rounds=$1; shift
bins=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do bins+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
[ ${#bins[@]} -ge 1 ] && [ $# -ge 1 ] || { echo "usage: $0 ROUNDS OBJRT... -- RUN-ARGS..." >&2; exit 2; }

W=$(mktemp -d /tmp/objrt-ab-fresh.XXXXXX)
trap 'rm -rf "$W"' EXIT
load0=$(cut -d' ' -f1 /proc/loadavg)
for r in $(seq "$rounds"); do
    for i in "${!bins[@]}"; do
        t0=$(date +%s%N)
        out=$("${bins[$i]}" run --stats "$@" 2>&1 >/dev/null) ||
            { echo "ab_fresh: ${bins[$i]} failed: $(printf '%s' "$out" | tail -n 2)" >&2; exit 1; }
        t1=$(date +%s%N)
        printf '%s\n' "$out" | sed -n 's/^objrt: link_us=\([^ ]*\) .*/\1/p' >>"$W/link.$i"
        echo $(((t1 - t0) / 1000)) >>"$W/proc.$i"
    done
done
load1=$(cut -d' ' -f1 /proc/loadavg)

minmed() { sort -g "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                                  printf "%8.0f %8.0f", v[1], m }'; }
echo "fresh-process A/B, $rounds rounds alternating, load1m $load0-$load1 (us, min and median)"
printf '%-40s %8s %8s   %8s %8s\n' binary link-min link-med proc-min proc-med
for i in "${!bins[@]}"; do
    printf '%-40s %s   %s\n' "${bins[$i]}" "$(minmed "$W/link.$i")" "$(minmed "$W/proc.$i")"
done

#!/usr/bin/env bash
# 67-host: what a host developer hits first (issue 26). gdb on a process whose unit has
# thread-local data or was run with --export-dynamic: glibc lists objrt's in-memory image
# in the link map, gdb opens that name in its own process and must find the same image
# there (a /proc/self name would be one of gdb's own pipes, and gdb would block forever).
# Configs: x86_64: and aarch64: (gdb-multiarch on qemu's gdb server).
# suite-timeout: 900
set -u
. "$ROOT/tests/lib.sh"

case "$TARGET:$SAN" in
    x86_64: | aarch64:) ;;
    *) exit 0 ;;
esac

expect gdb-tls-unit-link-map-name-opens gdb-export-dynamic-unit-link-map-name-opens

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
SRC=$ROOT/tests/host
FX=$TMP/fx
mkdir -p "$FX"

fixture() {   # fixture NAME [FLAGS...]: $FX/NAME.o from $SRC/fixtures/NAME.c
    local name=$1; shift
    $GCC "$@" -c "$SRC/fixtures/$name.c" -o "$FX/$name.o" 2>"$FX/$name.err" ||
        { fail "host-fixture-$name: $(oneline "$(cat "$FX/$name.err")")"; return 1; }
}

# ---- gdb and the link map -------------------------------------------------------------
# gdb_batch CMD... -- PROG ARG...: gdb's output, under a hard kill timeout (a gdb blocked in
# read ignores SIGTERM); the status is timeout's. The command RUN starts the program.
# aarch64: the program runs under qemu's gdb server ($RUN, with its -L) and gdb-multiarch
# reads files from this machine's root (no sysroot), as gdb does natively.
gdb_batch() {
    local cmds=() start=run
    [ "$TARGET" = aarch64 ] && start=continue
    while [ "$1" != -- ]; do
        if [ "$1" = RUN ]; then cmds+=(-ex "$start"); else cmds+=(-ex "$1"); fi
        shift
    done
    shift
    if [ -z "$RUN" ]; then
        timeout -k 5 60 gdb -q -nx -batch "${cmds[@]}" --args "$@" 2>&1
        return
    fi
    local port=$((20000 + RANDOM % 20000)) qpid rc
    # shellcheck disable=SC2086
    $RUN -g "$port" "$@" >/dev/null 2>&1 &
    qpid=$!
    timeout -k 5 60 gdb-multiarch -q -nx -batch -ex 'set sysroot' -ex "target remote :$port" \
        "${cmds[@]}" "$1" 2>&1
    rc=$?
    kill "$qpid" 2>/dev/null
    wait "$qpid" 2>/dev/null
    return $rc
}

# gdb_link_map CASE FIXTURE RUN-ARGS...: stop in the unit, list the link map, run to the end.
gdb_link_map() {
    local name=$1 fx=$2 out rc lib; shift 2
    out=$(gdb_batch 'set breakpoint pending on' 'break stop_here' RUN sharedlibrary 'info sharedlibrary' \
          continue -- "$B/objrt" run "$@" "$FX/$fx.o"); rc=$?
    lib=$(printf '%s\n' "$out" | grep -E '/proc/[^ ]*/fd/[0-9]+$' | head -n 1)
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        fail "$name: gdb hung and was killed ($(status_text $rc)); link map entry: '$lib'"
    elif ! printf '%s\n' "$out" | grep -q '^Breakpoint 1, stop_here'; then
        fail "$name: gdb did not stop in the unit: $(oneline "$out")"
    elif ! printf '%s\n' "$lib" | grep -Eq '/proc/[0-9]+/fd/[0-9]+$'; then
        fail "$name: the in-memory image is not listed as /proc/PID/fd/N: '$lib'"
    elif ! printf '%s\n' "$lib" | grep -Eq '^ +Yes'; then
        fail "$name: gdb listed the image but could not read it: '$lib'"
    elif ! printf '%s\n' "$out" | grep -Eq 'exited with code 06|Inferior 1 .*exited'; then
        fail "$name: the program did not run to its end under gdb: $(oneline "$out")"
    else
        pass "$name (${lib##* })"
    fi
}

GDB=gdb; [ -n "$RUN" ] && GDB=gdb-multiarch
if ! command -v $GDB >/dev/null; then
    fail "gdb-tls-unit-link-map-name-opens: $GDB not installed (scripts/install-deps.sh installs it)"
else
    fixture tls_unit -g -O0 && gdb_link_map gdb-tls-unit-link-map-name-opens tls_unit
    fixture plain_unit -g -O0 &&
        gdb_link_map gdb-export-dynamic-unit-link-map-name-opens plain_unit --export-dynamic
fi
exit 0

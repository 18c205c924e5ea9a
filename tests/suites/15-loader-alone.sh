#!/usr/bin/env bash
# 15-loader-alone: the loader is a library of its own. libobjrt_loader.a (the loader's
# folders, no kernel runtime) holds no runtime object and defines no runtime symbol; a
# host linked against it alone (no -ljansson, which only the runtime needs) loads and runs
# a plain C unit with the result of a native link of the same source. Control: a unit that
# needs the runtime fails to load there, naming the symbol, and loads with libobjrt.a.
# The host is linked here rather than with build_prog, which links libobjrt.a.
set -u
. "$ROOT/tests/lib.sh"
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
D=$ROOT/tests/loader-alone
W=$B/tests/loader-alone
mkdir -p "$W"
expect loader-alone-no-runtime-object loader-alone-host-links loader-alone-runs-plain-unit
expect_harness loader-alone-control-needs-runtime loader-alone-control-loads-with-runtime

defs=$(nm --defined-only -A "$B/libobjrt_loader.a" 2>&1 | grep -E ' [TDBRtdbr] (TVM|objrt_ws_|objrt_parallel_|objrt_tvm_|objrt_graph_)')
members=$(ar t "$B/libobjrt_loader.a" | grep -Ex 'loader_hooks\.o|modules\.o|graph\.o|pool\.o|workspace\.o')
if [ -z "$defs" ] && [ -z "$members" ] && [ -s "$B/libobjrt_loader.a" ]; then pass loader-alone-no-runtime-object
else fail "loader-alone-no-runtime-object: $(printf '%s' "${members:-} ${defs:-$B/libobjrt_loader.a missing or empty}" | tr '\n' ' ' | cut -c1-300)"; fi

# shellcheck disable=SC2046
CFL="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g $(sanflags) -I$ROOT/include"
if $GCC $CFL "$D/host.c" "$B/libobjrt_loader.a" -ldl -lpthread -o "$W/host" 2>"$W/host.log"; then
    pass loader-alone-host-links
else
    fail "loader-alone-host-links: $(grep -m 3 -E 'error|undefined' "$W/host.log" | tr '\n' ' ')"
fi

if $GCC -O2 -c "$D/unit.c" -o "$W/unit.o" && $GCC -O2 "$D/native.c" "$D/unit.c" -o "$W/native"; then
    want=$($RUN "$W/native" 20)
    got=$(timeout 60 $RUN "$W/host" "$W/unit.o" unit_compute 20 2>&1)
    if [ -n "$want" ] && [ "$got" = "$want" ]; then pass "loader-alone-runs-plain-unit ($got)"
    else fail "loader-alone-runs-plain-unit: loaded '$got', native '$want'"; fi
else
    fail "loader-alone-runs-plain-unit: the unit or its native link did not build"
fi

if $GCC -O2 -c "$D/tvm_unit.c" -o "$W/tvm_unit.o"; then
    out=$(timeout 60 $RUN "$W/host" "$W/tvm_unit.o" 2>&1); rc=$?
    if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q "undefined symbol 'TVMBackendAllocWorkspace'"; then
        hpass loader-alone-control-needs-runtime
    else
        hfail "loader-alone-control-needs-runtime: exit $rc: $(printf '%s' "$out" | head -c 300)"
    fi
    if $GCC $CFL "$D/host.c" "$B/libobjrt.a" -ldl -lpthread -ljansson -o "$W/host-full" 2>"$W/host-full.log" &&
       out=$(timeout 60 $RUN "$W/host-full" "$W/tvm_unit.o" 2>&1); then
        hpass loader-alone-control-loads-with-runtime
    else
        hfail "loader-alone-control-loads-with-runtime: $(printf '%s' "$out" | head -c 300) $(head -c 300 "$W/host-full.log")"
    fi
else
    hfail "loader-alone-control-needs-runtime: tvm_unit.c did not build"
    hfail "loader-alone-control-loads-with-runtime: tvm_unit.c did not build"
fi

#!/usr/bin/env bash
# The third probe's defects (issue 40) that concern names and lifecycles, each case failing
# on the code before its fix, each with a control: names of any length compared whole;
# every name called as code reaches code, a registration as much as a symbol.
# x86_64 (plain, asan, tsan).
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] || exit 0
P=$ROOT/tests/probe3
B=$ROOT/$BUILD
cd "$TMP"

# ---- item 1: names of any length compared whole ---------------------------------------------
if $GCC -O2 -fPIC -I"$ROOT/include" -c "$P/ffi_unit.c" -o ffi_unit.o 2>cc.err &&
   $GCC -O2 -fPIC -I"$ROOT/include" -c "$P/syslib_unit.c" -o syslib_unit.o 2>>cc.err &&
   build_prog long-names "$B/tests/probe3/t_names" "$P/t_names.c" -- -I"$P"; then
    run_cases t_names 60 "$B/tests/probe3/t_names" ffi_unit.o syslib_unit.o
else
    fail "long-names: fixtures: $(head -n 2 cc.err | tr '\n' ' ')"
fi
# ---- items 2 and 3: one lifecycle (Context.close during loads, Unit.unload from two threads)
if $GCC -O2 -fPIC -c "$P/life_unit.c" -o life_unit.o 2>cc.err &&
   build_prog lifecycle-c "$B/tests/probe3/t_life" "$P/t_life.c"; then
    run_cases t_life 120 "$B/tests/probe3/t_life" life_unit.o
    build_prog lifecycle-calls "$B/tests/probe3/t_calls" "$P/t_calls.c" &&
        run_cases t_calls 180 "$B/tests/probe3/t_calls" life_unit.o
else
    fail "lifecycle-c: fixture: $(head -n 2 cc.err | tr '\n' ' ')"
fi
# Python without sanitizers (their runtimes would have to be preloaded into python3).
if [ -z "$SAN" ]; then
    PYTHONPATH=$ROOT/python:$ROOT/tests/python OBJRT_LIBRARY=$B/libobjrt.so \
        run_cases lifecycle 300 /usr/bin/python3 "$P/lifecycle.py" "$TMP"
fi

# ---- objrt_num_threads() counts the threads that run, not the ones asked for ---------------
build_prog num-threads "$B/tests/probe3/t_threads" "$P/t_threads.c" -- -Wl,--wrap=pthread_create &&
    run_cases t_threads 60 "$B/tests/probe3/t_threads"

# ---- C++ thread_local destructors of a unit: run before its code goes, or the unload refused
expect "thread_local used by the main thread: unload runs its destructor, exit 0" \
    "thread_local of a running thread: unload refused by name, then allowed"
if g++ -O2 -fPIC -c "$P/tl_plugin.cpp" -o tl_plugin.o 2>cc.err &&
   build_prog thread-local "$B/tests/probe3/tl_host" "$P/tl_host.c"; then
    expect_status "thread_local used by the main thread: unload runs its destructor, exit 0" 0 \
        timeout 60 "$B/tests/probe3/tl_host" main tl_plugin.o
    out=$(timeout 60 "$B/tests/probe3/tl_host" thread tl_plugin.o 2>&1); rc=$?
    if [ $rc -eq 0 ] && grep -q "not unloaded: 1 thread_local object .*destructor _ZN7CountedD" <<<"$out"
    then pass "thread_local of a running thread: unload refused by name, then allowed"
    else fail "thread_local of a running thread: unload refused by name, then allowed: $(status_text $rc): $(oneline "$out")"; fi
else
    fail "thread_local used by the main thread: unload runs its destructor, exit 0: fixture: $(head -n 2 cc.err | tr '\n' ' ')"
fi

# ---- names called as code: registrations go through the same check as symbols -------------
# Old TVM's system-lib output registers __tvm_module_ctx (data) beside its kernels.
expect "call -f a registered data object" "call -f a registered read-only table" \
    "call -f registered code runs" "graph func_name names a registered data object" \
    "graph func_name names registered code"
if $GCC -O2 -fPIC -I"$ROOT/include" -c "$P/registered_ctx.c" -o rc.o 2>cc.err; then
    expect_fail "call -f a registered data object" \
        "-f __tvm_module_ctx: '__tvm_module_ctx' is not a function of the unit: it is a data object \(STT_OBJECT\) in \.bss of rc\.o" \
        $OBJRT call rc.o -f __tvm_module_ctx
    expect_fail "call -f a registered read-only table" \
        "-f table: 'table' is not a function of the unit: it is registered at 0x[0-9a-f]+, in \.rodata of rc\.o" \
        $OBJRT call rc.o -f table
    check "call -f registered code runs" $OBJRT call rc.o -f add1
    sed 's/FUNC/__tvm_module_ctx/' "$ROOT/tests/probe2/graph_data.json" > gd.json
    expect_fail "graph func_name names a registered data object" \
        "node 1 \('n1'\): '__tvm_module_ctx' is not a function of the unit: it is a data object" \
        $OBJRT call rc.o --graph gd.json
    sed 's/FUNC/add1/' "$ROOT/tests/probe2/graph_data.json" > ga.json
    expect_fail "graph func_name names registered code" "input 'x' \(node 0\) was never set" \
        $OBJRT call rc.o --graph ga.json
else
    fail "call -f a registered data object: fixture: $(head -n 2 cc.err | tr '\n' ' ')"
fi
exit 0

#!/usr/bin/env bash
# Harness self-checks (config x86_64: only; every line is a HARNESS line, counted apart
# from objrt's tests): the runner and the reporters turn a case that crashes, hangs or
# prints nothing into a FAIL by name.
#  - tests/run.sh on the planted suites of tests/harness/planted/: a suite killed by a
#    signal, one that hangs past its timeout, one that exits 0 owing a declared case, one
#    that declares nothing, and a passing control whose harness line is counted apart;
#  - run_cases (tests/lib.sh) on a C test program (tests/harness/planted_cases.c) that
#    crashes, hangs or prints nothing, and on its passing control;
#  - CASE=NAME runs and counts one case (and a name no suite has is a FAIL); a failing
#    C test program is kept and its RERUN line runs it again;
#  - the real suite 50-runtime with its planted faults (a kernel that segfaults, a kernel
#    that hangs): the cases that ran them are FAILs and the run fails.
# suite-timeout: 900
. "$ROOT/tests/lib.sh"
[ "$TARGET:$SAN" = x86_64: ] || exit 0
H=$ROOT/tests/harness/planted
expect_harness runner-dead-suite-fails-owed-cases runner-hung-suite-killed-owed-cases-fail \
    runner-quiet-suite-fails-owed-case runner-counts-harness-apart runner-undeclared-suite-runs \
    run_cases-control-all-pass run_cases-crash-fails-unreported-by-name \
    run_cases-hang-killed-unreported-fail run_cases-silent-program-fails-every-case \
    runner-case-runs-one runner-case-unknown-fails run_cases-failure-kept-rerun-reproduces \
    plant-kernel-segv-fails-its-case plant-case-hang-fails-its-case plant-run-fails

# planted SUITE [ENV...]: run tests/run.sh x86_64: on one planted suite; output in $TMP/SUITE.out,
# its exit status in $TMP/SUITE.rc.
planted() {
    local s=$1; shift
    env "$@" SUITES_DIR="$H" SUITES="$s" bash "$ROOT/tests/run.sh" x86_64: >"$TMP/$s.out" 2>&1
    echo $? >"$TMP/$s.rc"
}
# verdict NAME SUITE WANT-RC REGEX...: HARNESS PASS when the run exited WANT-RC ("nonzero"
# for any failure) and every REGEX matches a whole line of its output.
verdict() {
    local name=$1 s=$2 want=$3 rc re; shift 3
    rc=$(cat "$TMP/$s.rc")
    if [ "$want" = nonzero ] && [ "$rc" = 0 ] || { [ "$want" != nonzero ] && [ "$rc" != "$want" ]; }; then
        hfail "$name: tests/run.sh exited $rc, expected $want: $(tail -n 4 "$TMP/$s.out" | tr '\n' '|')"; return
    fi
    for re in "$@"; do
        grep -Eqx -- "$re" "$TMP/$s.out" ||
            { hfail "$name: no line matching '$re' in: $(tr '\n' '|' <"$TMP/$s.out" | cut -c1-600)"; return; }
    done
    hpass "$name"
}

# ---- the runner --------------------------------------------------------------------------
planted 10-dies
verdict runner-dead-suite-fails-owed-cases 10-dies nonzero \
    'PASS \[x86_64: 10-dies\] dies-a' \
    'FAIL \[x86_64: 10-dies\] dies-b: no result .*' 'FAIL \[x86_64: 10-dies\] dies-c: no result .*' \
    'FAIL \[x86_64: 10-dies\] suite exited 139.*' '1 passed, 3 failed'
planted 20-hangs
verdict runner-hung-suite-killed-owed-cases-fail 20-hangs nonzero \
    'FAIL \[x86_64: 20-hangs\] hangs-b: no result .*' \
    'FAIL \[x86_64: 20-hangs\] suite ran longer than its 3 s timeout.*' '1 passed, 2 failed'
planted 30-quiet
verdict runner-quiet-suite-fails-owed-case 30-quiet nonzero \
    'FAIL \[x86_64: 30-quiet\] quiet-a: no result .*' '0 passed, 1 failed'
planted 40-apart
verdict runner-counts-harness-apart 40-apart 0 \
    'HARNESS PASS \[x86_64: 40-apart\] apart-self' 'harness: 1 passed, 0 failed' '1 passed, 0 failed'
if [ "$(tail -n 1 "$TMP/40-apart.out")" != "1 passed, 0 failed" ]; then
    hfail "runner-counts-harness-apart: the last line is not the product count: $(tail -n 1 "$TMP/40-apart.out")"
fi
planted 50-undeclared
verdict runner-undeclared-suite-runs 50-undeclared 0 'NOTE \[x86_64: 50-undeclared\] declares no cases.*' '1 passed, 0 failed'

# ---- run_cases on a C test program -------------------------------------------------------
planted 60-program PLANT_MODE=pass
verdict run_cases-control-all-pass 60-program 0 '4 passed, 0 failed'
planted 60-program PLANT_MODE=crash
verdict run_cases-crash-fails-unreported-by-name 60-program nonzero \
    'PASS \[x86_64: 60-program\] case-1' \
    'FAIL \[x86_64: 60-program\] case-2: crashed with signal 11.*' \
    'FAIL \[x86_64: 60-program\] case-3: no result: planted killed by signal 11 \(SIGSEGV\).*' \
    'FAIL \[x86_64: 60-program\] case-4: no result: planted killed by signal 11 \(SIGSEGV\).*' '1 passed, 3 failed'
planted 60-program PLANT_MODE=hang PLANT_SECS=3
verdict run_cases-hang-killed-unreported-fail 60-program nonzero \
    'FAIL \[x86_64: 60-program\] case-2: no result: planted was killed \(SIGKILL: still running after 3 s.*' \
    'FAIL \[x86_64: 60-program\] case-4: no result: .*' '1 passed, 3 failed'
planted 60-program PLANT_MODE=silent
verdict run_cases-silent-program-fails-every-case 60-program nonzero \
    'FAIL \[x86_64: 60-program\] case-1: no result: planted ended without reporting it' '0 passed, 4 failed'

# ---- one case by name; the rerun of a failed program --------------------------------------
planted 60-program PLANT_MODE=pass CASE=case-3
verdict runner-case-runs-one 60-program 0 'PASS \[x86_64: 60-program\] case-3' '1 passed, 0 failed'
planted 40-apart CASE=no-such-case
verdict runner-case-unknown-fails 40-apart nonzero 'FAIL CASE=no-such-case: no case of that name in the suites run'
planted 60-program PLANT_MODE=crash
rerun=$(sed -n 's/^RERUN \[x86_64: 60-program\] planted: //p' "$TMP/60-program.out" | head -n 1)
again=$( [ -n "$rerun" ] && bash -c "$rerun" 2>&1)
if [[ $rerun == *"CASE=case-2 "* ]] && [[ $rerun == *"/tests/failed/"* ]] &&
   printf '%s' "$again" | grep -q '^FAIL case-2: crashed with signal 11' &&
   ! printf '%s' "$again" | grep -q 'case-1'; then
    hpass run_cases-failure-kept-rerun-reproduces
else
    hfail "run_cases-failure-kept-rerun-reproduces: RERUN line '${rerun:-none}' gave: $(printf '%s' "$again" | head -c 300)"
fi

# ---- the real runtime suite with its planted faults ---------------------------------------
s=50-runtime
OBJRT_TEST_PLANT=kernel-segv,case-hang RT_TIMEOUT=10 SUITES=$s bash "$ROOT/tests/run.sh" x86_64: >"$TMP/$s.out" 2>&1
echo $? >"$TMP/$s.rc"
verdict plant-kernel-segv-fails-its-case $s nonzero \
    'FAIL \[x86_64: 50-runtime\] loaded-seed-1000-runs: no result: rt_load-seed killed by signal 11 \(SIGSEGV\).*' \
    'FAIL \[x86_64: 50-runtime\] seed-cli-1000-runs: killed by signal 11.*'
verdict plant-case-hang-fails-its-case $s nonzero \
    'FAIL \[x86_64: 50-runtime\] loaded-dso-slots-and-errors: no result: rt_load-dso was killed \(SIGKILL: still running after 10 s.*'
verdict plant-run-fails $s nonzero '[0-9]+ passed, 3 failed'
exit 0

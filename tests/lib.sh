# Shared helpers for test suites (sourced). A suite prints one line per check:
#   PASS <name>            or            FAIL <name>: <why>
# tests/run.sh counts them. Environment given to every suite:
#   ROOT     repository root          BUILD   build dir of this configuration (build, build-asan, build-aarch64)
#   TARGET   x86_64 | aarch64         SAN     "" | asan | tsan
#   OBJRT    the CLI to test, with its runner prefix (qemu for aarch64)
#   RUN      prefix to run a target binary ("" or "qemu-aarch64 -L /usr/aarch64-linux-gnu")
#   GCC, CLANG  compilers producing target objects;  TMP  a scratch dir of this suite
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
# check NAME CMD...: PASS when CMD succeeds, FAIL with its last output lines otherwise.
check() {
    local name=$1; shift
    local out
    if out=$("$@" 2>&1); then pass "$name"; else fail "$name: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"; fi
}
# expect_fail NAME PATTERN CMD...: CMD must fail and its output must match PATTERN (grep -E).
expect_fail() {
    local name=$1 pat=$2; shift 2
    local out
    if out=$("$@" 2>&1); then fail "$name: succeeded, expected failure matching '$pat'"; return; fi
    if printf '%s' "$out" | grep -Eq -- "$pat"; then pass "$name"; else fail "$name: output did not match '$pat': $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"; fi
}

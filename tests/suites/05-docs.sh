#!/usr/bin/env bash
# 05-docs: the documentation holds what it promises. README.md is a front door of at most
# 250 lines that names the two commands; every relative link in README.md, docs/,
# tests/README.md and bench/README.md leads to a file that exists (and a #heading in it),
# and every source file they name is in the tree (docs/perf-history.md, a record of the
# past, may name files since moved);
# every environment variable the sources read is in docs/reference.md; every suite has its
# row in tests/README.md; and the README's
# C, Python, numba and TVM quick starts run as written and print what their comments say.
# Controls: the checker catches a planted broken link and heading, a 251-line README and an
# unlisted variable, a moved source file and a suite without a row; a quick start's result compared with a wrong
# value fails.
# x86_64 without sanitizers only: the quick starts are for the plain build.
set -u
. tests/lib.sh
[ "$TARGET:$SAN" = x86_64: ] || exit 0

PY=/usr/bin/python3
CHK="$PY $ROOT/tests/docs/check_docs.py"
DOCS=("$ROOT/README.md" "$ROOT"/docs/*.md "$ROOT/tests/README.md" "$ROOT/bench/README.md")
expect docs-readme-length docs-readme-two-commands docs-links docs-paths-exist docs-env-listed docs-suites-listed \
       docs-quickstart-c docs-quickstart-python docs-quickstart-numba docs-quickstart-tvm
expect_harness docs-control-broken-link docs-control-broken-heading docs-control-length \
       docs-control-stale-path docs-control-unlisted-env docs-control-unlisted-suite docs-control-wrong-result

check docs-readme-length $CHK length "$ROOT/README.md" 250
# The two commands are the first code block of "The two commands", and nothing else.
cmds=$($CHK block "$ROOT/README.md" "The two commands" 0 2>&1 | sed 's/ *#.*//' | grep -v '^$' | tr '\n' ';')
[ "$cmds" = "make demo;make check;" ] && pass docs-readme-two-commands ||
    fail "docs-readme-two-commands: the block under 'The two commands' is '$cmds'"
check docs-links $CHK links "${DOCS[@]}"
CURRENT=(); for f in "${DOCS[@]}"; do [ "${f##*/}" = perf-history.md ] || CURRENT+=("$f"); done
check docs-paths-exist $CHK paths "$ROOT/src" "${CURRENT[@]}"
check docs-env-listed $CHK env "$ROOT/docs/reference.md" "$ROOT/src" "$ROOT/python"
check docs-suites-listed $CHK suites "$ROOT/tests/README.md" "$ROOT/tests/suites"

# Controls: each checker fails on a planted fault.
C=$TMP/controls; mkdir -p "$C/docs"
printf '# t\n\nsee [x](docs/nowhere.md)\n' > "$C/a.md"
expect_fail_h() { local n=$1 p=$2; shift 2; local out
    if out=$("$@" 2>&1); then hfail "$n: the checker passed"; elif printf '%s' "$out" | grep -q -- "$p"; then hpass "$n"
    else hfail "$n: unexpected output: $(printf '%s' "$out" | head -c 200)"; fi; }
expect_fail_h docs-control-broken-link "no such file" $CHK links "$C/a.md"
printf '# t\n\n## Real heading\n\nsee [x](#no-such-heading) and [y](#real-heading)\n' > "$C/b.md"
expect_fail_h docs-control-broken-heading "no heading '#no-such-heading'" $CHK links "$C/b.md"
seq 251 > "$C/long.md"
expect_fail_h docs-control-length "251 lines" $CHK length "$C/long.md" 250
printf '# t\n\nThe plan is in `layout/plan.c`, the walk in `src/loader/walk.c`.\n' > "$C/p.md"
expect_fail_h docs-control-stale-path "names src/loader/walk.c, which is not in the tree" $CHK paths "$ROOT/src" "$C/p.md"
mkdir -p "$C/src"; printf 'const char *v = getenv("OBJRT_NOT_DOCUMENTED");\n' > "$C/src/x.c"
expect_fail_h docs-control-unlisted-env "OBJRT_NOT_DOCUMENTED" $CHK env "$ROOT/docs/reference.md" "$C/src"
mkdir -p "$C/suites"; cp "$ROOT"/tests/suites/*.sh "$C/suites/"; : > "$C/suites/99-unlisted.sh"
expect_fail_h docs-control-unlisted-suite "no row for suite 99-unlisted" $CHK suites "$ROOT/tests/README.md" "$C/suites"

# The quick starts, in a scratch folder that sees the checkout's folders and this build.
Q=$TMP/quick; mkdir -p "$Q"
for d in include examples tests bench; do ln -s "$ROOT/$d" "$Q/$d"; done
ln -s "$(cd "$BUILD" && pwd)" "$Q/build"
export PYTHONPATH=$ROOT/python OBJRT_LIBRARY=$(cd "$BUILD" && pwd)/libobjrt.so
# quick SECTION BLOCK FILE: write the section's N-th code block to FILE in $Q.
quick() { $CHK block "$ROOT/README.md" "$1" "$2" > "$Q/$3"; }
# run_sh FILE: the shell block without its `make` lines (the build is this configuration's).
run_sh() { (cd "$Q" && grep -v '^make' "$1" | sed "s|\bpython3\b|$PY|g" | bash -e 2>&1); }
# result NAME GOT WANT: PASS when GOT contains WANT.
result() { case $2 in *"$3"*) pass "$1" ;; *) fail "$1: expected '$3' in: $(printf '%s' "$2" | tail -n 4 | tr '\n' ' ')" ;; esac; }

# C: the program prints the dot product, and `objrt run` of the sqlite driver its first line.
out=$(quick "Quick start: C" 0 host.c && quick "Quick start: C" 1 c.sh && run_sh c.sh)
if grep -q "^count: 2000|" <<<"$out"; then result docs-quickstart-c "$out" "dot = 32"
else fail "docs-quickstart-c: objrt run of the sqlite driver printed no count: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"; fi
# Control: the comparison fails against a wrong value.
case $(result control "$out" "dot = 33") in FAIL*) hpass docs-control-wrong-result ;;
     *) hfail "docs-control-wrong-result: 'dot = 33' was found in the output" ;; esac

quick "Quick start: Python" 0 qs.py && out=$(cd "$Q" && timeout 120 $PY qs.py 2>&1) &&
    result docs-quickstart-python "$out" "32.0" || fail "docs-quickstart-python: $(printf '%s' "${out:-}" | tail -n 3 | tr '\n' ' ')"

# numba: the sum, and objrt (not MCJIT) linked it: run as the README's "unchanged programs"
# line says, --stats counts the units objrt linked (enable() in the script is idempotent).
quick "Quick start: numba" 0 qs_numba.py
out=$(cd "$Q" && timeout 300 $PY -m objrt.numba --stats qs_numba.py 2>&1)
grep -q "# 332833500," "$Q/qs_numba.py" || out="the README's comment does not say 332833500: $out"
case $out in the*) fail "docs-quickstart-numba: $out" ;;
             *332833500*"units="[1-9]*) pass docs-quickstart-numba ;;
             *) fail "docs-quickstart-numba: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')" ;; esac

quick "Quick start: TVM" 0 tvm.sh && quick "Quick start: TVM" 1 tvm.py &&
    out=$(run_sh tvm.sh && cd "$Q" && timeout 120 $PY -c "import numpy as np; print('file', np.load('out/c.npy'))" && timeout 120 $PY tvm.py) &&
    result docs-quickstart-tvm "$out" "file [1. 2. 3. 4.]
[1. 2. 3. 4.]" || fail "docs-quickstart-tvm: $(printf '%s' "${out:-}" | tail -n 4 | tr '\n' ' ')"

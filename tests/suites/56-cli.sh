#!/usr/bin/env bash
# 56-cli: the command line every subcommand shares (issue 26 item 5): one getopt_long
# parser, so `--help` and `--version` answer on each subcommand with status 0, `--opt=value`
# works like `--opt value`, short options take attached values (-lm), operands keep their
# order, what follows `--` reaches the program untouched, and usage errors name the option
# with status 125. Each accepted form has a refused neighbour as its negative control. `call`
# names each file it wrote on stdout, and nothing when it failed.
. "$ROOT/tests/lib.sh"
case "$TARGET:$SAN" in
    x86_64: | aarch64:) ;;
    *) exit 0 ;;
esac

subs=(run layout call)
for s in "${subs[@]}"; do expect "cli-help-$s" "cli-version-$s"; done
expect cli-help-top cli-help-unknown-option-negative-control cli-run-args-after-dashdash \
    cli-run-entry-equals cli-run-lm-attached cli-run-lm-missing-negative-control \
    cli-layout-page-size-equals cli-layout-page-size-bad cli-call-equals-forms \
    cli-call-flag-with-value-refused cli-call-missing-value cli-layout-takes-no-args \
    cli-call-lists-files-written cli-call-lists-npz-written cli-call-lists-graph-outputs \
    cli-call-failure-lists-nothing-control cli-top-synopsis-is-each-commands-own
expect_harness cli-synopsis-check-sees-a-difference

# help/version: status 0, the subcommand's usage on stdout
for s in "${subs[@]}"; do
    out=$($OBJRT "$s" --help 2>&1); rc=$?
    if [ $rc = 0 ] && grep -q "objrt $s" <<<"$out"; then pass "cli-help-$s"
    else fail "cli-help-$s: exit $rc: $(oneline "$out")"; fi
    out=$($OBJRT "$s" --version 2>&1); rc=$?
    if [ $rc = 0 ] && grep -Eq '^objrt [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out"; then pass "cli-version-$s"
    else fail "cli-version-$s: exit $rc: $(oneline "$out")"; fi
done
out=$($OBJRT --help 2>&1) && grep -q 'objrt call' <<<"$out" && pass cli-help-top || fail "cli-help-top: $(oneline "$out")"
# One synopsis from the command table: each subcommand's usage lines (`objrt S --help`, from
# "usage:" to the first empty line) appear, the same lines in the same order, in `objrt
# --help`'s synopsis, and that synopsis has no other subcommand's lines.
usage_lines() { sed -n '/^usage: /,/^$/p' | sed -e 's/^usage: /       /' -e '/^$/d'; }
# synopsis_diff TOP S...: what differs between TOP's synopsis and the subcommands' own
synopsis_diff() {
    local top=$1 s; shift
    diff <(usage_lines <"$top" | grep -v -- '--version | --help') \
         <(for s in "$@"; do usage_lines <"$TMP/help-$s.txt"; done)
}
$OBJRT --help >"$TMP/help-top.txt" 2>&1
for s in "${subs[@]}"; do $OBJRT "$s" --help >"$TMP/help-$s.txt" 2>&1; done
if d=$(synopsis_diff "$TMP/help-top.txt" "${subs[@]}") && [ -s "$TMP/help-call.txt" ]; then
    pass cli-top-synopsis-is-each-commands-own
else fail "cli-top-synopsis-is-each-commands-own: $(oneline "$d")"; fi
sed 's/\[--list\]/[--lists]/; s/--list$/--lists/' "$TMP/help-top.txt" >"$TMP/help-top-planted.txt"
if ! synopsis_diff "$TMP/help-top-planted.txt" "${subs[@]}" >/dev/null; then
    hpass cli-synopsis-check-sees-a-difference
else hfail "cli-synopsis-check-sees-a-difference: a planted --lists went unseen"; fi
expect_status cli-help-unknown-option-negative-control 125 $OBJRT run --helpme

# a program that prints its arguments and sqrt (libm) of its first one
cat >"$TMP/args.c" <<'C'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        printf("[%s]", argv[i]);
    printf("\n");
    return 0;
}
int root(void) { volatile double x = 49.0; return (int)sqrt(x) == 7 ? 3 : 4; }
C
$GCC -O0 -fno-builtin -c "$TMP/args.c" -o "$TMP/args.o"
out=$($OBJRT run -lm "$TMP/args.o" -- -x --in=y -- z 2>&1)
[ "$out" = "[-x][--in=y][--][z]" ] && pass cli-run-args-after-dashdash || fail "cli-run-args-after-dashdash: '$out'"
expect_status cli-run-entry-equals 3 $OBJRT run --entry=root -lm "$TMP/args.o"
expect_status cli-run-lm-attached 3 $OBJRT run -e root -lm "$TMP/args.o"
expect_fail cli-run-lm-missing-negative-control "undefined symbol.*sqrt" $OBJRT run -e root "$TMP/args.o"
check cli-layout-page-size-equals $OBJRT layout --page-size=65536 -l m "$TMP/args.o"
expect_fail cli-layout-page-size-bad "--page-size '64k': expected a whole number" $OBJRT layout --page-size=64k "$TMP/args.o"
expect_fail cli-layout-takes-no-args "takes no ARGs" $OBJRT layout "$TMP/args.o" -- x

# call: --opt=value for every option that takes one; refused forms name the option
out=$($OBJRT call --function=nope --library=m --repeat=2 --output-dir="$TMP" "$TMP/args.o" 2>&1); rc=$?
if [ $rc = 127 ] && grep -q -- "-f nope: " <<<"$out"; then pass cli-call-equals-forms
else fail "cli-call-equals-forms: exit $rc: $(oneline "$out")"; fi
expect_fail cli-call-flag-with-value-refused "option '--packed' takes no value" $OBJRT call "$TMP/args.o" --packed=1
expect_fail cli-call-missing-value "option '--in' requires an argument" $OBJRT call "$TMP/args.o" --in

# call says what it wrote (issue 36 item 3): each file on stdout, one line, as it is complete
$GCC -O2 -c "$ROOT/tests/probe2/data_syms.c" -o "$TMP/ds.o"
# lists NAME WANT ARGS...: objrt call ds.o ARGS exits 0, stdout exactly WANT, every file there
lists() {
    local name=$1 want=$2 out rc f; shift 2
    out=$($OBJRT call "$TMP/ds.o" "$@" 2>"$TMP/lists.err"); rc=$?
    for f in $want; do [ -f "$f" ] || { fail "$name: $f not written: $(oneline "$(cat "$TMP/lists.err")")"; return; }; done
    if [ $rc = 0 ] && [ "$out" = "$(printf '%s\n' $want)" ]; then pass "$name"
    else fail "$name: exit $rc, stdout '$(oneline "$out")', expected '$(echo $want)'"; fi
}
lists cli-call-lists-files-written "$TMP/o1/b.npy $TMP/o1/c.npy" -f add1 --out 'b=float32[2]' --out 'c=int32[1]' -o "$TMP/o1"
lists cli-call-lists-npz-written "$TMP/o2/all.npz" -f add1 --out 'b=float32[2]' --out 'c=int32[1]' -o "$TMP/o2/all.npz"
sed 's/536870912/4/' "$ROOT/tests/probe2/graph_bomb.json" > "$TMP/g.json"     # one output, 16 bytes
/usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.zeros((1, 4), np.float32))" "$TMP/x.npy"
lists cli-call-lists-graph-outputs "$TMP/o3/output_0.npy" --graph "$TMP/g.json" --in x="$TMP/x.npy" -o "$TMP/o3"
out=$($OBJRT call "$TMP/ds.o" -f nope --out 'b=float32[2]' -o "$TMP/o4" 2>/dev/null); rc=$?
if [ $rc = 127 ] && [ -z "$out" ] && [ ! -e "$TMP/o4/b.npy" ]; then pass cli-call-failure-lists-nothing-control
else fail "cli-call-failure-lists-nothing-control: exit $rc, stdout '$(oneline "$out")'"; fi
exit 0

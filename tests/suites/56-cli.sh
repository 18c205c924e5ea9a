#!/usr/bin/env bash
# 56-cli: the command line every subcommand shares (issue 26 item 5): one getopt_long
# parser, so `--help` and `--version` answer on each subcommand with status 0, `--opt=value`
# works like `--opt value`, short options take attached values (-lm), operands keep their
# order, what follows `--` reaches the program untouched, and usage errors name the option
# with status 125. Each accepted form has a refused neighbour as its negative control.
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
    cli-call-flag-with-value-refused cli-call-missing-value cli-layout-takes-no-args

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
expect_fail cli-layout-page-size-bad "--page-size 64k: expected a page size" $OBJRT layout --page-size=64k "$TMP/args.o"
expect_fail cli-layout-takes-no-args "takes no ARGs" $OBJRT layout "$TMP/args.o" -- x

# call: --opt=value for every option that takes one; refused forms name the option
out=$($OBJRT call --function=nope --library=m --repeat=2 --output-dir="$TMP" "$TMP/args.o" 2>&1); rc=$?
if [ $rc = 127 ] && grep -q -- "-f nope: " <<<"$out"; then pass cli-call-equals-forms
else fail "cli-call-equals-forms: exit $rc: $(oneline "$out")"; fi
expect_fail cli-call-flag-with-value-refused "option '--packed' takes no value" $OBJRT call "$TMP/args.o" --packed=1
expect_fail cli-call-missing-value "option '--in' requires an argument" $OBJRT call "$TMP/args.o" --in
exit 0

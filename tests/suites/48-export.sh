#!/usr/bin/env bash
# 48-export: a unit's symbols for shared libraries opened after it (objrt_unit_export,
# `objrt run --export-dynamic`): a plugin built at test time with undefined references to
# the unit (as an extension module has to its interpreter) is dlopened and calls back.
# Without the export the same dlopen must fail naming the missing symbol (the control).
set -u
. tests/lib.sh

case "$TARGET:$SAN" in
x86_64:|x86_64:asan|aarch64:) ;;
*) exit 0 ;;
esac
expect "export lets a later dlopen bind to the unit" "export control: without it dlopen fails" \
       "export through objrt run --export-dynamic"
T=tests/export
W=$TMP
if ! $GCC -O1 -fPIC -c "$T/export_unit.c" -o "$W/unit.o" 2>"$W/err" ||
   ! $GCC -O1 -shared -fPIC "$T/plugin.c" -o "$W/plugin.so" 2>>"$W/err"; then
    fail "export lets a later dlopen bind to the unit: build: $(oneline "$(cat "$W/err")")"
    exit 0
fi
build_prog "export lets a later dlopen bind to the unit" "$W/host" "$T/export_host.c" || exit 0
# shellcheck disable=SC2086
out=$($RUN "$W/host" "$W/unit.o" "$W/plugin.so" export 2>&1); rc=$?
if [ $rc = 0 ] && [ "$out" = "plugin_run=37 unit_counter=6" ]; then
    pass "export lets a later dlopen bind to the unit"
else
    fail "export lets a later dlopen bind to the unit: status $rc: $(oneline "$out")"
fi
# shellcheck disable=SC2086
out=$($RUN "$W/host" "$W/unit.o" "$W/plugin.so" noexport 2>&1); rc=$?
if [ $rc = 3 ] && printf '%s' "$out" | grep -Eq 'undefined symbol: unit_(counter|callback)'; then
    pass "export control: without it dlopen fails"
else
    fail "export control: without it dlopen fails: status $rc: $(oneline "$out")"
fi
# the CLI: a program that dlopens the plugin itself
cat >"$W/prog.c" <<EOC
#include <dlfcn.h>
#include <stdio.h>
int unit_callback(int x);
int main(void)
{
    void *h = dlopen("$W/plugin.so", RTLD_NOW);
    if (!h) { printf("%s\n", dlerror()); return 3; }
    int (*run)(void) = (int (*)(void))dlsym(h, "plugin_run");
    printf("%d\n", run());
    return 0;
}
EOC
# shellcheck disable=SC2086
if $GCC -O1 -fPIC -c "$W/prog.c" -o "$W/prog.o" 2>"$W/err"; then
    # shellcheck disable=SC2086
    a=$($OBJRT run --export-dynamic "$W/prog.o" "$W/unit.o" 2>&1); ra=$?
    # shellcheck disable=SC2086
    b=$($OBJRT run "$W/prog.o" "$W/unit.o" 2>&1); rb=$?
    if [ $ra = 0 ] && [ "$a" = 37 ] && [ $rb = 3 ]; then
        pass "export through objrt run --export-dynamic"
    else
        fail "export through objrt run --export-dynamic: with: $ra '$(oneline "$a")'; without: $rb '$(oneline "$b")'"
    fi
else
    fail "export through objrt run --export-dynamic: build: $(oneline "$(cat "$W/err")")"
fi

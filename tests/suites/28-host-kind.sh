#!/usr/bin/env bash
# 28-host-kind: a context keeps dladdr1's answer to "is this host address a function?"
# (symbols.c: it decides whether a unit may take a host symbol's address through a stub of
# its own; dladdr1 scans a library's whole symbol table, ~12% of a warm Lua link) only while
# no library is loaded or unloaded. tests/unit/t_hostkind.c compares the answers with
# dladdr1's, shows a planted answer is used while nothing changes (so the map is read), and
# gone after a dlopen and after a dlclose of libz. x86_64 configurations.
set -u
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] || exit 0
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
LIB=libz.so.1
build_prog t_hostkind "$B/tests/unit/t_hostkind" "$ROOT/tests/unit/t_hostkind.c" ||
    { expect t_hostkind; exit 0; }
run_cases t_hostkind 60 "$B/tests/unit/t_hostkind" "$LIB"

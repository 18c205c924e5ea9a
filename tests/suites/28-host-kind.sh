#!/usr/bin/env bash
# 28-host-kind: what a context keeps about the host's libraries (src/symbols/host.c), only
# while no library is loaded or unloaded: whether a host address starts a function (it
# decides whether a unit may take a host symbol's address through a stub of its own),
# asked of the library's GNU hash table by name before dladdr1 (which scans a library's
# whole symbol table: ~69k instructions for libc, 12% of a warm Lua link before it was
# kept), and the addresses dlsym(RTLD_DEFAULT) found. tests/host-kind/t_hostkind.c compares
# the answers by name with dladdr1's for every symbol libc and libm define, shows planted
# answers are used while nothing changes (so the maps are read), and gone after a dlopen
# and after a dlclose of libz. x86_64 configurations.
set -u
. "$ROOT/tests/lib.sh"
[ "$TARGET" = x86_64 ] || exit 0
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
LIB=libz.so.1
INTERNALS=1 build_prog t_hostkind "$B/tests/host-kind/t_hostkind" "$ROOT/tests/host-kind/t_hostkind.c" ||
    { expect t_hostkind; exit 0; }
run_cases t_hostkind 60 "$B/tests/host-kind/t_hostkind" "$LIB"

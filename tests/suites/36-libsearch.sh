#!/usr/bin/env bash
# 36-libsearch: objrt_add_library() with a short name (libsearch.c). A libNAME.so that is a
# GNU ld script (glibc's libm.so) is read, and the library it names is loaded, with no scan
# of the library directories (a scan of /lib/<triplet> cost ~0.5 ms per context); a name
# with only libNAME.so.N installed is still found by the scan (the control shows the
# program's opendir counter sees a scan). t_libsearch also checks the script reader on
# glibc's and ncurses' scripts and on texts that name no library. x86_64 configurations
# only: the scripts and directories are the host's, and under qemu-user the search would
# look at the host's /lib, not the AArch64 sysroot.
set -u
. tests/lib.sh
[ "$TARGET" = x86_64 ] || exit 0

TRIPLET=$($GCC -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
script_name=m
scan_name=
for d in "/lib/$TRIPLET" "/usr/lib/$TRIPLET"; do
    for f in "$d"/lib*.so.[0-9]; do
        [ -e "$f" ] || continue
        base=${f##*/}; base=${base%.so.*}
        [ -e "$d/$base.so" ] || [ -e "/usr/lib/$TRIPLET/$base.so" ] || [ -e "/lib/$TRIPLET/$base.so" ] ||
            { scan_name=${base#lib}; break 2; }
    done
done
B=$BUILD/tests/libsearch
if ! head -c 64 "/usr/lib/$TRIPLET/libm.so" 2>/dev/null | grep -q 'GNU ld script'; then
    expect "libsearch-fixture"
    fail "libsearch-fixture: /usr/lib/$TRIPLET/libm.so is not a GNU ld script here (libc6-dev installs one)"
    exit 0
fi
if [ -z "$scan_name" ]; then
    expect "libsearch-fixture"
    fail "libsearch-fixture: no library with only libNAME.so.N installed found in /lib/$TRIPLET"
    exit 0
fi
INTERNALS=1 build_prog t_libsearch "$B/t_libsearch" "$ROOT/tests/libsearch/t_libsearch.c" || { expect t_libsearch; exit 0; }
run_cases t_libsearch 60 "$B/t_libsearch" "$script_name" "$scan_name"

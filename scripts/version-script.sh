#!/usr/bin/env bash
# version-script.sh HEADER... - the linker version script of libobjrt.so: every objrt_*
# function the public headers declare, the TVM C API (TVM*), and GDB's JIT interface
# symbols; everything else stays local. Generated, so a function added to a header is
# exported without a second list to keep in step (tests/suites/65-debug.sh checks the result
# against the headers with the compiler's own parse). The same headers make these names
# default-visibility (their visibility pragmas; the library is compiled -fvisibility=hidden),
# so the script is a second guard that also names the version node.
set -eu
echo "OBJRT_0 {"
echo "  global:"
# Declarations start in column 0 with a type; typedefs and macros are not functions.
sed -n '/^typedef/d; /^#/d; s/^[A-Za-z].*[ *]\(objrt_[a-z0-9_]*\)(.*/    \1;/p' "$@" | sort -u
echo "    TVM*;"
echo "    __jit_debug_register_code;"
echo "    __jit_debug_descriptor;"
echo "  local: *;"
echo "};"

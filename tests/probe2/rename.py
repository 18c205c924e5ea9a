#!/usr/bin/env python3
"""rename.py IN OUT OLD NEW: OUT is the ELF object IN with every occurrence of the name OLD in
its string tables replaced by NEW (bytes, given as a Python bytes literal, of OLD's length).
Compilers and assemblers refuse names with control characters or invalid UTF-8; an input
made by anyone else need not."""
import ast, sys
data = open(sys.argv[1], "rb").read()
old = sys.argv[3].encode()
new = ast.literal_eval(sys.argv[4])
assert len(new) == len(old), "NEW must have OLD's length"
assert old + b"\0" in data, "OLD is not in IN"
open(sys.argv[2], "wb").write(data.replace(old + b"\0", new + b"\0"))

#!/usr/bin/env python3
"""printable.py FILE WANT: FILE (what objrt printed) is lines of printable UTF-8: no control
character but the newline, no byte outside well-formed UTF-8, no C1 control, no line that
a name forged ("objrt: forged" at a line's start); and it contains WANT, the escaped form
of a name (Python bytes literal). Prints why not and exits 1."""
import ast, re, sys
data = open(sys.argv[1], "rb").read()
want = ast.literal_eval(sys.argv[2])
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("not UTF-8: %s" % e)
bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f]
if bad:
    sys.exit("control characters %r" % sorted(set(bad)))
if re.search(r"(?m)^objrt: forged", text):
    sys.exit("a forged line: %r" % text[:300])
if want not in data:
    sys.exit("no %r in %r" % (want, data[:300]))

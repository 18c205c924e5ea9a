#!/usr/bin/env python3
"""wide_layout.py REPORT: the `objrt layout` REPORT of the 140 MiB "wide" unit (suite
60-aarch64) places .text.callee beyond a CALL26's reach (128 MiB) from .text, has one
veneer per call target (2 stubs, 1 call through one) and 2 CALL26 relocations whose
farthest value is within reach. Exits 0 when so, else with the reason on stderr."""
import re
import sys


def main(report):
    with open(report) as f:
        text = f.read()
    addr = {m.group(2): int(m.group(1), 16)
            for m in re.finditer(r"^RX +(0x[0-9a-f]+) .*wide\.o (\S+)$", text, re.M)}
    m = re.search(r"GOT slots \d+, stubs (\d+) \((\d+) calls needed one\)", text)
    c = re.search(r"R_AARCH64_CALL26 +(\d+) +(0x[0-9a-f]+|0)", text)
    if not m or not c or ".text" not in addr or ".text.callee" not in addr:
        return "report lacks items, stub line or CALL26 line"
    gap = addr[".text.callee"] - addr[".text"]
    if gap <= 1 << 27:
        return "callee only %#x from the caller" % gap
    if (m.group(1), m.group(2), c.group(1)) != ("2", "1", "2"):   # 2 targets, 1 far
        return "stubs %s, calls through one %s, CALL26 %s (want 2, 1, 2)" % (m.group(1), m.group(2), c.group(1))
    if int(c.group(2), 0) >= 1 << 27:
        return "farthest CALL26 value %s is beyond reach" % c.group(2)
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

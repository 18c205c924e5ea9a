#!/usr/bin/env python3
"""check_layout.py REPORT EXPECTED: the `objrt layout` REPORT reserves exactly EXPECTED
bytes and every item it lists (section, GOT, veneer) lies inside the reservation.
Exits 0 when so, else with the reason on stderr (suite 60-aarch64, the seed's arithmetic)."""
import re
import sys


def main(report, expected):
    items, total, base = [], None, None
    with open(report) as f:
        for line in f:
            m = re.match(r"(RX|R|RW) +(0x[0-9a-f]+) +(0x[0-9a-f]+|0) ", line)
            if m:
                items.append((int(m.group(2), 16), int(m.group(3), 0), line.strip()))
            m = re.match(r"reservation: (0x[0-9a-f]+) bytes at (0x[0-9a-f]+)", line)
            if m:
                total, base = int(m.group(1), 16), int(m.group(2), 16)
    if total != int(expected):
        return "reservation %s bytes, expected %s" % (total, expected)
    if not items:
        return "no items in the report"
    for a, size, what in items:
        if a < base or a + size > base + total:
            return "outside the reservation: " + what
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

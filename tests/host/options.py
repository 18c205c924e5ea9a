#!/usr/bin/python3
"""options.py MAN-PAGE HELP-TEXT... - the CLI's options as objrt(1) documents them and as
the --help outputs list them, and the differences both ways (one line each, "help-only
OPT" or "man-only OPT"); exit 1 when there is any.

--help: the options of its usage lines (from "usage:" to the first empty line, and any
later line starting with "objrt ") and of its definition lines (an option at the start of
an indented line). objrt.1: the options in SYNOPSIS and in each .TP item's head line
(prose elsewhere, such as "-rdynamic" or "mkdir -p", is not an option of objrt)."""
import re
import sys

OPT = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


def help_options(text):
    found, usage = set(), False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("usage:"):
            usage = True
        elif not s:
            usage = False
        if usage or s.startswith("objrt "):
            found |= set(OPT.findall(s))
        elif re.match(r"\s+-", line):
            m = OPT.match(s)
            if m:
                found.add(m.group(1))
    return found


def man_options(roff):
    found, section, after_tp = set(), "", False
    for line in roff.splitlines():
        if line.startswith(".SH"):
            section = line[3:].strip().strip('"')
            continue
        text = line.replace("\\-", "-").replace("\\&", "")
        if section == "SYNOPSIS" or after_tp:
            found |= set(OPT.findall(re.sub(r'^\.\w+\s*', "", text)))
        after_tp = line.startswith(".TP")
    return found


def main():
    man = man_options(open(sys.argv[1]).read())
    helps = set()
    for f in sys.argv[2:]:
        helps |= help_options(open(f).read())
    diff = ["help-only " + o for o in sorted(helps - man)] + \
           ["man-only " + o for o in sorted(man - helps)]
    print("\n".join(diff) if diff else "same %d options" % len(man))
    return 1 if diff else 0


sys.exit(main())

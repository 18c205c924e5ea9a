#!/usr/bin/python3
"""header-man.py HEADER PAGE VERSION - a man page (section 3) written from a public header,
so it cannot drift from it: NAME from the header's first comment line and the functions it
declares (scripts/public-functions.sh's list on stdin: "NAME HEADER LINE"), the sections of
its leading comment (SYNOPSIS, DESCRIPTION, ...) as written, then the header's declarations
and their comments verbatim under DECLARATIONS. `make install` runs it for the headers
objrt.3 does not cover (objrt/tvm_backend.h, objrt/tvm_ffi.h)."""
import re
import sys


def roff_line(s):
    s = s.replace("\\", "\\e")
    return "\\&" + s if s[:1] in (".", "'") else s


def main():
    header, page, version = sys.argv[1:4]
    rel = header.split("include/", 1)[-1]
    names = [l.split()[0] for l in sys.stdin if l.split()[1:2] == [rel]]
    text = open(header).read()
    m = re.match(r"/\*(.*?)\*/", text, re.S)
    lead = [re.sub(r"^ ?\* ?", "", l) for l in m.group(1).splitlines()] if m else []
    lead = [l for l in lead if l.strip() or lead]
    first = next((l for l in lead if l.strip()), rel)
    desc = first.split(" - ", 1)[-1].strip()
    out = [".TH %s 3 \"2026\" \"objrt %s\" \"Library Functions Manual\"" % (page.upper(), version),
           ".SH NAME", "%s \\- %s" % (", ".join([page] + names), roff_line(desc))]
    out.insert(1, ".nh")                 # names are not hyphenated
    body = lead[lead.index(first) + 1:] if first in lead else lead
    in_nf = False
    for l in body:
        if re.fullmatch(r"[A-Z][A-Z ]+", l.strip()) and not l.startswith(" "):
            out += ([".fi"] if in_nf else []) + [".SH " + l.strip(), ".nf"]
            in_nf = True
        elif in_nf and (l.strip() or out[-1] != ""):
            out.append(roff_line(l[4:] if l.startswith("    ") else l))
    out += ([".fi"] if in_nf else []) + [".SH DECLARATIONS",
                                          "What " + rel + " declares, as written there:", ".PP", ".nf"]
    rest = text[m.end():] if m else text
    skip = re.compile(r'^\s*(#\s*(ifndef|define|endif|include|ifdef|if|else|pragma)\b|extern "C"|\}\s*$)')
    for l in rest.splitlines():
        if skip.match(l):
            continue
        if l.strip() or out[-1] != "":
            out.append(roff_line(l))
    out += [".fi", ".SH SEE ALSO", ".BR objrt (3),", ".BR objrt (1)"]
    sys.stdout.write("\n".join(out) + "\n")


main()

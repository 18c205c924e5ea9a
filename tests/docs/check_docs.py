#!/usr/bin/python3
"""Checks of the documentation, used by tests/suites/05-docs.sh.

  check_docs.py length FILE MAX          FILE has at most MAX lines
  check_docs.py links FILE...            every relative Markdown link leads to a file that
                                         exists, and a #fragment to a heading of that file
  check_docs.py env REFERENCE DIR...     every environment variable the sources under DIR
                                         read (getenv, secure_getenv, os.environ) is named
                                         in REFERENCE
  check_docs.py paths SRC FILE...        every source path a FILE names in backticks
                                         (`src/layout/plan.c`, `layout/plan.c`) exists in SRC
  check_docs.py suites TABLE DIR         every suite DIR/NN-name.sh has a row "| NN-name |"
                                         in TABLE, and every row names a suite that exists
  check_docs.py block FILE HEADING N     print the N-th fenced code block (0-based) of the
                                         section whose heading is HEADING

Each prints what is wrong, one line per finding, and exits 1 if anything is.
"""
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def prose_lines(text):
    """The lines outside fenced code blocks, with inline code removed."""
    inside = False
    for line in text.split("\n"):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield re.sub(r"`[^`]*`", "", line)


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    """The anchors of a file's headings (outside code blocks; text in backticks counts, as on
    GitHub), a repeated heading getting -1, -2, ..."""
    inside, seen, out = False, {}, set()
    for line in open(path, encoding="utf-8").read().split("\n"):
        if FENCE.match(line):
            inside = not inside
            continue
        m = None if inside else re.match(r"^#{1,6}\s+(.*)$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else "%s-%d" % (base, n))
    return out


def check_links(files):
    bad = []
    for f in files:
        text = open(f, encoding="utf-8").read()
        for line in prose_lines(text):
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue                    # http:, https:, mailto:
                path, _, frag = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
                if not os.path.exists(dest):
                    bad.append("%s: link to %s: no such file" % (f, target))
                elif frag and dest.endswith(".md") and frag not in anchors(dest):
                    bad.append("%s: link to %s: %s has no heading '#%s'" % (f, target, dest, frag))
    return bad


def check_length(path, limit):
    n = len(open(path, encoding="utf-8").read().rstrip("\n").split("\n"))
    return [] if n <= limit else ["%s: %d lines, more than %d" % (path, n, limit)]


def check_env(reference, dirs):
    pat = re.compile(r"""(?:getenv\(|environ\.get\(|environ\[)\s*["']([A-Z][A-Z0-9_]+)["']""")
    names = set()
    for d in dirs:
        for root, _, files in os.walk(d):
            for name in files:
                if name.endswith((".c", ".h", ".py")):
                    names.update(pat.findall(open(os.path.join(root, name), encoding="utf-8",
                                                  errors="replace").read()))
    doc = open(reference, encoding="utf-8").read()
    ignore = {"PYTHONPATH"}                     # Python's own, set by objrt.numba for children
    return ["%s: does not name %s, which the sources read" % (reference, n)
            for n in sorted(names - ignore) if not re.search(r"\b%s\b" % n, doc)]


SRC_PATH = re.compile(r"`((?:src/)?(?:base|arch|input|symbols|sites|layout|finish|debug|loader|"
                      r"runtime|cli)/[\w.-]+\.[ch])`")


def check_paths(src, files):
    bad = []
    for f in files:
        for n, line in enumerate(open(f, encoding="utf-8"), 1):
            for p in SRC_PATH.findall(line):
                rel = p[len("src/"):] if p.startswith("src/") else p
                if not os.path.exists(os.path.join(src, rel)):
                    bad.append("%s:%d: names %s, which is not in the tree" % (f, n, p))
    return bad


def check_suites(table, suite_dir):
    rows = set(re.findall(r"^\| (\d\d-[a-z0-9-]+) \|", open(table, encoding="utf-8").read(), re.M))
    suites = {f[:-3] for f in os.listdir(suite_dir) if re.match(r"^\d\d-.*\.sh$", f)}
    return (["%s: no row for suite %s" % (table, s) for s in sorted(suites - rows)] +
            ["%s: a row for %s, which is not a suite" % (table, r) for r in sorted(rows - suites)])


def block(path, heading, index):
    inside, in_section, blocks, cur = False, False, [], []
    for line in open(path, encoding="utf-8").read().split("\n"):
        if FENCE.match(line):
            if inside and in_section:
                blocks.append("\n".join(cur) + "\n")
            inside, cur = not inside, []
            continue
        if inside:
            cur.append(line)
        elif re.match(r"^#{1,6}\s", line):
            in_section = line.lstrip("#").strip() == heading
    if index >= len(blocks):
        sys.exit("%s: section '%s' has %d code blocks, not %d" % (path, heading, len(blocks), index + 1))
    sys.stdout.write(blocks[index])
    return []


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "length" and len(argv) == 4:
        bad = check_length(argv[2], int(argv[3]))
    elif cmd == "links" and len(argv) > 2:
        bad = check_links(argv[2:])
    elif cmd == "env" and len(argv) > 3:
        bad = check_env(argv[2], argv[3:])
    elif cmd == "paths" and len(argv) > 3:
        bad = check_paths(argv[2], argv[3:])
    elif cmd == "suites" and len(argv) == 4:
        bad = check_suites(argv[2], argv[3])
    elif cmd == "block" and len(argv) == 5:
        bad = block(argv[2], argv[3], int(argv[4]))
    else:
        sys.exit(__doc__)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

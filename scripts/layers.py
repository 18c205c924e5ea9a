#!/usr/bin/python3
"""layers.py - prove the source tree's layers: no include/call circle, at most one arrow up.

  scripts/layers.py [--root DIR] [--obj DIR] [--extra-obj DIR] [-v]

A module is one file: a C file, or a header (an interface of its own, which the C files
defining what it declares include like any other). Module A has an arrow to module B when one of
A's files #includes one of B's ("..." includes only; system and public headers are no
modules), when A's object uses a symbol B's object defines (nm: U in A, defined in B), or
when an inline function of header A calls a function B's object defines (unless B is the
C file of A's own name: a fast path beside its slow path), or when header A declares a
function or object that B's object, in another folder, defines.

Layers are the folders, bottom first, as listed in LAYERS (docs/layers.md); bench/link
sits on top. The check fails, naming the files, when
  - modules form a circle (anywhere: inside a folder or across folders),
  - folders form a circle,
  - more than one arrow (counted between folders) runs from a lower layer to a higher one,
  - base/ or arch/ has an arrow to any other folder.
Objects come from --obj (the build's obj/ tree, default build/obj) and --extra-obj (the
benchmark harnesses' objects, compiled by the caller). Exit 0 when the tree is layered.
"""
import argparse
import os
import re
import subprocess
import sys

LAYERS = ["src/base", "src/arch", "src/input", "src/symbols", "src/sites", "src/layout",
          "src/debug", "src/finish", "src/loader", "src/runtime", "src/tvm_ffi", "src/cli",
          "bench/link"]
# The two bottom layers stand on nothing of the tree (docs/layers.md).
FLOORS = ["src/base", "src/arch"]
SOURCE_EXT = (".c", ".cpp", ".h")
INCLUDE_DIRS = ["src", "include"]


def sources(root):
    for layer in LAYERS:
        d = os.path.join(root, layer)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(SOURCE_EXT):
                yield os.path.join(layer, f)


def module_of(path):
    return path


def folder_of(path):
    return os.path.dirname(path)


def includes(root, path):
    """The files of the tree path names in its #include "..." lines."""
    out = []
    with open(os.path.join(root, path), errors="replace") as f:
        for line in f:
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            for base in [folder_of(path)] + INCLUDE_DIRS:
                cand = os.path.normpath(os.path.join(base, m.group(1)))
                if os.path.isfile(os.path.join(root, cand)):
                    out.append(cand)
                    break
    return out


def inline_calls(root, path):
    """Names called inside the function bodies of header `path` (its inline functions)."""
    text = open(os.path.join(root, path), errors="replace").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#[^\n]*(\\\n[^\n]*)*", " ", text, flags=re.M)
    names, depth, body, i = set(), 0, False, 0
    # A body is a brace block opened right after ")" (a function), not a struct or an
    # initialiser; calls are identifiers followed by "(" inside it.
    for tok in re.finditer(r"[A-Za-z_]\w*\s*\(|[{}]|\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?\{", text):
        t = tok.group(0)
        if t.endswith("{") and t.startswith(")"):
            if depth == 0:
                body = True
            depth += 1
        elif t == "{":
            depth += 1
        elif t == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                body = False
        elif body:
            names.add(re.match(r"\w+", t).group(0))
    return names


def declared(root, path):
    """Names header `path` declares at file scope (prototypes and extern objects: an
    identifier followed by "(" outside every brace block, macros left out)."""
    text = open(os.path.join(root, path), errors="replace").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#[^\n]*(\\\n[^\n]*)*", " ", text, flags=re.M)
    names, depth = set(), 0
    for tok in re.finditer(r"[A-Za-z_]\w*\s*\(|[{}]", text):
        t = tok.group(0)
        if t == "{":
            depth += 1
        elif t == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            names.add(re.match(r"\w+", t).group(0))
    return names


def nm(obj):
    """(defined, undefined) global symbol names of an object file."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind.isupper() or kind in "uvw":
            defined.add(name)
    return defined, undefined


def objects(objdir, root):
    """Source path (relative to root) -> object file, for every object under objdir."""
    found = {}
    for dirpath, _, files in os.walk(objdir):
        for f in files:
            if not f.endswith(".o"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), objdir)[:-2]
            for ext in (".c", ".cpp"):
                if os.path.isfile(os.path.join(root, rel + ext)):
                    found[rel + ext] = os.path.join(dirpath, f)
    return found


def sccs(nodes, edges):
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]; counter[0] += 1
                    stack.append(nxt); on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--obj", default="build/obj")
    ap.add_argument("--extra-obj", action="append", default=[])
    ap.add_argument("-v", action="store_true", help="print every arrow between folders")
    a = ap.parse_args()
    root = a.root
    files = list(sources(root))
    objs = objects(a.obj, root)
    for d in a.extra_obj:
        objs.update(objects(d, root))
    missing = [f for f in files if f.endswith((".c", ".cpp")) and f not in objs
               and not f.startswith("bench/")]
    if missing:
        print("layers: no object for %s (build first)" % ", ".join(missing))
        return 2

    why = {}            # (module A, module B) -> first reason

    def arrow(a_, b_, reason):
        if a_ != b_:
            why.setdefault((a_, b_), reason)

    definer = {}
    uses = {}
    for src, o in objs.items():
        d, u = nm(o)
        uses[src] = u
        for s in d:
            definer.setdefault(s, src)
    for f in files:
        for inc in includes(root, f):
            if folder_of(inc) in LAYERS:
                arrow(module_of(f), module_of(inc), "%s includes %s" % (f, inc))
        if f.endswith(".h"):
            # A header of one folder that declares what another folder defines is that
            # folder's interface too (base's naming debug's fork handlers was one).
            for name in sorted(declared(root, f)):
                if name in definer and folder_of(definer[name]) != folder_of(f):
                    arrow(module_of(f), module_of(definer[name]),
                          "%s declares %s of %s" % (f, name, definer[name]))
            for name in sorted(inline_calls(root, f)):
                # The C file of the header's own name holds the slow paths its inline
                # fast paths fall back on: one concern in two files, not an arrow.
                if name in definer and os.path.splitext(definer[name])[0] != f[:-2]:
                    arrow(module_of(f), module_of(definer[name]),
                          "%s (inline) calls %s of %s" % (f, name, definer[name]))
    for src, u in uses.items():
        for name in sorted(u):
            if name in definer:
                arrow(module_of(src), module_of(definer[name]),
                      "%s uses %s of %s" % (src, name, definer[name]))

    bad = 0
    edges, nodes = {}, sorted({module_of(f) for f in files})
    for (x, y) in why:
        edges.setdefault(x, set()).add(y)
    for comp in sccs(nodes, edges):
        bad += 1
        print("layers: circle of %d modules: %s" % (len(comp), " ".join(comp)))
        inside = set(comp)
        for (x, y), r in sorted(why.items()):
            if x in inside and y in inside:
                print("    %s" % r)

    rank = {l: i for i, l in enumerate(LAYERS)}
    fedges, up = {}, {}
    for (x, y), r in why.items():
        fx, fy = folder_of(x), folder_of(y)
        if fx == fy:
            continue
        fedges.setdefault(fx, set()).add(fy)
        if rank[fx] < rank[fy]:
            up.setdefault((fx, fy), []).append(r)
    for fx in FLOORS:
        for fy in sorted(fedges.get(fx, ())):
            bad += 1
            r = next(r for (x, y), r in sorted(why.items()) if folder_of(x) == fx and folder_of(y) == fy)
            print("layers: %s includes or calls nothing of the tree but itself, yet: %s" % (fx, r))
    for comp in sccs(LAYERS, fedges):
        bad += 1
        print("layers: circle of folders: %s" % " ".join(comp))
    if len(up) > 1:
        bad += 1
        print("layers: %d arrows run up the layers (at most one may):" % len(up))
    for (fx, fy), rs in sorted(up.items()):
        print("  up: %s -> %s (%s%s)" % (fx, fy, rs[0], ", ..." if len(rs) > 1 else ""))
    if a.v:
        for fx in LAYERS:
            for fy in sorted(fedges.get(fx, ())):
                print("  %s -> %s" % (fx, fy))
    print("layers: %d modules, %d arrows, %d folders arrows, %d up: %s" % (
        len(nodes), len(why), sum(len(v) for v in fedges.values()), len(up),
        "layered" if not bad else "NOT layered"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

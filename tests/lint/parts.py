#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lint-parts: a part talks to another only through the other's headers,
and only in the directions docs/ARCHITECTURE.md allows.

From the #include "part/file.h" lines of src/<part>/ (and the sources a
part's CMakeLists.txt compiles by path), checks that:
  1. no file includes another part's private header (internal.h,
     *-internal.h, *_internal.h, *_int.h: a part's own business);
  2. no part compiles another part's source file (it links its library);
  3. every edge part -> other is one the "parts-graph" block of
     docs/ARCHITECTURE.md lists, and that block has no cycle, so neither
     has the folder graph.
Prints one line per violation and exits 1; 0 when clean.

  parts.py [SOURCE_DIR]      check a tree (default: this one)
  parts.py --self-test       check that each rule catches a made-up breach
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_.-]+)/([^"]+)"', re.M)
SRC_BY_PATH = re.compile(r'\$\{CMAKE_SOURCE_DIR\}/src/([A-Za-z0-9_-]+)/([^\s)"]+\.c)\b')
PRIVATE = re.compile(r'^(internal|.*[-_]internal|.*_int)\.h$')
PUBLIC_TREES = ("trawl", "lttng")  # include/trawl, include/lttng: everyone's
BLOCK = re.compile(r'<!-- parts-graph -->\s*```[a-z]*\n(.*?)```', re.S)


def read_graph(doc):
    """{part: set(parts it may include)} from the parts-graph block."""
    m = BLOCK.search(open(doc, encoding="utf-8").read())
    if not m:
        raise SystemExit("lint-parts: %s has no parts-graph block" % doc)
    graph = {}
    for line in m.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if "->" not in line:
            raise SystemExit("lint-parts: %s: not 'part -> parts': %r" % (doc, line))
        part, deps = line.split("->", 1)
        graph.setdefault(part.strip(), set()).update(d for d in deps.replace(",", " ").split())
    return graph


def find_cycle(graph):
    """A list of parts forming a cycle, or None."""
    state = {}

    def visit(p, path):
        state[p] = 1
        for q in sorted(graph.get(p, ())):
            if state.get(q) == 1:
                return path[path.index(q):] + [q] if q in path else [p, q]
            if q not in state:
                c = visit(q, path + [q])
                if c:
                    return c
        state[p] = 2
        return None

    for p in sorted(graph):
        if p not in state:
            c = visit(p, [p])
            if c:
                return c
    return None


def check(top):
    src = os.path.join(top, "src")
    parts = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    allowed = read_graph(os.path.join(top, "docs", "ARCHITECTURE.md"))
    errors = []
    for p in parts:
        if p not in allowed:
            errors.append("src/%s: a part docs/ARCHITECTURE.md's parts-graph does not list" % p)
    for p in allowed:
        if p not in parts:
            errors.append("docs/ARCHITECTURE.md: parts-graph lists %s, which src/ lacks" % p)
        for q in allowed[p]:
            if q not in allowed:
                errors.append("docs/ARCHITECTURE.md: parts-graph: %s -> %s, an unknown part" % (p, q))
    cyc = find_cycle(allowed)
    if cyc:
        errors.append("docs/ARCHITECTURE.md: parts-graph has a cycle: %s" % " -> ".join(cyc))
    used = {}
    for p in parts:
        for root, _, files in os.walk(os.path.join(src, p)):
            for f in sorted(files):
                path = os.path.join(root, f)
                rel = os.path.relpath(path, top)
                if f == "CMakeLists.txt":
                    text = open(path, encoding="utf-8", errors="replace").read()
                    for q, qf in SRC_BY_PATH.findall(text):
                        if q != p:
                            errors.append("%s: compiles src/%s/%s by path: link %s's library instead"
                                          % (rel, q, qf, q))
                    continue
                if not f.endswith((".c", ".h")):
                    continue
                text = open(path, encoding="utf-8", errors="replace").read()
                for q, header in INCLUDE.findall(text):
                    if q in PUBLIC_TREES or q == p:
                        continue
                    if q not in parts:
                        errors.append('%s: includes "%s/%s": no part src/%s' % (rel, q, header, q))
                        continue
                    if PRIVATE.match(os.path.basename(header)):
                        errors.append('%s: includes "%s/%s", a private header of %s'
                                      % (rel, q, header, q))
                    used.setdefault((p, q), rel)
    for (p, q), rel in sorted(used.items()):
        if q not in allowed.get(p, ()):
            errors.append("%s: %s -> %s is not a direction docs/ARCHITECTURE.md allows"
                          % (rel, p, q))
    actual = {}
    for p, q in used:
        actual.setdefault(p, set()).add(q)
    cyc = find_cycle(actual)
    if cyc:
        errors.append("src/: the folders include each other in a cycle: %s" % " -> ".join(cyc))
    return errors


def self_test():
    """Each rule must be able to fail: a tiny tree breaking one at a time."""
    doc_ok = "<!-- parts-graph -->\n```\na ->\nb -> a\n```\n"

    def tree(files, doc=doc_ok):
        d = tempfile.mkdtemp(prefix="lint-parts-")
        os.makedirs(os.path.join(d, "docs"))
        open(os.path.join(d, "docs", "ARCHITECTURE.md"), "w").write(doc)
        for name, text in files.items():
            path = os.path.join(d, "src", name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(text)
        return d

    base = {"a/a.h": "", "a/internal.h": "", "b/b.c": '#include "a/a.h"\n#include "b/x.h"\n',
            "b/x.h": ""}
    cases = [
        ("clean", base, doc_ok, None),
        ("private header", dict(base, **{"b/b.c": '#include "a/internal.h"\n'}), doc_ok,
         "private header"),
        ("edge not allowed", dict(base, **{"a/a.c": '#include "b/x.h"\n'}), doc_ok,
         "not a direction"),
        ("folder cycle", dict(base, **{"a/a.c": '#include "b/x.h"\n'}),
         "<!-- parts-graph -->\n```\na -> b\nb -> a\n```\n", "cycle"),
        ("source by path", dict(base, **{"b/CMakeLists.txt": "add_library(b ${CMAKE_SOURCE_DIR}/src/a/a.c)\n"}),
         doc_ok, "by path"),
        ("unlisted part", dict(base, **{"c/c.c": ""}), doc_ok, "does not list"),
    ]
    bad = 0
    for name, files, doc, want in cases:
        errs = check(tree(files, doc))
        ok = (not errs) if want is None else any(want in e for e in errs)
        print("self-test %-18s %s%s" % (name, "ok" if ok else "FAILED", "" if ok else ": %r" % errs))
        bad += not ok
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    errors = check(os.path.abspath(top))
    for e in errors:
        print("lint-parts: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

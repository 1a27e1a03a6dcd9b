#!/usr/bin/env python3
"""The include-graph check (docs/design.md, "Layout"): reads every .h/.cpp under the source
folders, resolves each `#include "..."` to a repository file and fails, listing the offenders, on
  layer  an include from a lower folder into a higher one (the order in docs/design.md),
  cycle  a cycle between components (a component is X.h with its X.cpp),
  cli11  CLI11 included outside bin/ and driver/,
unless the violation is in the allow-list (scripts/include_allowlist.txt: today's known ones, each
with why it is still there). An allow-list entry that no longer occurs is an error too, so the
list only shrinks.

usage: check_includes.py [REPO_ROOT]"""
import os
import re
import sys

# The folders' order, lowest first (docs/design.md): a folder may include its own files and
# those of lower levels; folders on one level know nothing of each other.
LEVELS = [
    ["runtime"],
    ["simulator"],
    ["support"],
    ["ir"],
    ["frontend", "passes"],
    ["prepare"],
    ["backend"],
    ["tune"],
    ["driver"],
    ["bin"],
]
# Tests, benchmarks and fuzz targets may include anything; they are still checked for cycles.
ANYTHING = ["tests", "bench", "fuzz"]
CLI11_FOLDERS = ["bin", "driver"]
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".c")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


def source_files(root):
    folders = [f for level in LEVELS for f in level] + ANYTHING
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def include_roots(root, files):
    """Where a quoted include is looked up after the including file's folder: every `include`
    folder and every folder with a CMakeLists.txt (the targets' PRIVATE source dirs)."""
    roots = set()
    for f in files:
        parts = f.split(os.sep)
        for i in range(1, len(parts)):
            d = os.sep.join(parts[:i])
            if parts[i - 1] == "include" or os.path.exists(os.path.join(root, d, "CMakeLists.txt")):
                roots.add(d)
    return sorted(roots, key=lambda d: (-d.count(os.sep), d))


def resolve(name, includer, roots, known):
    for base in [os.path.dirname(includer)] + roots:
        candidate = os.path.normpath(os.path.join(base, name))
        if candidate in known:
            return candidate
    return None


def folder_of(path):
    return path.split(os.sep)[0]


def level_of(folder):
    for i, level in enumerate(LEVELS):
        if folder in level:
            return i
    return None  # tests, bench, fuzz


def component(path):
    return os.path.splitext(path)[0]


def cycles(edges):
    """Strongly connected components of more than one component (Tarjan, iterative)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    scc.append(member)
                    if member == node:
                        break
                if len(scc) > 1:
                    found.append(sorted(scc))
    return sorted(found)


def violations(root):
    files = list(source_files(root))
    known = set(files)
    roots = include_roots(root, files)
    found, component_edges = [], set()
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as stream:
            text = stream.read()
        for kind, name in INCLUDE.findall(text):
            if name.startswith("CLI/") and folder_of(f) not in CLI11_FOLDERS:
                found.append("cli11 " + f)
            if kind != '"':
                continue
            target = resolve(name, f, roots, known)
            if target is None:
                continue  # generated (the grammar's parser) or a system header
            if component(f) != component(target):
                component_edges.add((component(f), component(target)))
            source_level, target_level = level_of(folder_of(f)), level_of(folder_of(target))
            if source_level is None or folder_of(f) == folder_of(target):
                continue
            if target_level is None or target_level >= source_level:
                found.append("layer %s -> %s" % (f, target))
    for scc in cycles(component_edges):
        found.append("cycle " + " ".join(scc))
    return sorted(set(found))


def allowed(path):
    entries = set()
    if os.path.exists(path):
        with open(path, encoding="utf-8") as stream:
            for line in stream:
                entry = line.split("#", 1)[0].strip()
                if entry:
                    entries.add(" ".join(entry.split()))
    return entries


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    allow = allowed(os.path.join(root, "scripts", "include_allowlist.txt"))
    found = violations(root)
    new = [v for v in found if v not in allow]
    stale = sorted(allow - set(found))
    for v in new:
        print("include check: " + v)
    for v in stale:
        print("include check: allowed but gone (delete it from scripts/include_allowlist.txt): " + v)
    if new or stale:
        return 1
    print("include check: %d known violations (scripts/include_allowlist.txt), no new one" % len(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())

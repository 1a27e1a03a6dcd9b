#!/usr/bin/env python3
"""Measures how much of TVM's Relax TVMScript corpus vtac reads (issue 32).

Usage: relax_corpus.py TVM_CHECKOUT [--vtac PATH] [--work DIR] [--top N] [--list-failures]

Reads tests/python/relax/*.py of the TVM checkout given on the command line, extracts
every `@I.ir_module` / `@tvm.script.ir_module` class and every `@R.function` def that is
not inside such a class (with Python's ast, so nesting in test functions is found), writes
each, dedented, to a file under --work (default a fresh directory in /tmp: TVM's text never
goes into this repository), and runs `vtac print` on it. A definition *parses* when vtac
prints it; it *round-trips* when vtac prints its own output identically.
Reports both counts and the most common first errors (location stripped).
"""
import argparse
import ast
import collections
import os
import re
import subprocess
import sys
import tempfile
import textwrap

MODULE_DECORATORS = ("I.ir_module", "tvm.script.ir_module", "ir_module")
FUNCTION_DECORATORS = ("R.function",)


def decorator_name(node):
    if isinstance(node, ast.Call):
        node = node.func
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def definitions(tree):
    """The outermost decorated module classes and Relax functions, in source order."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef)):
                names = [decorator_name(d) for d in child.decorator_list]
                wanted = MODULE_DECORATORS if isinstance(child, ast.ClassDef) else FUNCTION_DECORATORS
                if any(n in wanted for n in names):
                    found.append(child)
                    continue
            visit(child)

    visit(tree)
    return found


def extract(path):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines(keepends=True)
    out = []
    for node in definitions(tree):
        start = min([d.lineno for d in node.decorator_list] + [node.lineno])
        text = textwrap.dedent("".join(lines[start - 1:node.end_lineno]))
        out.append((node.name, start, text))
    return out


def first_error(stderr):
    for line in stderr.splitlines():
        m = re.match(r"^[^:]*:\d+:\d+: error: (.*)$", line)
        if m:
            return m.group(1)
    lines = stderr.strip().splitlines()
    return lines[0] if lines else "(no message)"


def normalise(message):
    # Names and numbers vary per test; group errors by their wording.
    message = re.sub(r"'[^']*'", "'_'", message)
    return re.sub(r"\b\d+\b", "N", message)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tvm", help="path of a TVM checkout (holds tests/python/relax)")
    parser.add_argument("--vtac", default=os.path.join(os.path.dirname(__file__), "../../build/bin/vtac"))
    parser.add_argument("--work", help="directory for the extracted definitions (default: a new one in /tmp)")
    parser.add_argument("--top", type=int, default=15, help="how many first errors to list")
    parser.add_argument("--list-failures", action="store_true", help="print file and first error of each failure")
    args = parser.parse_args()

    corpus = os.path.join(args.tvm, "tests", "python", "relax")
    if not os.path.isdir(corpus):
        sys.exit(f"{corpus}: not a directory")
    work = args.work or tempfile.mkdtemp(prefix="vtac-relax-corpus-")
    os.makedirs(work, exist_ok=True)

    total = parsed = roundtrip = 0
    errors = collections.Counter()
    examples = {}
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".py"):
            continue
        for defname, line, text in extract(os.path.join(corpus, name)):
            total += 1
            path = os.path.join(work, f"{name[:-3]}.{line}.{defname}.tvm")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            first = subprocess.run([args.vtac, "print", path], capture_output=True, text=True)
            if first.returncode != 0:
                message = normalise(first_error(first.stderr))
                errors[message] += 1
                examples.setdefault(message, path)
                if args.list_failures:
                    print(f"{path}: {first_error(first.stderr)}")
                continue
            parsed += 1
            printed = path + ".printed.tvm"
            with open(printed, "w", encoding="utf-8") as f:
                f.write(first.stdout)
            second = subprocess.run([args.vtac, "print", printed], capture_output=True, text=True)
            if second.returncode == 0 and second.stdout == first.stdout:
                roundtrip += 1
            elif args.list_failures:
                print(f"{path}: printed text does not round-trip")

    pct = lambda n: f"{100.0 * n / total:.1f}%" if total else "-"
    print(f"definitions: {total}")
    print(f"parsed:      {parsed} ({pct(parsed)})")
    print(f"round-trip:  {roundtrip} ({pct(roundtrip)})")
    print(f"extracted to {work}")
    print("most common first errors:")
    for message, count in errors.most_common(args.top):
        print(f"  {count:5d}  {message}   [e.g. {examples[message]}]")


if __name__ == "__main__":
    main()

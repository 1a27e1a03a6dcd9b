#!/usr/bin/python3
"""Differential fuzzer of compiled Relax graphs (backend/codegen/RelaxHostLowering.h): control
flow and returned values, the compiled object against `vtac run`.

Each case draws a Relax main(c1, c2: bool scalars, x, w: float32 (4,)) in vtac's TVMScript text,
case.tvm, and runs, in a temporary directory,

    vtac compile case.tvm --symbol main=graph -o graph.o
    cc graph.o + tests/e2e/compile/Inputs/graph_npy_main.c -> graph (the runtime libraries of vtac's build)
    vtac run case.tvm --input c1=C1.npy --input c2=C2.npy --input x=x.npy --input w=w.npy --output ...
    graph C1.npy C2.npy x.npy w.npy RESULTS...

for the four values of (c1, c2), and requires every result of the compiled graph to be vtac run's
(floats within 1e-5 relative: the programs are the same prim_funcs, compiled).

Drawn per case (numpy's default_rng([seed, case]), so case i is the same whatever --cases): 1-6
statements at the top, 0-3 in each branch, each one of: a call of a prim_func (twice, square,
inc) or of a high-level operator (R.add, R.multiply of two values) on values in scope; a call of
`pair` (two outputs, out_sinfo=[...]) whose fields `t[0]`, `t[1]` are bound to values; an alias
of one; an if on c1 or c2 (nested up to three deep) whose branches end by binding its variable
to a call or to any value in scope (a parameter, an outer tensor, one of the branch's). Returned:
1 or 2 values in scope (parameters, aliases, a value twice).

The C harness is built with $VTAC_FUZZ_CC (default cc) and the flags in $VTAC_FUZZ_LINK appended
(the sanitizer build's test passes its compiler and sanitizer flags so).

Outcomes: match, bugs (a mismatch, an error or a crash of any command: every drawn program is
valid). Last line: `compiled-graph-fuzz: N cases, M match, I ifs, R results, B bugs`; exit
status 1 when B > 0. Failing cases are kept under --out. Needs /usr/bin/python3 with numpy and
a C compiler (cc).
"""

import os
import re
import shlex
import sys

import fuzzing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRIM_FUNCS = ("twice", "square", "inc")
HEADER = '''@I.ir_module
class Case:
    @T.prim_func
    def twice(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * T.float32(2)

    @T.prim_func
    def square(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * A[i]

    @T.prim_func
    def inc(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @T.prim_func
    def pair(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * T.float32(3)
        for i in range(4):
            C[i] = A[i] - T.float32(1)

    @R.function
    def main(c1: R.Tensor((), "bool"), c2: R.Tensor((), "bool"), x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")):
        cls = Case
'''


class Program:
    def __init__(self, rng):
        self.rng, self.count = rng, 0

    def pick(self, values):
        return values[int(self.rng.integers(len(values)))]

    def fresh(self, prefix):
        self.count += 1
        return "%s%d" % (prefix, self.count)

    def computation(self, scope):
        if self.rng.random() < 0.7:
            return 'R.call_tir(cls.%s, (%s,), out_sinfo=R.Tensor((4,), "float32"))' % (self.pick(PRIM_FUNCS), self.pick(scope))
        return "R.%s(%s, %s)" % (self.pick(("add", "multiply")), self.pick(scope), self.pick(scope))

    def statements(self, scope, depth, indent, count):
        """The lines of `count` statements at `indent` and the values in scope after them."""
        lines = []
        for _ in range(count):
            kind = self.rng.random()
            if (kind < 0.5 or depth == 3) and self.rng.random() < 0.2:
                # A call of several outputs: its fields are the values in scope.
                pair = self.fresh("t")
                lines.append(indent + '%s = R.call_tir(cls.pair, (%s,), out_sinfo=[R.Tensor((4,), "float32"), '
                                      'R.Tensor((4,), "float32")])' % (pair, self.pick(scope)))
                first, name = self.fresh("f"), self.fresh("f")
                lines += [indent + "%s = %s[0]" % (first, pair), indent + "%s = %s[1]" % (name, pair)]
                scope = scope + [first]
            elif kind < 0.5 or depth == 3:
                name = self.fresh("v")
                lines.append(indent + "%s = %s" % (name, self.computation(scope)))
            elif kind < 0.65:
                name = self.fresh("a")
                lines.append(indent + "%s = %s" % (name, self.pick(scope)))
            else:
                name = self.fresh("y")
                lines.append(indent + "if %s:" % self.pick(("c1", "c2")))
                for branch in ("then", "else"):
                    if branch == "else":
                        lines.append(indent + "else:")
                    inner, inner_scope = self.statements(scope, depth + 1, indent + "    ", int(self.rng.integers(0, 4)))
                    value = self.computation(inner_scope) if self.rng.random() < 0.5 else self.pick(inner_scope)
                    lines += inner + [indent + "    %s = %s" % (name, value)]
            scope = scope + [name]
        return lines, scope


def draw_case(rng):
    p = Program(rng)
    lines, scope = p.statements(["x", "w"], 0, "        ", int(rng.integers(1, 7)))
    results = [p.pick(scope) for _ in range(int(rng.integers(1, 3)))]
    returned = results[0] if len(results) == 1 else "(%s)" % ", ".join(results)
    return HEADER + "\n".join(lines) + "\n        return %s\n" % returned


def run_case(vtac, text, seed, directory, timeout):
    """(outcome, detail, ifs, results)."""
    import numpy as np

    with open(os.path.join(directory, "case.tvm"), "w") as f:
        f.write(text)
    returned = text.rsplit("return ", 1)[1].strip().strip("()").split(", ")
    ifs = len(re.findall(r"^ +if c[12]:$", text, re.M))
    rng = np.random.default_rng(seed)
    for name in ("x", "w"):
        np.save(os.path.join(directory, name + ".npy"), rng.standard_normal(4).astype(np.float32))
    for name, value in (("true", True), ("false", False)):
        np.save(os.path.join(directory, name + ".npy"), np.array(value))
    # The runtime the compiled graph links with: the libraries beside vtac's bin/, else ROOT's build
    # (for a copy of the binary).
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(vtac))), "lib")
    if not os.path.isdir(lib):
        lib = os.path.join(ROOT, "build", "lib")
    inputs = os.path.join(ROOT, "tests", "e2e", "compile", "Inputs")
    steps = [[vtac, "compile", "case.tvm", "--symbol", "main=graph", "-o", "graph.o"],
             shlex.split(os.environ.get("VTAC_FUZZ_CC", "cc")) + ["-std=c99", "-Wall", "-Werror", "-DLAYER=graph", "-DNUM_INPUTS=4", "-DNUM_RESULTS=%d" % len(returned),
              os.path.join(inputs, "graph_npy_main.c"), "graph.o", "-o", "graph", "-I" + inputs,
              "-I" + os.path.join(ROOT, "runtime", "include"), "-I" + os.path.join(ROOT, "simulator", "include"),
              "-L" + lib, "-lvta_runtime", "-lvta_sim", "-lvtac_parallel", "-Wl,-rpath," + lib, "-lm", "-lpthread"]
             + shlex.split(os.environ.get("VTAC_FUZZ_LINK", ""))]
    for c1 in ("true", "false"):
        for c2 in ("true", "false"):
            conditions = ["%s.npy" % c1, "%s.npy" % c2, "x.npy", "w.npy"]
            outputs = []
            for name in sorted(set(returned)):
                outputs += ["--output", "%s=%s_%s_%s.npy" % (name, c1, c2, name)]
            steps.append([vtac, "run", "case.tvm", "--input", "c1=" + conditions[0], "--input", "c2=" + conditions[1],
                          "--input", "x=x.npy", "--input", "w=w.npy"] + outputs)
            steps.append(["./graph"] + conditions + ["%s_%s_%s.npy" % (c1, c2, name) for name in returned])
    for argv in steps:
        rc, out, err = fuzzing.run(argv, directory, timeout)
        if rc != 0:
            return "bugs", "%s: exit %s: %s" % (" ".join(argv[:3]), rc, (out + err).strip()[-300:]), 0, 0
    return "match", "", ifs, len(returned)


def main(argv):
    return fuzzing.relax_campaign(argv, __doc__, ROOT, "compiled-graph-fuzz", draw_case, run_case, ("ifs", "results"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

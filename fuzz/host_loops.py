#!/usr/bin/python3
"""Differential fuzzer of host-lower's loop passes (hoist-reduction-init, vectorize-outer-loops).

Each case draws a TensorIR reduction nest, prog.tvm: an output O[s...] over 1-3 spatial loops
(extents among 1..64, often multiples of the lane counts) and 1-2 reduction loops, with or
without T.init and tir.noalias, of one accumulator dtype (float32, float64, int32, int16, or
int8 inputs into int32), whose update adds products of loads of two inputs at indices drawn
from: a spatial or reduction variable, their sum (a convolution window), a multiple (a
gather), a constant; sometimes it also reads O at a shifted element (iterations that share
data, which the passes must leave alone), sometimes a reduction loop's extent is a spatial
variable plus one (a triangular nest). It runs

  vtac run prog.tvm --random-inputs --seed S --reference prog.tvm --rtol 0

that is, the JIT (TensorIR through tir-lower and host-lower to LLVM) against the interpreter on
the unlowered program, every parameter compared exactly (each lane keeps its own order of
additions, so floats agree bit for bit too), and counts how many programs the passes changed
(`vtac opt --passes=tir-lower,host-lower` holds a T.Ramp).

Outcomes: match; bugs = mismatch, crash, timeout, error (any error: every drawn program is
valid). Failing cases go to --out DIR/case-N/ (prog.tvm, command.sh, output.txt). Last line:
`host-loops-fuzz: N cases, M match, V vectorized, B bugs`; exit status 1 when B > 0.
"""

import os
import shlex
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzing  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTENTS = [1, 2, 3, 4, 7, 8, 16, 24, 32, 64]
DTYPES = [("float32", "float32"), ("float64", "float64"), ("int32", "int32"), ("int16", "int16"),
          ("int8", "int32")]


def draw_program(rng):
    """The text of one reduction nest (see the docstring)."""
    spatial = ["s%d" % i for i in range(int(rng.integers(1, 4)))]
    reduce = ["r%d" % i for i in range(int(rng.integers(1, 3)))]
    extents = {v: int(rng.choice(EXTENTS)) for v in spatial + reduce}
    if rng.random() < 0.4:  # mostly lane-count multiples for the innermost spatial loop
        extents[spatial[-1]] = int(rng.choice([8, 16, 32, 64]))
    inp, acc = DTYPES[int(rng.integers(len(DTYPES)))]

    def index(var_pool):
        kind = rng.integers(5)
        v = str(rng.choice(var_pool))
        if kind == 0:
            return v, extents[v]
        if kind == 1:  # a window: spatial + reduction
            s, r = str(rng.choice(spatial)), str(rng.choice(reduce))
            return "%s + %s" % (s, r), extents[s] + extents[r] - 1
        if kind == 2:  # a gather
            return "%s * 2" % v, 2 * extents[v] - 1
        if kind == 3:
            return "0", 1
        return v, extents[v]

    a_idx = [index(spatial + reduce) for _ in range(2)]
    b_idx = [index(reduce + spatial[-1:]) for _ in range(int(rng.integers(1, 3)))]
    if rng.random() < 0.6:  # contiguous in the innermost spatial variable: matmul, convolution
        last, r = spatial[-1], str(rng.choice(reduce))
        a_idx[-1] = (last, extents[last]) if rng.random() < 0.5 else ("%s + %s" % (last, r), extents[last] + extents[r] - 1)
        b_idx = [(r, extents[r]), (last, extents[last])]
    a_shape = ", ".join(str(e) for _, e in a_idx)
    b_shape = ", ".join(str(e) for _, e in b_idx)
    o_shape = ", ".join(str(extents[v]) for v in spatial)
    shifted = rng.random() < 0.2
    o_extra = "1" if shifted else "0"
    o_shape_alloc = ", ".join(str(extents[v] + (1 if (shifted and i == len(spatial) - 1) else 0))
                              for i, v in enumerate(spatial))
    triangular = rng.random() < 0.15
    lines = ["@T.prim_func",
             "def main(A: T.Buffer((%s,), \"%s\"), B: T.Buffer((%s,), \"%s\"), O: T.Buffer((%s,), \"%s\")):"
             % (a_shape, inp, b_shape, inp, o_shape_alloc if shifted else o_shape, acc)]
    if rng.random() < 0.8:
        lines.append("    T.func_attr({\"tir.noalias\": True})")
    loops = spatial + reduce
    indent = "    "
    if triangular:
        # the last reduction loop runs (first spatial variable + 1) iterations, as a loop nest
        for v in loops[:-1]:
            lines.append("%sfor %s in range(%d):" % (indent, v, extents[v]))
            indent += "    "
        last = loops[-1]
        extents[last] = min(extents[last], extents[spatial[0]])
        lines.append("%sfor %s in range(%s + 1):" % (indent, last, spatial[0]))
        indent += "    "
        lines.append("%swith T.block(\"O\"):" % indent)
        indent += "    "
        lines.append("%sT.where(%s < %d)" % (indent, last, extents[last]))
    else:
        lines.append("%sfor %s in T.grid(%s):" % (indent, ", ".join(loops), ", ".join(str(extents[v]) for v in loops)))
        indent += "    "
        lines.append("%swith T.block(\"O\"):" % indent)
        indent += "    "
    kinds = "S" * len(spatial) + "R" * len(reduce)
    lines.append("%s%s = T.axis.remap(\"%s\", [%s])" % (indent, ", ".join("v" + v for v in loops), kinds,
                                                        ", ".join(loops)))

    def bound(expr):
        return " ".join("v" + t if t in extents else t for t in expr.split(" "))

    a = "A[%s]" % ", ".join(bound(i) for i, _ in a_idx)
    b = "B[%s]" % ", ".join(bound(i) for i, _ in b_idx)
    if inp != acc:
        a, b = "T.Cast(\"%s\", %s)" % (acc, a), "T.Cast(\"%s\", %s)" % (acc, b)
    out = "O[%s]" % ", ".join("v" + v for v in spatial)
    term = "%s * %s" % (a, b)
    if shifted:
        term += " + O[%s]" % ", ".join("v" + v + (" + 1" if i == len(spatial) - 1 else "")
                                       for i, v in enumerate(spatial))
    if rng.random() < 0.8:
        zero = "0.0" if acc.startswith("float") else "0"
        lines.append("%swith T.init():" % indent)
        lines.append("%s    %s = T.%s(%s)" % (indent, out, acc, zero))
    lines.append("%s%s = %s + %s" % (indent, out, out, term))
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = fuzzing.case_parser(__doc__, ROOT)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds (wall) per command (default 60)")
    parser.add_argument("--out", help="write failing cases under this directory")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    args = parser.parse_args(argv)
    import tempfile
    matches = vectorized = bugs = 0
    for case in range(args.first, args.first + args.cases):
        rng = np.random.default_rng([args.seed, case])
        program = draw_program(rng)
        with tempfile.TemporaryDirectory() as work:
            with open(os.path.join(work, "prog.tvm"), "w") as f:
                f.write(program)
            cmd = [args.vtac, "run", "prog.tvm", "--random-inputs", "--seed", str(case), "--reference", "prog.tvm",
                   "--rtol", "0"]
            rc, out, err = fuzzing.run(cmd, work, args.timeout)
            outcome, detail = fuzzing.check_run(rc, out, err)
            if outcome is None and rc == 0:
                matches += 1
                lowered = fuzzing.run([args.vtac, "opt", "prog.tvm", "--passes=tir-lower,host-lower"], work, args.timeout)
                vectorized += "T.Ramp" in lowered[1]
            else:
                bugs += 1
                detail = detail or "exit status %s" % rc
                print("case %d: %s: %s" % (case, outcome or "error", detail))
                if args.out:
                    directory = os.path.join(args.out, "case-%d" % case)
                    fuzzing.write_files(directory, {"prog.tvm": program,
                                                    "command.sh": " ".join(shlex.quote(c) for c in cmd) + "\n",
                                                    "output.txt": out + err}.items())
            if args.verbose:
                print("case %d: %s" % (case, outcome or "match"))
    print("host-loops-fuzz: %d cases, %d match, %d vectorized, %d bugs" % (args.cases, matches, vectorized, bugs))
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Differential fuzzer of the fuse-ops pass (passes/relax/FuseOps.h): fused against unfused runs.

Each case draws a Relax function of high-level operators in vtac's TVMScript text, case.tvm, and
runs, in a temporary directory,

    vtac opt case.tvm --passes=legalize-ops -o legalized.tvm
    vtac opt legalized.tvm --passes=fuse-ops -o fused.tvm
    vtac run legalized.tvm --engine=E --random-inputs --seed S --output unfused.E.npy
    vtac run fused.tvm --engine=E --random-inputs --seed S --output fused.E.npy

for E = interp and jit, and requires the fused result to be the unfused one bit for bit on each
engine (fusion moves no arithmetic, so even float results must not move).

Drawn per case (numpy's default_rng([seed, case]), so case i is the same whatever --cases):
  mode      matrix (3 in 4): values of shape (M, N), M and N 1-6, float32 or int32; or conv: values
            of shape (1, C, H, W), C 1-4, H and W 3-6, float32, or int8 data whose conv2d gives
            int32 (the quantized layer)
  steps     2-9, each making a value of the main shape from earlier ones (any earlier value, so
            values are used once, twice or not at all): add/subtract/multiply/maximum/minimum
            of two values, of a value and a broadcast parameter vector or an R.const scalar;
            right_shift by a constant 0-8 (int32); nn.relu; an astype round trip through float64 (exact); permute_dims then reshape
            back (matrix); permute_dims twice (matrix); matmul with a square parameter
            (matrix); sum over axis 1 with keepdims, added back (matrix); split in two along
            an axis and concatenated back in the other order (matrix: a call of two outputs and
            its fields, which fuse-ops leaves unfused); conv2d 3x3 with
            padding 1 (conv; int8 data cast to int8 first when needed, out_dtype int32)
  outputs   the last value plus every value nothing else uses (so each computation reaches the
            result); in half the cases also an earlier value R.output'ed and added to the result
            after the dataflow block (a value used outside its block)

Outcomes: match (both engines agree bit for bit), bugs (a mismatch, an error or a crash of any
command). Last line: `fuse-ops-fuzz: N cases, M match, F fused calls, P prim_funcs fused away,
B bugs`; exit status 1 when B > 0. Failing cases are kept under --out. Needs /usr/bin/python3
with numpy.
"""

import os
import re
import sys

import fuzzing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = ("add", "subtract", "multiply", "maximum", "minimum")


class Program:
    def __init__(self, rng, mode, dtype):
        self.rng, self.mode, self.dtype = rng, mode, dtype
        self.params, self.lines, self.values, self.count = [], [], [], 0

    def tensor(self, shape, dtype=None):
        return 'R.Tensor((%s), "%s")' % (", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""), dtype or self.dtype)

    def param(self, shape, dtype=None):
        name = "p%d" % len(self.params)
        self.params.append("%s: %s" % (name, self.tensor(shape, dtype)))
        return name

    def bind(self, expr):
        name = "v%d" % self.count
        self.count += 1
        self.lines.append("%s = %s" % (name, expr))
        return name

    def pick(self):
        return self.values[int(self.rng.integers(len(self.values)))]

    def scalar(self):
        value = int(self.rng.integers(-3, 4))
        return 'R.const(%s, "%s")' % (value if "int" in self.dtype else float(value) / 2, self.dtype)


def draw_step(p, shape):
    rng = p.rng
    kinds = ["binary", "binary", "vector", "scalar", "relu", "astype"] + (["shift"] if p.dtype == "int32" else [])
    if p.mode == "matrix":
        kinds += ["permute_reshape", "permute_twice", "matmul", "sum", "split"]
    else:
        kinds += ["conv", "conv"]
    kind = kinds[int(rng.integers(len(kinds)))]
    op = BINARY[int(rng.integers(len(BINARY)))]
    x = p.pick()
    if kind == "binary":
        return p.bind("R.%s(%s, %s)" % (op, x, p.pick()))
    if kind == "vector":
        vector = p.param((shape[-1],))
        return p.bind("R.%s(%s, %s)" % (op, x, vector) if rng.random() < 0.5 else "R.%s(%s, %s)" % (op, vector, x))
    if kind == "scalar":
        return p.bind("R.%s(%s, %s)" % (op, x, p.scalar()))
    if kind == "shift":
        return p.bind('R.right_shift(%s, R.const(%d, "int32"))' % (x, int(rng.integers(0, 9))))
    if kind == "relu":
        return p.bind("R.nn.relu(%s)" % x)
    if kind == "astype":
        return p.bind('R.astype(%s, "%s")' % (p.bind('R.astype(%s, "float64")' % x), p.dtype))
    if kind == "permute_reshape":
        return p.bind("R.reshape(%s, (%d, %d))" % (p.bind("R.permute_dims(%s)" % x), shape[0], shape[1]))
    if kind == "permute_twice":
        return p.bind("R.permute_dims(%s)" % p.bind("R.permute_dims(%s)" % x))
    if kind == "matmul":
        return p.bind("R.matmul(%s, %s)" % (x, p.param((shape[1], shape[1]))))
    if kind == "split":
        axis = int(rng.integers(2))
        if shape[axis] < 2:
            return p.bind("R.nn.relu(%s)" % x)
        pieces = p.bind("R.split(%s, [%d], axis=%d)" % (x, int(rng.integers(1, shape[axis])), axis))
        return p.bind("R.concat((%s[1], %s[0]), axis=%d)" % (pieces, pieces, axis))
    if kind == "sum":
        return p.bind("R.add(%s, %s)" % (p.bind("R.sum(%s, axis=[1], keepdims=True)" % x), p.pick()))
    # conv: int8 data (the quantized layer) cast down first; the weight a parameter
    channels = shape[1]
    if p.dtype == "int32":
        data = p.bind('R.astype(%s, "int8")' % x)
        weight = p.param((channels, channels, 3, 3), "int8")
        return p.bind('R.nn.conv2d(%s, %s, padding=(1, 1), out_dtype="int32")' % (data, weight))
    weight = p.param((channels, channels, 3, 3))
    return p.bind("R.nn.conv2d(%s, %s, padding=(1, 1))" % (x, weight))


def draw_case(rng):
    if rng.random() < 0.75:
        mode, shape = "matrix", (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        dtype = "float32" if rng.random() < 0.5 else "int32"
    else:
        mode, shape = "conv", (1, int(rng.integers(1, 5)), int(rng.integers(3, 7)), int(rng.integers(3, 7)))
        dtype = "float32" if rng.random() < 0.5 else "int32"
    p = Program(rng, mode, dtype)
    p.values = [p.param(shape), p.param(shape)]
    for _ in range(int(rng.integers(2, 10))):
        p.values.append(draw_step(p, shape))
    # Every value reaches the result, so that a wrong fused function shows in it.
    used = set(re.findall(r"\bv\d+\b", " ".join(line.split(" = ", 1)[1] for line in p.lines)))
    last = p.values[-1]
    for value in p.values[2:-1]:
        if value not in used:
            last = p.bind("R.add(%s, %s)" % (last, value))
    p.values.append(last)
    tail = ["R.output(%s)" % last]
    result = last
    extra = p.values[int(rng.integers(2, len(p.values) - 1))] if len(p.values) > 3 and rng.random() < 0.5 else None
    if extra:
        tail = ["R.output(%s, %s)" % (last, extra)]
    body = ["        with R.dataflow():"] + ["            " + line for line in p.lines + tail]
    if extra:
        body.append("        gv = R.add(%s, %s)" % (last, extra))
        result = "gv"
    text = ("@I.ir_module\nclass Case:\n    @R.function\n    def main(%s) -> %s:\n%s\n        return %s\n"
            % (", ".join(p.params), p.tensor(shape), "\n".join(body), result))
    return text


def run_case(vtac, text, seed, directory, timeout):
    """(outcome, detail, fused calls, prim_funcs fused away)."""
    with open(os.path.join(directory, "case.tvm"), "w") as f:
        f.write(text)
    steps = [[vtac, "opt", "case.tvm", "--passes=legalize-ops", "-o", "legalized.tvm"],
             [vtac, "opt", "legalized.tvm", "--passes=fuse-ops", "-o", "fused.tvm"]]
    for engine in ("interp", "jit"):
        for module in ("legalized", "fused"):
            steps.append([vtac, "run", module + ".tvm", "--engine=" + engine, "--random-inputs", "--seed", str(seed),
                          "--output", "%s.%s.npy" % (module, engine)])
    for argv in steps:
        rc, out, err = fuzzing.run(argv, directory, timeout)
        if rc != 0:
            return "bugs", "%s: exit %s: %s" % (" ".join(argv[1:3]), rc, (err or out).strip()[:300]), 0, 0
    for engine in ("interp", "jit"):
        with open(os.path.join(directory, "legalized.%s.npy" % engine), "rb") as a, \
                open(os.path.join(directory, "fused.%s.npy" % engine), "rb") as b:
            if a.read() != b.read():
                return "bugs", "fused and unfused results differ on " + engine, 0, 0
    legalized = open(os.path.join(directory, "legalized.tvm")).read()
    fused = open(os.path.join(directory, "fused.tvm")).read()
    fused_calls = len(re.findall(r"R\.call_tir\(cls\.fused_", fused))
    away = legalized.count("@T.prim_func") - fused.count("@T.prim_func") + len(re.findall(r"def fused_", fused))
    return "match", "", fused_calls, away


def main(argv):
    return fuzzing.relax_campaign(argv, __doc__, ROOT, "fuse-ops-fuzz", draw_case, run_case, ("fused calls", "prim_funcs fused away"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

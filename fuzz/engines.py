#!/usr/bin/python3
"""Differential fuzzer of vtac's engines on scalar arithmetic (issue 26 item 6, "Engines").

Each case draws a random well-typed prim_func in vtac's TVMScript text, prog.tvm: for every drawn
dtype d (int8..int64, uint8..uint64, float16/32/64) an input buffer X_d initialised by constants
inside the function (extremes, 0, -0.0, NaN, +-inf, subnormals, random values), and an output
buffer O_d whose elements are random expressions over X_d's elements and constants:
+ - * /, T.min/T.max, T.floordiv/floormod/truncdiv/truncmod, // and %, T.shift_left/shift_right,
<< and >>, T.Select and T.if_then_else on comparisons (< <= > >= == != of any dtype), T.Cast
between any two dtypes. Beside each O_d[i] = e, F_d[i] = e' is the same expression with every
load X_d[k] replaced by the constant stored there, which the frontend folds while parsing: the
folder against the engines inside one program.

Undefined or faulting operands are guarded, except for a fraction --unguarded of the nodes:
an integer divisor d is T.Select(d == 0, c, d) with c a non-zero constant, a shift amount
T.floormod(a, bits), a float cast to an integer T.min(T.max(x, lo), hi) with lo, hi inside the
integer type (T.max(NaN, lo) is lo by the select rule). An unguarded node may stop the run with a
located fault (division by zero, shift amount, float-to-int cast); the engines must then agree on
the message.

Per case (numpy's default_rng([seed, case]), so case i is the same whatever --cases) the script
runs, in a temporary directory:
  interp  vtac run prog.tvm --engine=interp --output NAME=interp/NAME.npy ...   (the reference)
  jit     vtac run prog.tvm --engine=jit ...
  fold    vtac opt prog.tvm --passes=simplify -o folded.tvm; vtac run folded.tvm --engine=interp
  c       vtac compile prog.tvm --emit=c -o prog.c, compiled by cc (-O2) with harness.c (a main
          that builds one DLTensor per parameter, calls prog() and writes each buffer's bytes);
          skipped when the C emitter refuses the program with its located "cannot represent
          values of type float16"
and compares every buffer with interp's, bit for bit, with one rule for floats: a NaN equals any
NaN (sign and payload differ between x86's default NaN and a folder's), and nothing else differs
(-0.0 != 0.0). F_d must equal O_d in the reference run (the parse-time folder against run time).
When interp stops at a located run-time fault, jit must stop with the same message; the C and
fold paths are not compared then (compiled C has no checks; the simplifier may drop a faulting
expression whose value is unused).

The frontend rejects a typed constant expression whose exact result its type cannot hold
(`integer overflow: Mul(100, 2) does not fit in int8`, TVM's IntImm range check) and a constant
integer division by zero, with a located error. Such a rejection is expected: the statement it
points at is dropped and the program drawn again without it (counted as "dropped").

Outcomes of a case:
  match     all compared buffers agree (or all stop at the same fault)
  bugs      mismatch-jit, mismatch-fold, mismatch-c, mismatch-twin (F_d != O_d); crash (signal,
            sanitizer report, LLVM error, assertion); timeout; error (a rejection other than the
            expected ones, an error without `file:line:col:` and a caret, a C file that cc rejects,
            a C function that returns non-zero, engines that stop differently)

A failing case is written to --out DIR/<tag>/ (prog.tvm, command.sh reproducing the failing
comparison, output.txt, case.json). The first --minimise-repeats cases of each distinct failure
(outcome and message without numbers) are minimised greedily (drop statements, replace an
expression by one of its operands, drop guards) while they fail the same way, unless
--no-minimise; the smallest goes to DIR/<tag>/min/.

Last line: `engines-fuzz: N cases, M match, D dropped, B bugs`; exit status 1 when B > 0. Needs
/usr/bin/python3 with numpy and a C compiler (--cc, default cc).
"""

import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time

import numpy as np

import fuzzing
from fuzzing import SANITIZER, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCATED_ERROR = re.compile(r"^(\S+):(\d+):(\d+): error: (.*)\n.*\n *\^", re.M)
ANY_ERROR = re.compile(r"^(?:.*: )?error: (.*)$", re.M)
EXPECTED_REJECTION = re.compile(r"integer overflow: |division by zero$")

INTS = ["int8", "int16", "int32", "int64"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
NUMPY = {d: np.dtype(d) for d in INTS + UINTS + FLOATS}
C_TYPE = {"int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
          "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
          "float16": "uint16_t", "float32": "float", "float64": "double"}
DL_CODE = {"int": 0, "uint": 1, "float": 2}


def bits(dtype):
    return NUMPY[dtype].itemsize * 8


def int_range(dtype):
    info = np.iinfo(NUMPY[dtype])
    return int(info.min), int(info.max)


# ---------------------------------------------------------------------------------------------
# Expressions: nested lists [kind, dtype, ...], rendered with loads ("load") or with the loaded
# constants in their place ("const", the folded twin).


def const_text(dtype, value):
    if dtype in FLOATS:
        v = float(value)
        if np.isnan(v):
            return 'T.%s("nan")' % dtype
        if np.isinf(v):
            return 'T.%s("%sinf")' % (dtype, "-" if v < 0 else "")
        return "T.%s(%r)" % (dtype, v)
    return "T.%s(%d)" % (dtype, int(value))


def draw_value(rng, dtype):
    """An interesting constant of `dtype` (uint64 within int64's range: literals are int64)."""
    r = rng.random()
    if dtype in FLOATS:
        info = np.finfo(NUMPY[dtype])
        specials = [0.0, -0.0, 1.0, -1.0, 0.5, float("nan"), float("inf"), float("-inf"),
                    float(info.max), -float(info.max), float(info.smallest_subnormal), float(info.tiny),
                    2.0 ** 24, 2.0 ** 53, 65504.0, 3.0]
        if r < 0.5:
            v = specials[int(rng.integers(len(specials)))]
        else:
            v = float(rng.normal()) * 10.0 ** int(rng.integers(-8, 9))
        with np.errstate(over="ignore"):  # a large normal draw becomes inf in float16
            return float(NUMPY[dtype].type(v))
    lo, hi = int_range(dtype)
    hi = min(hi, (1 << 63) - 1)
    if r < 0.4:
        specials = [0, 1, 2, 3, 7, lo, hi, lo + 1, hi - 1, -1, -2, bits(dtype) - 1, bits(dtype)]
        v = specials[int(rng.integers(len(specials)))]
    elif r < 0.7:
        v = int(rng.integers(-20, 21))
    else:
        v = int(rng.integers(lo, hi, endpoint=True, dtype=np.int64 if dtype != "uint64" else np.uint64))
    return max(lo, min(hi, v))


class Generator:
    def __init__(self, rng, dtypes, inputs, unguarded):
        self.rng, self.dtypes, self.inputs, self.unguarded = rng, dtypes, inputs, unguarded

    def pick(self, items):
        return items[int(self.rng.integers(len(items)))]

    def leaf(self, dtype):
        if dtype in self.inputs and self.rng.random() < 0.7:
            return ["load", dtype, int(self.rng.integers(len(self.inputs[dtype])))]
        return ["const", dtype, draw_value(self.rng, dtype)]

    def guarded(self):
        return self.rng.random() >= self.unguarded

    def expr(self, dtype, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.2:
            return self.leaf(dtype)
        sub = lambda: self.expr(dtype, depth - 1)  # noqa: E731
        r = rng.random()
        if r < 0.25:
            ops = ["+", "-", "*"] + (["/"] if dtype in FLOATS else [])
            return ["binop", dtype, self.pick(ops), sub(), sub()]
        if r < 0.38:
            return ["call", dtype, self.pick(["T.min", "T.max"]), sub(), sub()]
        if r < 0.55 and dtype not in FLOATS:
            op = self.pick(["T.floordiv", "T.floormod", "T.truncdiv", "T.truncmod", "//", "%"])
            return ["div", dtype, op, sub(), sub(), self.guarded(), self.nonzero(dtype)]
        if r < 0.65 and dtype not in FLOATS:
            op = self.pick(["T.shift_left", "T.shift_right", "<<", ">>"])
            return ["shift", dtype, op, sub(), sub(), self.guarded()]
        if r < 0.8:
            return ["select", dtype, self.pick(["T.Select", "T.if_then_else"]), self.cond(depth - 1), sub(), sub()]
        source = self.pick(self.dtypes + [self.pick(INTS + UINTS + FLOATS)])
        return ["cast", dtype, self.expr(source, depth - 1), self.guarded()]

    def nonzero(self, dtype):
        v = 0
        while v == 0:
            v = draw_value(self.rng, dtype)
        return v

    def cond(self, depth):
        dtype = self.pick(self.dtypes)
        op = self.pick(["<", "<=", ">", ">=", "==", "!="])
        return ["cmp", "bool", op, self.expr(dtype, max(depth - 1, 0)), self.expr(dtype, max(depth - 1, 0))]


def cast_bounds(target, source):
    """Bounds inside integer `target` that float `source` holds exactly (|x| <= 30000 fits float16)."""
    lo, hi = int_range(target)
    return max(lo, -30000), min(hi, 30000)


def render(node, mode, inputs):
    kind, dtype = node[0], node[1]
    r = lambda n: render(n, mode, inputs)  # noqa: E731
    if kind == "load":
        if mode == "load":
            return "X_%s[%d]" % (dtype, node[2])
        return const_text(dtype, inputs[dtype][node[2]])
    if kind == "const":
        return const_text(dtype, node[2])
    if kind == "binop":
        return "(%s %s %s)" % (r(node[3]), node[2], r(node[4]))
    if kind == "call":
        return "%s(%s, %s)" % (node[2], r(node[3]), r(node[4]))
    if kind == "div":
        a, b = r(node[3]), r(node[4])
        if node[5]:
            b = "T.Select(%s == %s, %s, %s)" % (b, const_text(dtype, 0), const_text(dtype, node[6]), b)
        return ("(%s %s %s)" if node[2] in ("//", "%") else "%s(%s, %s)") % (
            (a, node[2], b) if node[2] in ("//", "%") else (node[2], a, b))
    if kind == "shift":
        a, b = r(node[3]), r(node[4])
        if node[5]:
            b = "T.floormod(%s, %s)" % (b, const_text(dtype, bits(dtype)))
        if node[2] in ("<<", ">>"):
            return "(%s %s %s)" % (a, node[2], b)
        return "%s(%s, %s)" % (node[2], a, b)
    if kind == "select":
        return "%s(%s, %s, %s)" % (node[2], r(node[3]), r(node[4]), r(node[5]))
    if kind == "cmp":
        return "(%s %s %s)" % (r(node[3]), node[2], r(node[4]))
    if kind == "cast":
        source = node[2][1]
        inner = r(node[2])
        if node[3] and source in FLOATS and dtype not in FLOATS:
            lo, hi = cast_bounds(dtype, source)
            inner = "T.min(T.max(%s, %s), %s)" % (inner, const_text(source, lo), const_text(source, hi))
        return 'T.Cast("%s", %s)' % (dtype, inner)
    raise ValueError(kind)


def has_unguarded(node):
    if not isinstance(node, list):
        return False
    if node[0] in ("div", "shift") and not node[5]:
        return True
    if node[0] == "cast" and not node[3] and node[2][1] in FLOATS and node[1] not in FLOATS:
        return True
    return any(has_unguarded(c) for c in node[2:])


def draw_case(seed, index, args):
    rng = np.random.default_rng([seed, index])
    pool = INTS + UINTS + ["float32", "float64"] + (["float16"] if rng.random() < args.float16 else [])
    count = int(rng.integers(1, 4))
    dtypes = sorted(set(pool[int(rng.integers(len(pool)))] for _ in range(count)), key=pool.index)
    inputs = {d: [draw_value(rng, d) for _ in range(int(rng.integers(2, 7)))] for d in dtypes}
    gen = Generator(rng, dtypes, inputs, args.unguarded)
    outputs = {d: [gen.expr(d, int(rng.integers(1, args.max_depth + 1))) for _ in range(int(rng.integers(2, 7)))]
               for d in dtypes}
    return {"dtypes": dtypes, "inputs": inputs, "outputs": outputs, "dropped": []}


def statements(case):
    """[(name, text)] of the body: X_d inits, O_d[i] = e, F_d[i] = e' (unless dropped)."""
    body = []
    for d in case["dtypes"]:
        for k, v in enumerate(case["inputs"][d]):
            body.append(("X_%s[%d]" % (d, k), const_text(d, v)))
    for d in case["dtypes"]:
        for i, e in enumerate(case["outputs"][d]):
            if e is None:
                continue
            body.append(("O_%s[%d]" % (d, i), render(e, "load", case["inputs"])))
            if not has_unguarded(e):
                body.append(("F_%s[%d]" % (d, i), render(e, "const", case["inputs"])))
    return [s for s in body if s[0] not in case["dropped"]]


def buffers(case):
    out = []
    for d in case["dtypes"]:
        out.append(("X_%s" % d, d, len(case["inputs"][d])))
        out.append(("O_%s" % d, d, len(case["outputs"][d])))
        out.append(("F_%s" % d, d, len(case["outputs"][d])))
    return out


def program_text(case):
    params = ", ".join('%s: T.Buffer((%d,), "%s")' % (name, n, d) for name, d, n in buffers(case))
    lines = ["@T.prim_func", "def main(%s):" % params]
    body = statements(case)
    lines += ["    %s = %s" % s for s in body]
    if not body:
        lines.append("    pass")
    return "\n".join(lines) + "\n", [s[0] for s in body]


# ---------------------------------------------------------------------------------------------
# Running


def harness_text(case):
    """main(dir): one DLTensor per parameter, calls prog(), writes dir/NAME.bin."""
    lines = ["#include <stdio.h>", "#include <stdint.h>", "#include <string.h>", "#include <dlpack/dlpack.h>",
             "int32_t prog(%s);" % ", ".join("DLTensor *" for _ in buffers(case)), "int main(int argc, char **argv) {",
             "  (void)argc; char path[4096]; FILE *f;"]
    names = []
    for name, d, n in buffers(case):
        code = DL_CODE[re.match(r"[a-z]+", d).group(0)]
        lines += ["  static %s %s_data[%d]; int64_t %s_shape[1] = {%d};" % (C_TYPE[d], name, n, name, n),
                  "  DLTensor %s = {%s_data, {kDLCPU, 0}, 1, {%d, %d, 1}, %s_shape, NULL, 0};"
                  % (name, name, code, bits(d), name)]
        names.append(name)
    lines.append("  int32_t rc = prog(%s);" % ", ".join("&" + n for n in names))
    lines.append('  if (rc != 0) { fprintf(stderr, "prog returned %d\\n", rc); return 2; }')
    for name, d, n in buffers(case):
        lines += ['  snprintf(path, sizeof path, "%%s/%s.bin", argv[1]);' % name,
                  '  f = fopen(path, "wb"); if (!f) return 3;',
                  "  fwrite(%s_data, sizeof %s_data, 1, f); fclose(f);" % (name, name)]
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def same_bits(a, b):
    """Bit equality, except that any NaN equals any NaN."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        nan = np.isnan(a) & np.isnan(b)
        width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
        return bool(np.all(nan | (a.view(width) == b.view(width))))
    return bool(np.array_equal(a, b))


def located(err):
    """(line, message) of the first located error with its source line and caret, or None."""
    m = LOCATED_ERROR.search(err)
    return (int(m.group(2)), m.group(4)) if m else None


class Runner:
    def __init__(self, args):
        self.args = args
        self.include = ["-I", os.path.join(ROOT, "runtime", "include")]

    def vtac_run(self, program, engine, outdir, d):
        os.makedirs(os.path.join(d, outdir), exist_ok=True)
        argv = [self.args.vtac, "run", program, "--engine=" + engine, "--timeout", str(self.args.run_timeout)]
        for name, _, _ in self.case_buffers:
            argv += ["--output", "%s=%s/%s.npy" % (name, outdir, name)]
        return argv, run(argv, d, self.args.timeout)

    def load(self, d, outdir):
        return {name: np.load(os.path.join(d, outdir, name + ".npy")) for name, _, _ in self.case_buffers}

    def load_bin(self, d, outdir):
        return {name: np.fromfile(os.path.join(d, outdir, name + ".bin"), dtype=NUMPY[dt])
                for name, dt, _ in self.case_buffers}

    def check(self, case, d):
        """(outcome, detail, command, output): outcome "match", "dropped" (retry without a
        statement) or a bug kind."""
        text, names = program_text(case)
        self.case_buffers = buffers(case)
        with open(os.path.join(d, "prog.tvm"), "w") as f:
            f.write(text)
        argv, (rc, out, err) = self.vtac_run("prog.tvm", "interp", "interp", d)
        bad = self.failure(rc, out, err)
        if bad:
            return bad + (argv, out + err)
        ref_fault = None
        if rc != 0:
            loc = located(err)
            if loc is None:
                return ("error", "interp: " + first_error(err), argv, out + err)
            if EXPECTED_REJECTION.search(loc[1]) and 0 <= loc[0] - 3 < len(names):
                return ("dropped", names[loc[0] - 3], argv, err)
            if not is_fault(loc[1]):
                return ("error", "interp rejects: " + loc[1], argv, out + err)
            ref_fault = err.strip()
        else:
            ref = self.load(d, "interp")
            for i, (name, d_, n) in enumerate(self.case_buffers):
                if name.startswith("O_"):
                    twin = "F_" + name[2:]
                    for k in range(n):
                        if ("%s[%d]" % (twin, k)) in names and not same_bits(ref[name][k:k + 1], ref[twin][k:k + 1]):
                            return ("mismatch-twin", "%s[%d] %r != %s[%d] %r" % (
                                name, k, ref[name][k], twin, k, ref[twin][k]), argv, out + err)
        # jit
        argv, (rc, out, err) = self.vtac_run("prog.tvm", "jit", "jit", d)
        bad = self.failure(rc, out, err)
        if bad:
            return bad + (argv, out + err)
        if ref_fault is not None:
            if rc == 0 or err.strip() != ref_fault:
                return ("error", "engines stop differently", argv, "interp:\n" + ref_fault + "\njit:\n" + err)
            return ("match", "", None, "")
        if rc != 0:
            return ("error", "jit: " + first_error(err), argv, out + err)
        diff = self.compare(ref, self.load(d, "jit"))
        if diff:
            return ("mismatch-jit", diff, argv, out + err)
        # fold
        argv = [self.args.vtac, "opt", "prog.tvm", "--passes=simplify", "-o", "folded.tvm"]
        rc, out, err = run(argv, d, self.args.timeout)
        bad = self.failure(rc, out, err)
        if bad or rc != 0:
            return (bad or ("error", "opt: " + first_error(err))) + (argv, out + err)
        argv2, (rc, out, err) = self.vtac_run("folded.tvm", "interp", "fold", d)
        bad = self.failure(rc, out, err)
        if bad or rc != 0:
            return (bad or ("error", "folded run: " + first_error(err))) + (argv + ["&&"] + argv2, out + err)
        diff = self.compare(ref, self.load(d, "fold"))
        if diff:
            return ("mismatch-fold", diff, argv + ["&&"] + argv2, out + err)
        # C
        if self.args.no_c:
            return ("match", "", None, "")
        argv = [self.args.vtac, "compile", "prog.tvm", "--emit=c", "-o", "prog.c"]
        rc, out, err = run(argv, d, self.args.timeout)
        bad = self.failure(rc, out, err)
        if bad:
            return bad + (argv, out + err)
        if rc != 0:
            loc = located(err)
            if loc and "cannot represent values of type float16" in loc[1]:
                return ("match", "", None, "")
            return ("error", "compile --emit=c: " + first_error(err), argv, out + err)
        with open(os.path.join(d, "harness.c"), "w") as f:
            f.write(harness_text(case))
        cc = shlex.split(self.args.cc) + ["-O2", "-w"] + self.include + ["prog.c", "harness.c", "-o", "prog", "-lm"]
        rc, out, err = run(cc, d, self.args.timeout)
        if rc != 0:
            return ("error", "cc rejects the emitted C: " + first_line(err), argv + ["&&"] + cc, out + err)
        os.makedirs(os.path.join(d, "c"), exist_ok=True)
        argv3 = ["./prog", "c"]
        rc, out, err = run(argv3, d, self.args.timeout)
        if rc is None:
            return ("timeout", "compiled C", argv3, out + err)
        if rc != 0:
            return ("crash" if rc < 0 else "error", "compiled C exits %s: %s" % (rc, first_line(err)),
                    argv + ["&&"] + cc + ["&&"] + argv3, out + err)
        diff = self.compare(ref, self.load_bin(d, "c"))
        if diff:
            return ("mismatch-c", diff, argv + ["&&"] + cc + ["&&"] + argv3, out + err)
        return ("match", "", None, "")

    def failure(self, rc, out, err):
        if rc is None:
            return ("timeout", "")
        if rc < 0 or SANITIZER.search(err) or SANITIZER.search(out):
            return ("crash", "signal %d" % -rc if rc < 0 else first_line(SANITIZER.search(err + out).group(0)))
        if rc != 0 and not ANY_ERROR.search(err):
            return ("error", "exit %d without a diagnostic" % rc)
        if rc != 0 and located(err) is None:
            return ("error", "error without location: " + first_error(err))
        return None

    def compare(self, ref, got):
        for name in ref:
            a, b = ref[name], got[name]
            if a.shape != b.shape:
                return "%s: shape %s != %s" % (name, a.shape, b.shape)
            for k in range(a.shape[0]):
                if not same_bits(a[k:k + 1], b[k:k + 1]):
                    return "%s[%d]: %r != %r (reference first)" % (name, k, a[k], b[k])
        return ""


def is_fault(message):
    return bool(re.search(r"division by zero|modulo by zero|shift|cast|does not fit|out of range|not representable",
                          message))


def first_error(err):
    m = ANY_ERROR.search(err)
    return m.group(1) if m else first_line(err)


def first_line(text):
    return (text.strip().splitlines() or [""])[0][:200]


def signature(outcome, detail):
    return outcome + ": " + re.sub(r"-?\d[\d.e+-]*|nan|inf|\w+_(u?int|float)\d+\[\d+\]", "#", detail)[:120]


def check_case(runner, case):
    """Runs the case, dropping statements the frontend rejects as expected; the case is updated."""
    for _ in range(64):
        d = tempfile.mkdtemp(prefix="vtac-engines-")
        try:
            outcome, detail, argv, output = runner.check(case, d)
            if outcome == "dropped":
                case["dropped"].append(detail)
                continue
            if outcome != "match":
                with open(os.path.join(d, "prog.tvm")) as f:
                    program = f.read()
                harness = open(os.path.join(d, "harness.c")).read() if os.path.exists(os.path.join(d, "harness.c")) else None
                return outcome, detail, argv, output, program, harness
            return outcome, detail, None, "", None, None
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return "error", "too many rejected statements", None, "", None, None


def save_reproducer(directory, case, result):
    outcome, detail, argv, output, program, harness = result
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "prog.tvm"), "w") as f:
        f.write(program)
    if harness:
        with open(os.path.join(directory, "harness.c"), "w") as f:
            f.write(harness)
    cmd = " ".join(a if a == "&&" else shlex.quote(a) for a in (argv or []))
    with open(os.path.join(directory, "command.sh"), "w") as f:
        f.write("#!/bin/sh\n# %s: %s\n# Compare the outputs with those of:\n#   %s run prog.tvm --engine=interp"
                " --output NAME=interp/NAME.npy ...\ncd \"$(dirname \"$0\")\" && mkdir -p interp jit fold c && %s\n"
                % (outcome, detail, runner_vtac, cmd))
    os.chmod(os.path.join(directory, "command.sh"), 0o755)
    with open(os.path.join(directory, "output.txt"), "w") as f:
        f.write(output)
    with open(os.path.join(directory, "case.json"), "w") as f:
        json.dump(case, f)


runner_vtac = "vtac"


def smaller_cases(case):
    """Variants with one thing less: an output statement, an input element's use, a subexpression."""
    def copy():
        return json.loads(json.dumps(case))
    for d in case["dtypes"]:
        for i, e in enumerate(case["outputs"][d]):
            if e is None:
                continue
            c = copy()
            c["outputs"][d][i] = None
            yield c
    for d in case["dtypes"]:
        for i, e in enumerate(case["outputs"][d]):
            if e is None:
                continue
            for path, node in subnodes(e, ()):
                for child in node[2:]:
                    if isinstance(child, list) and child[1] == node[1]:
                        c = copy()
                        c["outputs"][d][i] = replace(c["outputs"][d][i], path, child)
                        yield c
                if node[0] in ("div", "shift") and node[5] is False:
                    c = copy()
                    target = get(c["outputs"][d][i], path)
                    target[5] = True
                    yield c
                if node[0] != "const" and node[0] != "cmp":
                    c = copy()
                    c["outputs"][d][i] = replace(c["outputs"][d][i], path, ["const", node[1], 0 if node[1] not in FLOATS else 1.0])
                    yield c


def subnodes(node, path):
    yield path, node
    for k, child in enumerate(node):
        if isinstance(child, list) and child and isinstance(child[0], str) and len(child) >= 3:
            yield from subnodes(child, path + (k,))


def get(node, path):
    for k in path:
        node = node[k]
    return node


def replace(node, path, new):
    if not path:
        return new
    get(node, path[:-1])[path[-1]] = new
    return node


def minimise(runner, case, sig, budget):
    def smaller(best):
        for candidate in smaller_cases(best):
            candidate["dropped"] = list(best["dropped"])
            yield candidate

    def fails_alike(candidate):
        result = check_case(runner, candidate)
        return result if result[0] != "match" and signature(result[0], result[1]) == sig else None

    best, _, runs = fuzzing.minimise(case, smaller, fails_alike, budget)
    return best, runs


def main(argv=None):
    global runner_vtac
    parser = fuzzing.case_parser(__doc__, ROOT)
    parser.add_argument("--cc", default="cc", help="C compiler command for the C emitter's output (default cc)")
    parser.add_argument("--no-c", action="store_true", help="skip the C emitter")
    parser.add_argument("--out", help="write failing cases (and their minimised forms) under this directory")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds (wall) per command (default 60)")
    parser.add_argument("--run-timeout", type=float, default=20.0, help="vtac run --timeout (default 20)")
    parser.add_argument("--max-depth", type=int, default=4, help="expression depth (default 4)")
    parser.add_argument("--unguarded", type=float, default=0.05,
                        help="fraction of divisions, shifts and float-to-int casts left unguarded (default 0.05)")
    parser.add_argument("--float16", type=float, default=0.3, help="fraction of cases that may use float16 (0.3)")
    parser.add_argument("--no-minimise", action="store_true", help="do not minimise failing cases")
    parser.add_argument("--minimise-runs", type=int, default=60, help="case runs per minimisation (default 60)")
    parser.add_argument("--minimise-repeats", type=int, default=1,
                        help="minimise the first N cases of each distinct failure (default 1)")
    parser.add_argument("--replay", metavar="CASE.json", action="append", help="run saved cases instead")
    parser.add_argument("--dry-run", action="store_true", help="print the drawn programs, run nothing")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    args = parser.parse_args(argv)
    if os.sep in args.vtac:  # a path, not a name found on PATH: the cases run in their own directories
        args.vtac = os.path.abspath(args.vtac)
    runner_vtac = args.vtac
    runner = Runner(args)

    if args.replay:
        cases = []
        for p in args.replay:
            with open(p) as f:
                cases.append(("replay:" + p, json.load(f)))
    else:
        cases = (("case %d" % i, draw_case(args.seed, i, args)) for i in range(args.first, args.first + args.cases))
    total = matches = dropped = bugs = 0
    kinds, distinct = {}, {}
    start = time.time()
    for label, case in cases:
        if args.dry_run:
            print("# %s\n%s" % (label, program_text(case)[0]))
            total += 1
            continue
        result = check_case(runner, case)
        total += 1
        dropped += len(case["dropped"])
        outcome, detail = result[0], result[1]
        if outcome == "match":
            matches += 1
            if args.verbose:
                print("%s: match" % label, flush=True)
            continue
        bugs += 1
        kinds[outcome] = kinds.get(outcome, 0) + 1
        sig = signature(outcome, detail)
        distinct.setdefault(sig, []).append(label)
        print("%s: %s: %s" % (label, outcome, detail), flush=True)
        if args.out:
            tag = "%s-seed%d-%s" % (outcome, args.seed, label.replace(" ", "").replace("/", "_").replace(":", "_"))
            directory = os.path.join(args.out, tag)
            save_reproducer(directory, case, result)
            if not args.no_minimise and len(distinct[sig]) <= args.minimise_repeats:
                small, runs = minimise(runner, case, sig, args.minimise_runs)
                final = check_case(runner, small)
                if final[0] != "match":
                    save_reproducer(os.path.join(directory, "min"), small, final)
                print("  minimised in %d runs: %s/min" % (runs, directory), flush=True)
    if distinct:
        print("%d distinct failures:" % len(distinct))
        for sig, labels in distinct.items():
            print("  %s (%d: %s)" % (sig, len(labels), ", ".join(labels[:5])))
    if not args.dry_run:
        by_kind = ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items()))
        print("engines-fuzz: %d cases, %d match, %d dropped, %d bugs%s (%.0f s)" % (
            total, matches, dropped, bugs, " (" + by_kind + ")" if by_kind else "", time.time() - start))
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())

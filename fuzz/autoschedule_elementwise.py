#!/usr/bin/python3
"""Differential fuzzer of `vtac run --auto-schedule` on packed elementwise functions (issue 25's
elementwise rule, passes/autoschedule/ElementwisePacked.cpp; issue 26 item 6).

Each case draws a chain of int32 ALU stages over a packed tensor and a random VTA configuration,
writes the unscheduled TensorIR and the vta_config.json to a temporary directory, and runs

    vtac run case.tvm --auto-schedule --passes=vta-lower --random-inputs --seed S
             --reference case.tvm --stats --vta-config vta_config.json

which schedules the function by the rule, lowers it, runs it on the VTA simulator and compares
every element with the unscheduled program in the interpreter.

Drawn per case (numpy's default_rng([seed, case]), so case i is the same whatever --cases):
  VTA config   as autoschedule_conv2d.py (fuzzing.draw_config): BATCH 1/2, BLOCK 16/32, SRAMs
  shape        rank 6, (N/BT, C/B, H, W, BT, B), or rank 4, (N/BT, C/B, BT, B); N = BT or 2 BT,
               1-8 channel blocks, H and W 1-16
  stages       the first stage adds two inputs or applies an operation to one input; then 0-3
               stages, each an operation on the one before: + another input, >> k, << k, max c,
               min c, + c, * c (k 0-31 for >>, 0-8 for <<; c a signed 16-bit immediate, not 0 for
               *, which would fold the stage to a constant); an input
               is an int8 parameter read as T.Cast("int32", p[...]) or an int32 parameter; the
               output casts the last stage to int8

Outcomes of a case:
  match       every compared tensor matches, the remark names elementwise-packed and the
              simulator counted ALU operations
  expected    `file:line:col: error: no elementwise tile fits the VTA memories` with its source
              line and caret when, by this script's count, one BATCH x BLOCK tile per input plus
              the result exceeds the accumulator SRAM, or one micro-op half the micro-op SRAM
  bugs        mismatch, crash, timeout, error (any other error or one without location, a
              refusal although the smallest tile fits), cpu (the function stays on the CPU)

Failing cases are written and minimised as by autoschedule_conv2d.py (fewer images, channel
blocks, rows, columns and stages; default SRAMs; BLOCK 16). Last line: `elementwise-fuzz: N cases,
M match, K expected, B bugs`; exit status 1 when B > 0. Needs /usr/bin/python3 with numpy.
"""

import json
import os
import re
import sys

import numpy as np

import fuzzing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = ("add_input", "shr", "shl", "max", "min", "add_imm", "mul_imm")


def draw_stage(rng, op):
    r = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731  inclusive
    if op == "add_input":
        return {"op": op, "input": "int8" if rng.random() < 0.6 else "int32"}
    if op == "shr":
        return {"op": op, "k": r(0, 31)}
    if op == "shl":
        return {"op": op, "k": r(0, 8)}
    if op == "mul_imm":  # not 0: `x * 0` folds to a constant stage, no ALU operation (the CPU's)
        return {"op": op, "c": int(rng.choice([-1, 1])) * r(1, 64)}
    return {"op": op, "c": r(-32768, 32767) if rng.random() < 0.2 else r(-200, 200)}


def draw_case(seed, index, args):
    rng = np.random.default_rng([seed, index])
    r = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731  inclusive
    config = fuzzing.draw_config(rng, args.log_batch, args.log_block)
    bt = 1 << config["LOG_BATCH"]
    spec = {"rank": 6 if rng.random() < 0.7 else 4, "batch": bt * r(1, 2), "batch_tile": bt,
            "block": 1 << config["LOG_BLOCK"], "blocks": r(1, 8), "h": r(1, 16), "w": r(1, 16)}
    if spec["rank"] == 4:
        spec["h"] = spec["w"] = 1
    first = {"op": "add2", "inputs": [("int8" if rng.random() < 0.6 else "int32") for _ in range(2)]} \
        if rng.random() < 0.5 else dict(draw_stage(rng, str(rng.choice(OPS[1:]))), input="int8" if rng.random() < 0.6 else "int32")
    spec["stages"] = [first] + [draw_stage(rng, str(rng.choice(OPS))) for _ in range(r(0, 3))]
    while macs(spec) > args.max_macs and spec["blocks"] > 1:
        spec["blocks"] //= 2
    return {"spec": spec, "config": config, "input_seed": r(0, 1 << 31)}


def macs(spec):
    """Elements times stages: the reference interpreter's work."""
    return shape_elems(spec) * len(spec["stages"])


def shape_of(spec):
    s = spec
    outer = [s["batch"] // s["batch_tile"], s["blocks"]] + ([s["h"], s["w"]] if s["rank"] == 6 else [])
    return outer + [s["batch_tile"], s["block"]]


def shape_elems(spec):
    return int(np.prod(shape_of(spec)))


def inputs_of(spec):
    """The input parameters' dtypes, in order."""
    ins = []
    for stage in spec["stages"]:
        if stage["op"] == "add2":
            ins += stage["inputs"]
        elif "input" in stage:
            ins.append(stage["input"])
    return ins


def module_text(spec):
    shape = shape_of(spec)
    rank = len(shape)
    ivs = ["v%d" % i for i in range(rank)]
    at = ", ".join(ivs)
    shape_text = "(%s)" % ", ".join(str(d) for d in shape)
    params, inputs = [], iter(range(len(inputs_of(spec))))
    dtypes = inputs_of(spec)

    def read_input():
        i = next(inputs)
        params.append('in%d: T.Buffer(%s, "%s")' % (i, shape_text, dtypes[i]))
        load = "in%d[%s]" % (i, at)
        return 'T.Cast("int32", %s)' % load if dtypes[i] == "int8" else load

    lines, prev = [], None
    for n, stage in enumerate(spec["stages"]):
        op = stage["op"]
        src = read_input() if n == 0 and op != "add2" else ("s%d[%s]" % (n - 1, at) if n else None)
        if op == "add2":
            value = "%s + %s" % (read_input(), read_input())
        elif op == "add_input":
            value = "%s + %s" % (src, read_input())
        elif op == "shr":
            value = "T.shift_right(%s, %d)" % (src, stage["k"])
        elif op == "shl":
            value = "T.shift_left(%s, %d)" % (src, stage["k"])
        elif op == "max":
            value = "T.max(%s, %d)" % (src, stage["c"])
        elif op == "min":
            value = "T.min(%s, %d)" % (src, stage["c"])
        elif op == "add_imm":
            value = "%s + %d" % (src, stage["c"])
        else:
            value = "%s * %d" % (src, stage["c"])
        lines.append(("s%d" % n, value))
        prev = "s%d" % n
    lines.append(("res", 'T.Cast("int8", %s[%s])' % (prev, at)))
    params.append('res: T.Buffer(%s, "int8")' % shape_text)
    grid = "T.grid(%s)" % ", ".join(str(d) for d in shape)
    body = ['    T.func_attr({"tir.noalias": T.bool(True)})']
    body += ['    %s = T.alloc_buffer(%s, "int32")' % (name, shape_text) for name, _ in lines[:-1]]
    for name, value in lines:
        body += ["    for %s in %s:" % (", ".join("i%d" % i for i in range(rank)), grid),
                 '        with T.block("%s"):' % name,
                 '            %s = T.axis.remap("%s", [%s])' % (at, "S" * rank, ", ".join("i%d" % i for i in range(rank))),
                 "            %s[%s] = %s" % (name, at, value)]
    header = "# elementwise fuzz case: %s\n" % json.dumps(spec, sort_keys=True)
    return header + "@T.prim_func\ndef main(%s):\n%s\n" % (", ".join(params), "\n".join(body))


def smallest_tile_fits(case):
    s, c = case["spec"], case["config"]
    acc_tile = s["batch_tile"] * s["block"] * 4
    return (acc_tile * (len(inputs_of(s)) + 1) <= 1 << c["LOG_ACC_BUFF_SIZE"]
            and 4 <= (1 << c["LOG_UOP_BUFF_SIZE"]) // 2)


def describe(case):
    s, c = case["spec"], case["config"]
    ops = " ".join(st["op"] + ("(%s)" % ",".join(st["inputs"]) if "inputs" in st else "")
                   + ("(%s)" % st["input"] if "input" in st else "")
                   + ("%d" % st["k"] if "k" in st else "") + ("%d" % st["c"] if "c" in st else "")
                   for st in s["stages"])
    return "%s | %s | BATCH %d BLOCK %d SRAM 2^%d/%d/%d/%d" % (
        "x".join(str(d) for d in shape_of(s)), ops, 1 << c["LOG_BATCH"], 1 << c["LOG_BLOCK"],
        c["LOG_INP_BUFF_SIZE"], c["LOG_WGT_BUFF_SIZE"], c["LOG_ACC_BUFF_SIZE"], c["LOG_UOP_BUFF_SIZE"])


def load_case(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return {"spec": data["spec"], "config": data["config"], "input_seed": data["input_seed"]}


def command(vtac, case):
    return fuzzing.autoschedule_command(vtac, case)


def write_case(directory, case):
    fuzzing.write_files(directory, fuzzing.case_files(module_text(case["spec"]), case["config"]))


def classify(case, rc, out, err):
    """(outcome, detail): outcome is 'match', 'expected' or a bug kind."""
    outcome, message = fuzzing.check_run(rc, out, err)
    if outcome == "located":
        if message.startswith("no elementwise tile fits the VTA memories") and not smallest_tile_fits(case):
            return "expected", message
        return "error", message
    if outcome:
        return outcome, message
    if "stays on the CPU" in err:
        return "cpu", re.search(r"stays on the CPU: (.*)", err).group(1)
    return fuzzing.check_scheduled(out, err, "elementwise-packed", "alu_counter", "ALU operation",
                                   smallest_tile_fits(case))


def Runner(args):
    return fuzzing.VtacRunner(args.vtac, args.timeout, command, write_case, classify)


save_reproducer = fuzzing.record_reproducer(describe)


def smaller_cases(case):
    """Candidate simplifications of a case, each one step smaller."""
    s, c = case["spec"], case["config"]

    def variant(**changes):
        spec, config = json.loads(json.dumps(s)), dict(c)
        for key, value in changes.items():
            (config if key.startswith("LOG_") else spec)[key] = value
        return {"spec": spec, "config": config, "input_seed": case["input_seed"]}

    out = fuzzing.smaller_configs(case, variant)
    if c["LOG_BLOCK"] == 5:
        out.append(variant(LOG_BLOCK=4, block=16))
    for key in ("blocks", "h", "w"):
        out += [variant(**{key: v}) for v in sorted({1, s[key] // 2, s[key] - 1}) if 1 <= v < s[key]]
    for n in range(1, len(s["stages"])):
        out.append(variant(stages=s["stages"][:n] + s["stages"][n + 1:]))
    return out


def main(argv=None):
    result = fuzzing.vta_campaign(argv, sys.modules[__name__], "elementwise-fuzz", 2_000_000, Runner)
    if result is None:
        return 0
    done, counts, bugs = result
    print("elementwise-fuzz: %d cases, %d match, %d expected, %d bugs" % (
        done, counts.get("match", 0), counts.get("expected", 0), len(bugs)))
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())

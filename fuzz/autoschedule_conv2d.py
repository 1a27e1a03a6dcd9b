#!/usr/bin/python3
"""Differential fuzzer of `vtac run --auto-schedule` on packed int8 conv2d and dense (issue 26 item 6).

Each case draws a random conv2d (or with --kind dense a dense) in VTA's packed layout and a random VTA configuration, writes
the unscheduled TensorIR (the writer of samples/models/gen_resnet18_vta.py) and the
vta_config.json to a temporary directory, and runs

    vtac run case.tvm --auto-schedule --passes=vta-lower --random-inputs --seed S
             --reference case.tvm --stats --vta-config vta_config.json --output res=res.npy

which schedules the function by the built-in rule (passes/autoschedule/Conv2dPacked.cpp or
DensePacked.cpp), lowers
it, runs it on the VTA simulator and compares every element with the unscheduled program.

Drawn per case (numpy's default_rng([seed, case]), so case i is the same whatever --cases):
  VTA config   LOG_BLOCK 4 or 5, LOG_BATCH 0 or 1 (--log-batch restricts it), and the input,
               weight, accumulator and micro-op SRAMs: the defaults (15, 18, 17, 15), or each a
               few sizes smaller, or down to a single element (then often nothing fits)
  layout       block B = 2^LOG_BLOCK, batch tile BT = 2^LOG_BATCH: data (N/BT, C/B, H, W, BT, B),
               kernel (O/B, I/B, KH, KW, B, B); N = BT (half the cases) or 2, 3 or 4 BT (the
               rules' batch-tile knob)
  conv         C, O multiples of B (1..4 blocks, rarely up to 8), H, W 1..30, KH, KW 1..5
               (square or not), stride 1..3 and padding 0..2 (mostly the same on both axes;
               H + 2 pad >= K), at most --max-macs multiply-adds (the reference interpreter's time)
  dense        (--kind dense) data (N/BT, C/B, BT, B), weight (O/B, C/B, B, B), C, O 1..16 blocks
  epilogue     >> s, max with a, min with b, cast to int8: a, b mostly in int8 (a <= 0 < b, or
               any narrow or empty range), sometimes wider (the cast then wraps); s 0..10, or
               (60%) about log2 of the accumulators' spread over the clip range (up to 24), so
               that not all outputs saturate (--random-inputs are uniform int8)

Outcomes of a case:
  match       every compared tensor matches ("res: all N elements match the reference")
  expected    `file:line:col: error: no conv2d tile fits the VTA memories` with its source line
              and caret, when the smallest tile (1 oc block x 1 row x 1 column x 1 ic block:
              KH*KW input vectors, KH*KW weight blocks, one accumulator vector, KH*KW micro-ops
              in half the micro-op SRAM) exceeds an SRAM by this script's own count too; or the
              remark "stays on the CPU" when, by this script's count, a clip constant does not
              fit 16 bits, or no tiling can avoid a tile wholly in the padding (some output row
              or column reads only padding) or a GEMM pipeline hazard (KH*KW > 1 and fewer than
              3 output columns)
  bugs        mismatch (wrong numbers); crash (signal, sanitizer report, LLVM fatal error);
              timeout (also a simulator deadlock that never returns); error (any other error,
              an error without `file:line:col:` and a caret, a "no tile fits" although the
              smallest tile fits, a run although it does not, or an exit status without a
              diagnostic); cpu (the remark says the function "stays on the CPU": every drawn
              function is one the rule should take)

A failing case is written to --out DIR/<tag>/ (case.tvm, vta_config.json, command.sh with the
exact command line, output.txt with vtac's output, case.json with the drawn parameters). The
first --minimise-repeats cases of each distinct failure (its outcome and message without
numbers) are minimised greedily (fewer images, rows, columns, channel blocks, a smaller kernel,
stride 1, no padding, default clip, shift and SRAMs, BLOCK 16) while they fail the same way,
unless --no-minimise; the smallest failing case goes to DIR/<tag>/min/.

With --tune-trials N the case runs `vtac tune case.tvm --trials N --seed S --vta-config
vta_config.json -o best.py` instead: N schedules of the rule's space (its own, a quarter drawn,
then neighbours of the best), each of which vtac tune runs on the simulator and compares with
the unscheduled program (a difference is its error "computes a different result": a mismatch
here). Besides the outcomes above, a trial the lowering refuses (vtac tune's warning "vta-lower
refused") is a bug, refused: the rule's space holds a tiling that vta-lower cannot lower.

Last line: `autoschedule-fuzz: N cases, M match, K errors (expected), B bugs`; exit status 1 when
B > 0. Runs one vtac at a time. Needs /usr/bin/python3 with numpy (Debian's python3-numpy).
"""

import json
import os
import re
import sys

import numpy as np

import fuzzing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "samples", "models"))
import gen_resnet18_vta as writer  # noqa: E402  (the TensorIR writer of the packed conv2d)

# ---------------------------------------------------------------------------------------------
# Drawing a case


def draw_case(seed, index, args):
    rng = np.random.default_rng([seed, index])
    r = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731  inclusive
    config = fuzzing.draw_config(rng, args.log_batch, args.log_block)
    block, bt = 1 << config["LOG_BLOCK"], 1 << config["LOG_BATCH"]
    for _ in range(1000):
        blocks_max = 8 if rng.random() < 0.1 else 4
        images = bt * (1 if rng.random() < 0.5 else r(2, 4))
        if args.kind == "dense":
            spec = {"kind": "dense", "batch": images, "batch_tile": bt, "block": block,
                    "cin": block * r(1, 16), "cout": block * r(1, 16), "kh": 1, "kw": 1}
            draw_epilogue(rng, r, spec)
            if valid(spec) and macs(spec) <= args.max_macs:
                break
            continue
        spec = {"batch": images, "batch_tile": bt, "block": block,
                "cin": block * r(1, blocks_max), "cout": block * r(1, blocks_max),
                "h": r(1, 30), "w": r(1, 30), "kh": r(1, 5)}
        spec["kw"] = spec["kh"] if rng.random() < 0.5 else r(1, 5)
        spec["stride_h"] = r(1, 3)
        spec["stride_w"] = spec["stride_h"] if rng.random() < 0.85 else r(1, 3)
        spec["pad_h"] = r(0, 2)
        spec["pad_w"] = spec["pad_h"] if rng.random() < 0.85 else r(0, 2)
        draw_epilogue(rng, r, spec)
        if valid(spec) and macs(spec) <= args.max_macs:
            break
    else:
        raise RuntimeError("no case within --max-macs")
    return {"spec": spec, "config": config, "input_seed": r(0, 1 << 31)}


def draw_epilogue(rng, r, spec):
    """The clip range and the shift (spec's channels and kernel drawn)."""
    if rng.random() < 0.1:  # beyond int8: the cast wraps
        spec["clip_min"] = r(-(1 << 17), 0)
        spec["clip_max"] = r(0, 1 << 17)
    elif rng.random() < 0.2:  # a narrow or empty range
        spec["clip_min"] = r(-128, 127)
        spec["clip_max"] = r(-128, 127)
    else:
        spec["clip_min"] = r(-128, 0)
        spec["clip_max"] = r(1, 127)
    if rng.random() < 0.4:
        spec["shift"] = r(0, 10)
    else:  # the accumulators (uniform int8 inputs: std ~5461 sqrt(C KH KW)) >> shift ~ the clip range
        width = max(8, min(spec["clip_max"] - spec["clip_min"], 1 << 12))
        std = 5461.0 * np.sqrt(spec["cin"] * spec["kh"] * spec["kw"])
        spec["shift"] = int(np.clip(round(np.log2(2 * std / width)) + r(-1, 1), 0, 24))


def is_dense(spec):
    return spec.get("kind") == "dense"


def out_hw(spec):
    if is_dense(spec):
        return 1, 1
    ho = (spec["h"] + 2 * spec["pad_h"] - spec["kh"]) // spec["stride_h"] + 1
    wo = (spec["w"] + 2 * spec["pad_w"] - spec["kw"]) // spec["stride_w"] + 1
    return ho, wo


def valid(spec):
    if is_dense(spec):
        return (spec["cin"] % spec["block"] == 0 and spec["cout"] % spec["block"] == 0 and spec["cin"] > 0
                and spec["cout"] > 0 and spec["batch"] % spec["batch_tile"] == 0 and spec["batch"] > 0)
    return (spec["h"] >= 1 and spec["w"] >= 1 and spec["kh"] >= 1 and spec["kw"] >= 1
            and spec["h"] + 2 * spec["pad_h"] >= spec["kh"] and spec["w"] + 2 * spec["pad_w"] >= spec["kw"]
            and spec["cin"] % spec["block"] == 0 and spec["cout"] % spec["block"] == 0
            and spec["cin"] > 0 and spec["cout"] > 0 and spec["batch"] % spec["batch_tile"] == 0
            and spec["batch"] > 0)


def macs(spec):
    ho, wo = out_hw(spec)
    return spec["batch"] * spec["cout"] * ho * wo * spec["cin"] * spec["kh"] * spec["kw"]


def module_text(spec):
    s = spec
    header = ("# autoschedule fuzz case: %s\n" % json.dumps(s, sort_keys=True))
    if is_dense(s):
        dense = writer.DenseSpec(s["cin"], s["cout"], s["shift"], clip_min=s["clip_min"], clip_max=s["clip_max"],
                                 block=s["block"], batch=s["batch"], batch_tile=s["batch_tile"])
        return writer.MODULE_HEADER + header + "\n@I.ir_module\nclass Module:\n" + writer.dense_prim_func_text(dense, "main")
    conv = writer.ConvSpec(s["cin"], s["cout"], s["h"], s["w"], s["kh"], s["stride_h"], s["pad_h"], s["shift"],
                           clip_min=s["clip_min"], kw=s["kw"], stride_w=s["stride_w"], pad_w=s["pad_w"],
                           clip_max=s["clip_max"], block=s["block"], batch=s["batch"], batch_tile=s["batch_tile"])
    return writer.MODULE_HEADER + header + "\n@I.ir_module\nclass Module:\n" + writer.prim_func_text(conv, "main")


def smallest_tile_fits(case):
    """This script's own count of the smallest tile against the SRAMs (see the docstring)."""
    s, c = case["spec"], case["config"]
    inp_elem, acc_elem = s["batch_tile"] * s["block"], s["batch_tile"] * s["block"] * 4
    window = s["kh"] * s["kw"]
    return (window * inp_elem <= 1 << c["LOG_INP_BUFF_SIZE"]
            and window * s["block"] * s["block"] <= 1 << c["LOG_WGT_BUFF_SIZE"]
            and acc_elem <= 1 << c["LOG_ACC_BUFF_SIZE"]
            and window * 4 <= (1 << c["LOG_UOP_BUFF_SIZE"]) // 2)


def padding_only_window(case):
    """Whether some output row or column reads only padding (this script's own count): the
    premise of the rule's refusal "no conv2d tiling fits ... with every tile's input window on
    the data" (an all-padding tile's DMA would have no rows, which VTA runs as a no-op)."""
    s = case["spec"]
    ho, wo = out_hw(s)
    for extent, outputs, kernel, stride, pad in ((s["h"], ho, s["kh"], s["stride_h"], s["pad_h"]),
                                                 (s["w"], wo, s["kw"], s["stride_w"], s["pad_w"])):
        for o in range(outputs):
            first = o * stride - pad
            if first + kernel <= 0 or first >= extent:
                return True
    return False


def hazard_free_tile_fits(case):
    """Whether the smallest tile with 3+ output columns (1 oc block x 1 row x the least divisor
    d >= 3 of the output width x 1 ic block) fits the SRAMs, by the count of smallest_tile_fits."""
    s, c = case["spec"], case["config"]
    wo = out_hw(s)[1]
    cols = next((d for d in range(3, wo + 1) if wo % d == 0), None)
    if cols is None:
        return False
    inp_elem, acc_elem = s["batch_tile"] * s["block"], s["batch_tile"] * s["block"] * 4
    window = s["kh"] * ((cols - 1) * s["stride_w"] + s["kw"])
    return (window * inp_elem <= 1 << c["LOG_INP_BUFF_SIZE"]
            and s["kh"] * s["kw"] * s["block"] * s["block"] <= 1 << c["LOG_WGT_BUFF_SIZE"]
            and cols * acc_elem <= 1 << c["LOG_ACC_BUFF_SIZE"]
            and s["kh"] * s["kw"] * cols * 4 <= (1 << c["LOG_UOP_BUFF_SIZE"]) // 2)


def cpu_expected(case, reason):
    """Whether the rule's reason to leave the function on the CPU holds by this script's count."""
    s = case["spec"]
    if "does not fit the ALU's 16-bit immediate" in reason:
        return not (-32768 <= s["clip_min"] <= 32767 and -32768 <= s["clip_max"] <= 32767)
    if reason.startswith("no conv2d tiling that fits the SRAMs keeps every tile's input window"):
        # hazard-free GEMM kernels need tiles of 3+ columns unless the reduction per tile is 1
        return padding_only_window(case) or (s["kh"] * s["kw"] > 1 and not hazard_free_tile_fits(case))
    return False


def describe(case):
    s, c = case["spec"], case["config"]
    config = "BATCH %d BLOCK %d SRAM 2^%d/%d/%d/%d" % (
        1 << c["LOG_BATCH"], 1 << c["LOG_BLOCK"], c["LOG_INP_BUFF_SIZE"], c["LOG_WGT_BUFF_SIZE"],
        c["LOG_ACC_BUFF_SIZE"], c["LOG_UOP_BUFF_SIZE"])
    if is_dense(s):
        return "dense N%d %d->%d >>%d clip[%d,%d] | %s" % (s["batch"], s["cin"], s["cout"], s["shift"], s["clip_min"],
                                                           s["clip_max"], config)
    ho, wo = out_hw(s)
    return ("N%d %d->%d %dx%d k%dx%d s%d,%d p%d,%d -> %dx%d >>%d clip[%d,%d] | %s" % (
        s["batch"], s["cin"], s["cout"], s["h"], s["w"], s["kh"], s["kw"], s["stride_h"], s["stride_w"],
        s["pad_h"], s["pad_w"], ho, wo, s["shift"], s["clip_min"], s["clip_max"], config))


def load_case(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return {"spec": data["spec"], "config": data["config"], "input_seed": data["input_seed"]}


# ---------------------------------------------------------------------------------------------
# Running and classifying


def command(vtac, case):
    return fuzzing.autoschedule_command(vtac, case, ["--output", "res=res.npy"])


def tune_command(trials):
    def command_of(vtac, case):
        return [vtac, "tune", "case.tvm", "--trials", str(trials), "--seed", str(case["input_seed"]),
                "--vta-config", "vta_config.json", "-o", "best.py"]
    return command_of


def write_case(directory, case):
    fuzzing.write_files(directory, fuzzing.case_files(module_text(case["spec"]), case["config"]))


def classify_refusal(case, outcome, message, err):
    """(outcome, detail) of a located error or a function left on the CPU, as both modes see them;
    None for other runs."""
    if outcome == "located":
        if message.startswith("no %s tile fits the VTA memories" % ("dense" if is_dense(case["spec"]) else "conv2d")):
            if smallest_tile_fits(case):
                return "error", "'no tile fits' although the smallest tile fits: " + message
            return "expected", message
        if not message.startswith("tune: no prim_func a VTA auto-schedule rule recognises"):
            return "error", message
    if "stays on the CPU" in err:
        m = re.search(r"stays on the CPU: (.*)", err)
        reason = m.group(1) if m else "stays on the CPU"
        if cpu_expected(case, reason):
            return "expected", reason
        return "cpu", reason
    if outcome == "located":
        return "error", message
    return None


def classify(case, rc, out, err):
    """(outcome, detail): outcome is 'match', 'expected' or a bug kind."""
    outcome, message = fuzzing.check_run(rc, out, err)
    refusal = classify_refusal(case, outcome, message, err)
    if refusal:
        return refusal
    if outcome:
        return outcome, message
    rule = "dense-packed" if is_dense(case["spec"]) else "conv2d-packed"
    return fuzzing.check_scheduled(out, err, rule, "gemm_counter", "GEMM", smallest_tile_fits(case))


def classify_tune(case, rc, out, err):
    """classify() of a `vtac tune` run."""
    outcome, message = fuzzing.check_run(rc, out, err)
    if "computes a different result" in err:
        return "mismatch", message
    refusal = classify_refusal(case, outcome, message, err)
    if refusal:
        return refusal
    if outcome:
        return outcome, message
    m = re.search(r"warning: vta-lower refused .*\n.*error: (.*)", err)
    if m:
        return "refused", m.group(1)
    if "schedules measured" not in out:
        return "error", "exit status 0 but no trial measured"
    if not smallest_tile_fits(case):
        return "error", "tuned although the smallest tile exceeds an SRAM by this script's count"
    return "match", ""


def remark_of(err):
    m = re.search(r"remark: \[auto-schedule\] (.*)", err)
    return m.group(1) if m else ""


def informative_fraction(case, directory):
    """Fraction of outputs strictly inside the clip range (not saturated), None when unknown."""
    s = case["spec"]
    lo, hi = s["clip_min"], s["clip_max"]
    if lo < -128 or hi > 127 or lo >= hi:
        return None
    try:
        res = np.load(os.path.join(directory, "res.npy")).astype(np.int32)
    except (OSError, ValueError):
        return None
    return float(np.mean((res > lo) & (res < hi)))


def Runner(args):
    if args.tune_trials:
        return fuzzing.VtacRunner(args.vtac, args.timeout, tune_command(args.tune_trials), write_case, classify_tune,
                                  outputs=("best.py",))
    return fuzzing.VtacRunner(args.vtac, args.timeout, command, write_case, classify, outputs=("res.npy",))


def add_arguments(parser):
    parser.add_argument("--kind", choices=("conv2d", "dense"), default="conv2d",
                        help="the operator drawn (default conv2d)")
    parser.add_argument("--tune-trials", type=int, default=0, metavar="N",
                        help="run `vtac tune --trials N` instead of `vtac run --auto-schedule` (see above)")


save_reproducer = fuzzing.record_reproducer(describe)


# ---------------------------------------------------------------------------------------------
# Minimising


def smaller_cases(case):
    """Candidate simplifications of a case, each one step smaller."""
    s, c = case["spec"], case["config"]

    def variant(**changes):
        spec = dict(s)
        config = dict(c)
        for key, value in changes.items():
            (config if key.startswith("LOG_") else spec)[key] = value
        return {"spec": spec, "config": config, "input_seed": case["input_seed"]}

    out = fuzzing.smaller_configs(case, variant)
    if c["LOG_BLOCK"] == 5:  # the same numbers of channel blocks at BLOCK 16
        out.append(variant(LOG_BLOCK=4, block=16, cin=s["cin"] // 2, cout=s["cout"] // 2))
    if (s["clip_min"], s["clip_max"]) != (0, 127):
        out.append(variant(clip_min=0, clip_max=127))
    if s["shift"] != 8:
        out.append(variant(shift=8))
    for ch in ("cin", "cout"):
        blocks = s[ch] // s["block"]
        for v in sorted({1, blocks // 2, blocks - 1}):
            if 1 <= v < blocks:
                out.append(variant(**{ch: v * s["block"]}))
    if s["batch"] > s["batch_tile"]:
        out.append(variant(batch=s["batch_tile"]))
    if is_dense(s):
        return [v for v in out if valid(v["spec"])]
    # both axes at once first (square stays square), then one axis
    for a, b, smaller in (("h", "w", lambda v: {1, v // 2, v - 1}), ("kh", "kw", lambda v: {1, v - 1}),
                          ("stride_h", "stride_w", lambda v: {1}), ("pad_h", "pad_w", lambda v: {0})):
        low = 0 if a == "pad_h" else 1
        if s[a] == s[b]:
            out += [variant(**{a: v, b: v}) for v in sorted(smaller(s[a])) if low <= v < s[a]]
        else:
            out.append(variant(**{a: min(s[a], s[b]), b: min(s[a], s[b])}))
        for key in (a, b):
            out += [variant(**{key: v}) for v in sorted(smaller(s[key])) if low <= v < s[key]]
    return [v for v in out if valid(v["spec"])]


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    informative = []

    def note(case, outcome, rc, out, err, casedir):
        if outcome != "match":
            return ""
        frac = informative_fraction(case, casedir)
        if frac is not None:
            informative.append(frac)
        return remark_of(err)

    def summary():
        return ("; outputs inside the clip range (not saturated): %.0f%% on average" % (
            100 * np.mean(informative)) if informative else "")

    result = fuzzing.vta_campaign(argv, sys.modules[__name__], "autoschedule-fuzz", 12_000_000, Runner, note, summary,
                                  add_arguments)
    if result is None:
        return 0
    done, counts, bugs = result
    print("autoschedule-fuzz: %d cases, %d match, %d errors (expected), %d bugs" % (
        done, counts.get("match", 0), counts.get("expected", 0), len(bugs)))
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())

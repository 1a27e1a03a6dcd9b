#!/usr/bin/python3
"""Differential fuzzer of hand-style VTA schedules (`vtac run --schedule`, issue 26 item 6).

Where fuzz/autoschedule_conv2d.py tests the schedules the built-in rule chooses, this one writes
its own schedule traces, outside that rule's space, in the form of samples/conv2d_vta_schedule.py
and samples/gemm_blocked_vta_schedule.py. Each case draws a packed int8 workload, a VTA
configuration and a random legal schedule, writes case.tvm (the writers of
samples/models/gen_resnet18_vta.py), trace.py and vta_config.json to a directory, and runs

    vtac run case.tvm --schedule trace.py --passes=vta-lower --random-inputs --seed S
             --reference case.tvm --stats --vta-config vta_config.json

which applies the trace, lowers for VTA, runs on the VTA simulator and compares every element with
the unscheduled program run by the interpreter.

Drawn per case (numpy's default_rng([seed, case]), so case i is the same whatever --cases):
  VTA config   LOG_BATCH 0/1 (--log-batch), LOG_BLOCK 4/5 (--log-block), the four SRAM sizes:
               the defaults, a few sizes smaller, or down to one element (fuzzing.draw_config)
  workload     conv2d (70%): packed data (N/BT, C/B, H, W, BT, B), kernel (O/B, C/B, KH, KW, B, B),
               C, O 1..4 blocks, H, W 1..16, KH, KW 1..3, stride 1..2, padding 0..1 per axis;
               dense (30%): data (N/BT, C/B, BT, B), weight (O/B, C/B, B, B), C, O 1..16 blocks
               (seed 003's GEMM: 1 x 1024 by 1024 x 1024 at most);
               N = BT or 2 BT (or 4 BT for dense); epilogue >> s, max, min, cast to int8 (the
               elementwise int32 stages on packed tensors, on VTA's ALU)
  schedule     a tile size (divisor) of every output axis (batch, oc blocks, rows, columns) and of
               the reduction's ic blocks; the loop (tile level) where the GEMM block is computed,
               and deeper or equal ones for the shift, max and min stages (each stage its own);
               the order of the GEMM's loops inside the ic-block loop (the tensorized batch,
               channel and ic vector loops innermost); 0 to 3 virtual-thread axes (cthread, 2 or
               4 threads each, at most 8 in all) split off loops around the GEMM, each left where
               the split puts it or moved up the nest (so with or without loops between two
               thread axes); the input and weight loads computed at the ic-block loop or at the
               tile level; the DMA pragma of each load, and the ALU pragma of each epilogue stage,
               on the first loop of the stage or a deeper one; the store's DMA pragma on one of
               the output tile's loops (unit loops included)

Outcomes of a case:
  match       `res: all N elements match the reference`, the simulator counted GEMMs, and no
              SRAM is over-full by this script's lower bound of the need (below)
  expected    a located error (`file:line:col: error:` with its source line and caret) this
              script justifies by its own count: "[storage-rewrite] the allocations in 'S' need
              N bytes, which exceeds the M bytes of that memory" when its upper bound of S's need
              exceeds M; and the limits of VTA's DMA, ALU and micro-kernels (Plan.justify) when
              this script's count shows them: a tile whose input window lies in the padding, a
              padded load of several images or ic blocks or whose padding is on no loop of the
              copy, a load of more than two dimensions, a store of rows narrower than the
              accumulator tile, reset and update with no load between them, a GEMM pipeline
              hazard, an epilogue stage at a deeper loop than its producer (the ALU works in place)
  bugs        mismatch; timeout (also a simulator deadlock); crash (signal, sanitizer report,
              LLVM fatal error); error (an error without location or caret, any located error
              not justified above, an SRAM error although the upper bound fits, no GEMM counted,
              exit status 0 without the comparison); overflow (the run was accepted although the
              lower bound of an SRAM's need exceeds it)

SRAM need (bytes, each buffer counted once per virtual thread: every thread has its own copy):
input = the data tile (batch x ic blocks x window rows x window columns vectors of BT x B
bytes) at the loop where it is loaded; weight = oc x ic blocks x KH x KW blocks of B x B bytes;
accumulator: lower bound = the GEMM's tile (vectors of BT x B x 4 bytes); upper bound = the GEMM
tile plus each epilogue stage's tile (in place or not).

A failing case is written to --out DIR/<tag>/ (case.tvm, trace.py, vta_config.json, command.sh,
output.txt, case.json). The first --minimise-repeats cases of each distinct failure (outcome and
message without numbers) are minimised greedily (no thread axes or fewer, default pragmas and
positions, smaller shapes, default SRAMs, BLOCK 16) while they fail the same way; the smallest
goes to DIR/<tag>/min/. --replay CASE.json reruns a saved case.

Last line: `vta-schedule-fuzz: N cases, M match, K expected, B bugs`; exit status 1 when B > 0.
Runs one vtac at a time. Needs /usr/bin/python3 with numpy (Debian's python3-numpy).
"""

import copy
import json
import os
import re
import sys

import numpy as np

import fuzzing
from fuzzing import DEFAULT_SIZES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "samples", "models"))
import gen_resnet18_vta as writer  # noqa: E402  (the TensorIR writers of packed conv2d and dense)

SRAM_ERROR = re.compile(r"^\[storage-rewrite\] the allocations in '([\w.]+)' need (\d+) bytes, which exceeds "
                        r"the (\d+) bytes of that memory")
SCOPE_KEY = {"local.inp_buffer": "LOG_INP_BUFF_SIZE", "local.wgt_buffer": "LOG_WGT_BUFF_SIZE",
             "local.acc_buffer": "LOG_ACC_BUFF_SIZE"}
EPILOGUE = ("res_shr", "res_max", "res_min")


# ---------------------------------------------------------------------------------------------
# Workloads


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def out_hw(s):
    return ((s["h"] + 2 * s["pad_h"] - s["kh"]) // s["stride_h"] + 1,
            (s["w"] + 2 * s["pad_w"] - s["kw"]) // s["stride_w"] + 1)


def valid(s):
    if s["cin"] <= 0 or s["cout"] <= 0 or s["cin"] % s["block"] or s["cout"] % s["block"]:
        return False
    if s["batch"] <= 0 or s["batch"] % s["batch_tile"]:
        return False
    if s["kind"] == "dense":
        return True
    return (s["h"] >= 1 and s["w"] >= 1 and s["kh"] >= 1 and s["kw"] >= 1
            and s["h"] + 2 * s["pad_h"] >= s["kh"] and s["w"] + 2 * s["pad_w"] >= s["kw"])


def macs(s):
    n = s["batch"] * s["cout"] * s["cin"]
    if s["kind"] == "dense":
        return n
    ho, wo = out_hw(s)
    return n * ho * wo * s["kh"] * s["kw"]


def out_axes(s):
    """The output's outer axes (name, extent): batch tiles, oc blocks (and rows, columns)."""
    axes = [("b", s["batch"] // s["batch_tile"]), ("oc", s["cout"] // s["block"])]
    if s["kind"] == "conv":
        ho, wo = out_hw(s)
        axes += [("y", ho), ("x", wo)]
    return axes


def module_text(s):
    header = "# vta schedule fuzz case: %s\n" % json.dumps(s, sort_keys=True)
    if s["kind"] == "dense":
        spec = writer.DenseSpec(s["cin"], s["cout"], s["shift"], clip_min=s["clip_min"], clip_max=s["clip_max"],
                                block=s["block"], batch=s["batch"], batch_tile=s["batch_tile"])
        body = writer.dense_prim_func_text(spec, "main")
    else:
        spec = writer.ConvSpec(s["cin"], s["cout"], s["h"], s["w"], s["kh"], s["stride_h"], s["pad_h"], s["shift"],
                               clip_min=s["clip_min"], kw=s["kw"], stride_w=s["stride_w"], pad_w=s["pad_w"],
                               clip_max=s["clip_max"], block=s["block"], batch=s["batch"], batch_tile=s["batch_tile"])
        body = writer.prim_func_text(spec, "main")
    return writer.MODULE_HEADER + header + "\n@I.ir_module\nclass Module:\n" + body


def draw_spec(rng, config, args):
    r = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731  inclusive
    block, bt = 1 << config["LOG_BLOCK"], 1 << config["LOG_BATCH"]
    for _ in range(1000):
        if rng.random() < 0.3:
            s = {"kind": "dense", "batch": bt * int(rng.choice([1, 1, 2, 4])), "cin": block * r(1, 16),
                 "cout": block * r(1, 16)}
        else:
            s = {"kind": "conv", "batch": bt * (2 if rng.random() < 0.2 else 1), "cin": block * r(1, 4),
                 "cout": block * r(1, 4), "h": r(1, 16), "w": r(1, 16), "kh": r(1, 3)}
            s["kw"] = s["kh"] if rng.random() < 0.6 else r(1, 3)
            s["stride_h"] = r(1, 2)
            s["stride_w"] = s["stride_h"] if rng.random() < 0.8 else r(1, 2)
            s["pad_h"] = r(0, 1)
            s["pad_w"] = s["pad_h"] if rng.random() < 0.8 else r(0, 1)
        s.update(block=block, batch_tile=bt)
        s["clip_min"], s["clip_max"] = r(-128, 0), r(1, 127)
        reduction = s["cin"] * (s["kh"] * s["kw"] if s["kind"] == "conv" else 1)
        s["shift"] = int(np.clip(round(np.log2(2 * 5461.0 * np.sqrt(reduction) / (s["clip_max"] - s["clip_min"])))
                                 + r(-1, 1), 0, 24))
        if valid(s) and macs(s) <= args.max_macs:
            return s
    raise RuntimeError("no workload within --max-macs")


# ---------------------------------------------------------------------------------------------
# Schedules: the drawn decisions (a dict of plain values, so that a case is JSON) and the trace


def draw_schedule(rng, s):
    r = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731  inclusive
    pick = lambda seq: seq[int(rng.integers(0, len(seq)))]  # noqa: E731
    axes = out_axes(s)
    d = {"tiles": [pick(divisors(n)) for _, n in axes], "ic_tile": pick(divisors(s["cin"] // s["block"]))}
    n = len(axes)
    # tile levels: 1 = under the batch-tile loop .. n = under the innermost outer loop
    d["gemm_level"] = n if rng.random() < 0.5 else r(1, n)
    levels = sorted(r(d["gemm_level"], n) for _ in EPILOGUE) if rng.random() < 0.4 else [d["gemm_level"]] * 3
    d["epilogue_levels"] = levels  # shr outermost of the three (its consumers are inside it)
    mid = ["bo", "co", "i", "j", "ic_i", "dy", "dx"] if s["kind"] == "conv" else ["bo", "co", "ic_i"]
    if rng.random() < 0.35:
        d["mid"] = [mid[k] for k in rng.permutation(len(mid))]
    else:
        d["mid"] = ["bo", "co", "i", "ic_i", "dy", "dx", "j"] if s["kind"] == "conv" else mid
    d["data_at"] = "ic" if rng.random() < 0.75 else "tile"
    d["weight_at"] = "ic" if rng.random() < 0.75 else "tile"
    # virtual threads: (position in the nest of loops around the GEMM, threads, move up to position or None)
    nest = [ext // t for (_, ext), t in zip(axes, d["tiles"])][:d["gemm_level"]]
    threads, total = [], 1
    for _ in range(int(rng.choice([0, 1, 1, 2, 2, 3]))):
        options = [(p, k) for p, ext in enumerate(nest) if ext is not None for k in (2, 4)
                   if ext % k == 0 and total * k <= 8]
        if not options:
            break
        p, k = pick(options)
        up = r(0, p) if rng.random() < 0.5 else None
        threads.append([p, k, up])
        total *= k
        nest[p:p + 1] = [nest[p] // k, None]  # None: a thread loop (not split again)
        if up is not None and up <= p:
            nest.insert(up, nest.pop(p + 1))
    d["threads"] = threads
    # pragma positions: 0 = the stage's first loop, k = its k-th loop, clamped to the first loop
    # of the vector (a DMA moves whole input vectors, weight blocks, output vectors; the ALU walks
    # whole accumulator vectors)
    deep = lambda: 0 if rng.random() < 0.6 else r(1, 5)  # noqa: E731
    d["data_pragma"], d["weight_pragma"] = deep(), deep()
    d["alu_pragma"] = [deep() for _ in EPILOGUE]
    # the store: a loop that walks whole output vectors (oc_t only when BATCH is 1)
    stores = ["b_t"] + ["oc_t", "oc_t"] * (s["batch_tile"] == 1) + ["x_i", "y_i"] * (s["kind"] == "conv")
    d["store_pragma"] = pick(stores)
    return d


class Plan:
    """The loop nests a schedule makes, as this script models them: tiles per stage, the outer
    nest (names of the res block's loops outside the tile), thread extents, and the loop index of
    each stage's pragma."""

    def __init__(self, s, d):
        self.s, self.d = s, d
        axes = out_axes(s)
        self.names = [name for name, _ in axes]
        self.ext = {name: e for name, e in axes}
        self.tile = {name: t for name, t in zip(self.names, d["tiles"])}
        # the outer nest before the thread splits: b_o, oc_o, (y_o, x_o)
        self.nest = [name + "_o" for name in self.names]
        self.thread_extent = 1
        self.steps = []  # (split loop, outer name, thread name, threads, reorder list or None)
        for t, (p, k, up) in enumerate(d["threads"]):
            loop = self.nest[p]
            outer, inner = "%s_v%d" % (loop.split("_")[0], t), "t%d" % t
            self.nest[p:p + 1] = [outer, inner]
            order = None
            if up is not None and up <= p:
                order = [inner] + self.nest[up:p + 1]
                self.nest[up:p + 2] = order
            self.steps.append((loop, outer, inner, k, order))
            self.thread_extent *= k
        self.splits = len(d["threads"])

    def depth(self, level):
        """Loops around a block computed at tile level `level` (after the thread splits)."""
        return level + len(self.d["threads"])  # every thread axis is split off a loop around the GEMM

    def stage_tile(self, level):
        """Extents of the output tile of a stage at `level`: b, oc (, y, x)."""
        return [self.tile[n] if k < level else self.ext[n] for k, n in enumerate(self.names)]

    def gemm_tile(self):
        return self.stage_tile(self.d["gemm_level"])

    def data_tile(self):
        """Extents of the input tile: b, ic (, rows, columns), vector dims excluded."""
        s = self.s
        t = self.gemm_tile()
        ic = self.d["ic_tile"] if self.d["data_at"] == "ic" else s["cin"] // s["block"]
        if s["kind"] == "dense":
            return [t[0], ic]
        return [t[0], ic, (t[2] - 1) * s["stride_h"] + s["kh"], (t[3] - 1) * s["stride_w"] + s["kw"]]

    def weight_tile(self):
        s = self.s
        t = self.gemm_tile()
        ic = self.d["ic_tile"] if self.d["weight_at"] == "ic" else s["cin"] // s["block"]
        return [t[1], ic] + ([s["kh"], s["kw"]] if s["kind"] == "conv" else [])

    def need(self):
        """{scope key: (lower bound, upper bound)} of bytes, every thread's copy counted."""
        s = self.s
        bt, b = s["batch_tile"], s["block"]
        n = self.thread_extent
        inp = int(np.prod(self.data_tile())) * bt * b * n
        wgt = int(np.prod(self.weight_tile())) * b * b * n
        acc_vec = bt * b * 4
        gemm = int(np.prod(self.gemm_tile())) * acc_vec * n
        stages = sum(int(np.prod(self.stage_tile(lv))) for lv in self.d["epilogue_levels"]) * acc_vec * n
        return {"LOG_INP_BUFF_SIZE": (inp, inp), "LOG_WGT_BUFF_SIZE": (wgt, wgt),
                "LOG_ACC_BUFF_SIZE": (gemm, gemm + stages)}

    def padding_only_tile(self):
        """Whether some GEMM tile's input window lies wholly in the padding on an axis."""
        s = self.s
        if s["kind"] == "dense":
            return False
        t = self.gemm_tile()
        for extent, outputs, tile, kernel, stride, pad in (
                (s["h"], self.ext["y"], t[2], s["kh"], s["stride_h"], s["pad_h"]),
                (s["w"], self.ext["x"], t[3], s["kw"], s["stride_w"], s["pad_w"])):
            for start in range(0, outputs, tile):
                first = start * stride - pad
                last = (start + tile - 1) * stride - pad + kernel - 1
                if last < 0 or first >= extent:
                    return True
        return False


    def padded_data(self):
        s = self.s
        return s["kind"] == "conv" and (s["pad_h"] > 0 or s["pad_w"] > 0)

    def justify(self, message, config):
        """The reason, by this script's count, for a located error other than an SRAM overflow
        (None when there is none): limits of VTA's DMA and micro-kernels that TVM's VTA flow has too."""
        s, d = self.s, self.d
        data = self.data_tile()
        if (("padding" in message and "wholly" in message)
                or message.startswith("[inject-dma-copies] dma_copy: the stored value is not a load")) \
                and self.padding_only_tile():
            # an all-padding window: the copy's value folds to 0, VTA cannot load it
            return "a tile's input window lies in the padding"
        if message.startswith("[inject-dma-copies] dma_copy: cannot derive the padding from the copy's condition") \
                and self.padded_data() and (min(d["data_pragma"], own_loops(data)) > 0 or self.unit_padded_window()):
            # the condition bounds a loop outside the copy: the pragma is inside the padded
            # window, or a padded axis's window is one row or column (no loop of the copy)
            return "a padded load whose padding is not on a loop of the copy"
        if (message.startswith("[inject-dma-copies] dma_copy: padding on an inner dimension of the tile")
                or message.startswith("[inject-dma-copies] dma_copy: cannot detect a 2D pattern")
                or message.startswith("[inject-dma-copies] dma_copy: a padded load needs")) \
                and self.padded_data() and (data[0] > 1 or data[1] > 1):
            # VTA pads the two outer dimensions of a 2D copy: rows and columns, nothing outside them
            return "a padded load of several images or ic blocks"
        if message.startswith("[inject-dma-copies] dma_copy: cannot detect a 2D pattern") and not self.padded_data() \
                and max(self.copy_dims("data"), self.copy_dims("weight")) > 2:
            return "a load of more than two dimensions (VTA's DMA is 2D)"
        if message.startswith("[inject-dma-copies] dma_copy: the copy does not walk the local.acc_buffer buffer "
                              "densely in loop order") and s["kind"] == "conv" and d["store_pragma"] == "y_i" \
                and self.stage_tile(d["epilogue_levels"][2])[3] != self.tile["x"]:
            # a store's SRAM side is contiguous: rows of a tile narrower than the stage's buffer are not
            return "a store of rows narrower than the accumulator tile"
        if message.startswith("[fold-uop-loop] the GEMM micro-kernel mixes reset and accumulating micro-ops") \
                and d["data_at"] == d["weight_at"] == "tile":
            return "no load inside the reduction loop separates reset and update"
        if "with an immediate the ALU computes dst = dst op imm" in message \
                and any(lv != d["gemm_level"] for lv in d["epilogue_levels"]):
            # VTA's ALU works in place: a stage at a deeper loop than its producer reads another
            # part of the shared accumulator
            return "an epilogue stage at a deeper loop than its producer"
        if "consecutive micro-ops of loop" in message and self.hazard():
            return "a GEMM pipeline hazard"
        m = re.search(r"micro-kernel records (\d+) micro-ops, but the micro-op SRAM holds (\d+)", message)
        if m and int(m.group(2)) == (1 << config["LOG_UOP_BUFF_SIZE"]) // 4 \
                and int(m.group(2)) < int(m.group(1)) <= self.max_kernel_uops():
            return "a micro-kernel larger than the micro-op SRAM"
        return None

    def max_kernel_uops(self):
        """The most micro-ops one micro-kernel can record (no loop folded): the GEMM's over its
        tile, ic blocks and window, or an ALU stage's over its tile."""
        s, d = self.s, self.d
        window = s["kh"] * s["kw"] if s["kind"] == "conv" else 1
        gemm = int(np.prod(self.gemm_tile())) * d["ic_tile"] * window
        return max([gemm] + [int(np.prod(self.stage_tile(lv))) for lv in d["epilogue_levels"]])

    def unit_padded_window(self):
        s = self.s
        data = self.data_tile()
        return (s["pad_h"] > 0 and data[2] == 1) or (s["pad_w"] > 0 and data[3] == 1)

    def copy_dims(self, which):
        """Dimensions of a load's DRAM side below its DMA pragma after merging contiguous ones
        (one more when the innermost is not contiguous): VTA's DMA moves at most 2."""
        s, d = self.s, self.d
        if which == "data":
            tile, pragma = self.data_tile(), d["data_pragma"]
            full = [s["batch"] // s["batch_tile"], s["cin"] // s["block"]] + ([s["h"], s["w"]] if s["kind"] == "conv" else [])
        else:
            tile, pragma = self.weight_tile(), d["weight_pragma"]
            full = [s["cout"] // s["block"], s["cin"] // s["block"]] + ([s["kh"], s["kw"]] if s["kind"] == "conv" else [])
        strides = [int(np.prod(full[k + 1:])) for k in range(len(full))]
        dims = [(e, st) for e, st in zip(tile, strides) if e > 1]
        dims = dims[min(pragma, len(dims)):]
        groups, base, size = 0, None, 0
        for e, st in reversed(dims):
            if base is not None and st == base * size:
                size *= e
            else:
                groups += 1
                base, size = st, e
        if dims and dims[-1][1] != 1:
            groups += 1
        return groups

    def mid_extents(self):
        s, d = self.s, self.d
        t = self.gemm_tile()
        ext = {"bo": t[0], "co": t[1], "ic_i": d["ic_tile"]}
        if s["kind"] == "conv":
            ext.update(i=t[2], j=t[3], dy=s["kh"], dx=s["kw"])
        return [(name, ext[name]) for name in d["mid"]]

    def hazard(self):
        """Whether some reduction loop of the GEMM kernel (ic_i, dy, dx; extent > 1) has inside it
        spatial loops of fewer than 3 iterations in all: then a micro-op writes the accumulator
        vector one of the two micro-ops before it wrote (VTA's runtime refuses the kernel)."""
        inner = 1
        for name, ext in reversed(self.mid_extents()):
            if name in ("ic_i", "dy", "dx"):
                if ext > 1 and inner < 3:
                    return True
            else:
                inner *= ext
        return False


def own_loops(extents):
    """How many loops compute_at (preserve_unit_loops=False) gives a block: one per extent > 1."""
    return sum(1 for e in extents if e > 1)


def trace_text(s, d):
    p = Plan(s, d)
    conv = s["kind"] == "conv"
    gemm = "res_conv" if conv else "res_gem"
    lines = ["# vta schedule fuzz trace: %s" % json.dumps(d, sort_keys=True), "def apply_trace(sch):",
             "    res = sch.get_block(\"res\")"]
    w = lines.append
    names = p.names
    w("    %s, b_t, oc_t = sch.get_loops(res)" % ", ".join(names))
    for n in names:
        w("    %s_o, %s_i = sch.split(%s, factors=[None, %d])" % (n, n, n, p.tile[n]))
    inner = ["%s_i" % n for n in names] + ["b_t", "oc_t"]
    w("    sch.reorder(%s)" % ", ".join(["%s_o" % n for n in names] + inner))
    level_loop = lambda lv: "%s_o" % names[lv - 1]  # noqa: E731
    # consumers first: compute_at needs the consumers of a block in place
    for stage, lv in zip(EPILOGUE[::-1], d["epilogue_levels"][::-1]):
        w("    sch.compute_at(sch.get_block(\"%s\"), %s)" % (stage, level_loop(lv)))
    w("    gemm = sch.get_block(\"%s\")" % gemm)
    w("    sch.compute_at(gemm, %s, preserve_unit_loops=True)" % level_loop(d["gemm_level"]))
    own = ["bo", "co", "i", "j", "bi", "ci", "ic", "dy", "dx", "ic_t"] if conv else ["bo", "co", "bi", "ci", "ic", "ic_t"]
    outer = ["g%d" % k for k in range(d["gemm_level"])]
    w("    %s = sch.get_loops(gemm)" % ", ".join(outer + own))
    w("    ic_o, ic_i = sch.split(ic, factors=[None, %d])" % d["ic_tile"])
    w("    sch.reorder(%s)" % ", ".join(["ic_o"] + d["mid"] + ["bi", "ci", "ic_t"]))
    for loop, outer_name, thread, k, order in p.steps:
        w("    %s, %s = sch.split(%s, factors=[None, %d])" % (outer_name, thread, loop, k))
        if order:
            w("    sch.reorder(%s)" % ", ".join(order))
        w("    sch.bind(%s, \"cthread\")" % thread)
    if conv and not (s["pad_h"] or s["pad_w"]):
        w("    data_buf = sch.cache_read(block=gemm, read_buffer_index=0, storage_scope=\"local.inp_buffer\")")
    else:
        w("    data_buf = sch.get_block(\"data_buf\")")
        w("    sch.set_scope(data_buf, 0, \"local.inp_buffer\")")
    w("    weight_buf = sch.get_block(\"%s\")" % ("kernel_buf" if conv else "weight_buf"))
    w("    sch.set_scope(weight_buf, 0, \"local.wgt_buffer\")")
    w("    sch.set_scope(gemm, 0, \"local.acc_buffer\")")
    for stage in EPILOGUE:
        w("    sch.set_scope(sch.get_block(\"%s\"), 0, \"local.acc_buffer\")" % stage)
    for buf, at in (("data_buf", d["data_at"]), ("weight_buf", d["weight_at"])):
        w("    sch.compute_at(%s, %s)" % (buf, "ic_o" if at == "ic" else "ic_o_parent"))
    w("    init = sch.decompose_reduction(gemm, ic_o)")
    # pragmas: on the stage's first own loop, or a deeper one (at most the vector's first loop)
    gemm_depth = p.depth(d["gemm_level"])
    for buf, at, tile, key in (("data_buf", d["data_at"], p.data_tile(), "data_pragma"),
                               ("weight_buf", d["weight_at"], p.weight_tile(), "weight_pragma")):
        depth = gemm_depth + (1 if at == "ic" else 0)
        w("    sch.annotate(sch.get_loops(%s)[%d], \"pragma_dma_copy\", 1)" % (buf, depth + min(d[key], own_loops(tile))))
    w("    sch.annotate(%s, \"pragma_dma_copy\", 1)" % d["store_pragma"])
    for stage, lv, k in zip(EPILOGUE, d["epilogue_levels"], d["alu_pragma"]):
        w("    sch.annotate(sch.get_loops(sch.get_block(\"%s\"))[%d], \"pragma_alu\", 1)" % (
            stage, p.depth(lv) + min(k, own_loops(p.stage_tile(lv)))))
    w("    sch.tensorize(sch.get_loops(init)[-2], \"vta_gemm_reset\")")
    w("    sch.tensorize(bi, \"vta_gemm\")")
    text = "\n".join(lines) + "\n"
    # the tile loop of a load at "tile": the loop the GEMM is computed at, after the thread splits
    return text.replace("ic_o_parent", "sch.get_loops(gemm)[%d]" % (gemm_depth - 1))



# ---------------------------------------------------------------------------------------------
# Cases: drawing, describing, running, classifying


def draw_case(seed, index, args):
    rng = np.random.default_rng([seed, index])
    config = fuzzing.draw_config(rng, args.log_batch, args.log_block)
    spec = draw_spec(rng, config, args)
    return {"spec": spec, "config": config, "sched": draw_schedule(rng, spec),
            "input_seed": int(rng.integers(0, 1 << 31))}


def load_case(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return {k: data[k] for k in ("spec", "config", "sched", "input_seed")}


def describe(case):
    s, c, d = case["spec"], case["config"], case["sched"]
    if s["kind"] == "dense":
        shape = "dense N%d %d->%d" % (s["batch"], s["cin"], s["cout"])
    else:
        ho, wo = out_hw(s)
        shape = "conv N%d %d->%d %dx%d k%dx%d s%d,%d p%d,%d -> %dx%d" % (
            s["batch"], s["cin"], s["cout"], s["h"], s["w"], s["kh"], s["kw"], s["stride_h"], s["stride_w"],
            s["pad_h"], s["pad_w"], ho, wo)
    threads = "x".join(str(k) for _, k, _ in d["threads"]) or "-"
    return ("%s | tiles %s ic %d at %d/%s, threads %s, loads at %s/%s | BATCH %d BLOCK %d SRAM 2^%d/%d/%d/%d" % (
        shape, "x".join(map(str, d["tiles"])), d["ic_tile"], d["gemm_level"],
        "".join(map(str, d["epilogue_levels"])), threads, d["data_at"], d["weight_at"],
        1 << c["LOG_BATCH"], 1 << c["LOG_BLOCK"], c["LOG_INP_BUFF_SIZE"], c["LOG_WGT_BUFF_SIZE"],
        c["LOG_ACC_BUFF_SIZE"], c["LOG_UOP_BUFF_SIZE"]))


def command(vtac, case):
    return [vtac, "run", "case.tvm", "--schedule", "trace.py", "--passes=vta-lower", "--random-inputs",
            "--seed", str(case["input_seed"]), "--reference", "case.tvm", "--stats",
            "--vta-config", "vta_config.json"]


def write_case(directory, case):
    fuzzing.write_files(directory, fuzzing.case_files(module_text(case["spec"]), case["config"]) +
                        [("trace.py", trace_text(case["spec"], case["sched"]))])


def classify(case, rc, out, err):
    """(outcome, detail): outcome is 'match', 'expected' or a bug kind."""
    plan = Plan(case["spec"], case["sched"])
    need = plan.need()
    config = case["config"]
    outcome, message = fuzzing.check_run(rc, out, err)
    if outcome == "located":
        m = SRAM_ERROR.match(message)
        if m and m.group(1) in SCOPE_KEY:
            key = SCOPE_KEY[m.group(1)]
            if need[key][1] > 1 << config[key]:
                return "expected", message
            return "error", "%s, although this script counts at most %d bytes" % (message, need[key][1])
        why = plan.justify(message, config)
        if why:
            return "expected", message
        return "error", message
    if outcome:
        return outcome, message
    if not fuzzing.compared(out, "res"):
        return "error", "exit status 0 but no comparison of 'res' with the reference"
    gemm = re.search(r"^\s+gemm_counter\s+(\d+)$", out, re.M)
    if not gemm or int(gemm.group(1)) == 0:
        return "error", "the simulator counted no GEMM"
    over = ["%s %d > %d" % (key[4:7].lower(), low, 1 << config[key]) for key, (low, _) in sorted(need.items())
            if low > 1 << config[key]]
    if over:
        return "overflow", "accepted although an SRAM's need exceeds it by this script's count: " + ", ".join(over)
    return "match", ""


save_reproducer = fuzzing.record_reproducer(describe)


# ---------------------------------------------------------------------------------------------
# Minimising


def smaller_cases(case):
    """Candidate simplifications of a case, each one step smaller or plainer."""
    out = []

    def variant(spec=None, config=None, sched=None):
        c = copy.deepcopy(case)
        for part, changes in (("spec", spec), ("config", config), ("sched", sched)):
            c[part].update(changes or {})
        return c

    s, c, d = case["spec"], case["config"], case["sched"]
    # the schedule first: fewer thread axes, default positions and pragmas
    for k in range(len(d["threads"])):
        out.append(variant(sched={"threads": d["threads"][:k] + d["threads"][k + 1:]}))
    for k, (p, n, up) in enumerate(d["threads"]):
        if up is not None:
            out.append(variant(sched={"threads": d["threads"][:k] + [[p, n, None]] + d["threads"][k + 1:]}))
        if n == 4:
            out.append(variant(sched={"threads": d["threads"][:k] + [[p, 2, up]] + d["threads"][k + 1:]}))
    for key, plain in (("data_pragma", 0), ("weight_pragma", 0), ("alu_pragma", [0, 0, 0]), ("data_at", "ic"),
                       ("weight_at", "ic"),
                       ("store_pragma", "oc_t" if s["batch_tile"] == 1 else "b_t"),
                       ("epilogue_levels", [d["gemm_level"]] * 3),
                       ("mid", ["bo", "co", "i", "ic_i", "dy", "dx", "j"] if s["kind"] == "conv" else ["bo", "co", "ic_i"])):
        if d[key] != plain:
            out.append(variant(sched={key: plain}))
    # the configuration
    for key, default in DEFAULT_SIZES.items():
        if c[key] != default:
            out.append(variant(config={key: default}))
    # the workload (the schedule's tiles must still divide: take tile 1 where they would not)
    def reshaped(**changes):
        spec = dict(s, **changes)
        if not valid(spec):
            return None
        sched = copy.deepcopy(d)
        axes = out_axes(spec)
        sched["tiles"] = [t if n % t == 0 else 1 for t, (_, n) in zip(d["tiles"], axes)]
        if (spec["cin"] // spec["block"]) % d["ic_tile"]:
            sched["ic_tile"] = 1
        nest = [n // t for (_, n), t in zip(axes, sched["tiles"])][:d["gemm_level"]]
        for p, k, up in d["threads"]:  # thread axes that no longer divide their loop: the case is not smaller
            if p >= len(nest) or nest[p] is None or nest[p] % k:
                return None
            nest[p:p + 1] = [nest[p] // k, None]
            if up is not None:
                nest.insert(up, nest.pop(p + 1))
        return {"spec": spec, "config": dict(c), "sched": sched, "input_seed": case["input_seed"]}

    cands = []
    if c["LOG_BLOCK"] == 5:  # the same numbers of channel blocks at BLOCK 16
        x = reshaped(block=16, cin=s["cin"] // 2, cout=s["cout"] // 2)
        cands.append(x and dict(x, config=dict(c, LOG_BLOCK=4)))
    if c["LOG_BATCH"] == 1:  # the same numbers of batch tiles at BATCH 1
        x = reshaped(batch_tile=1, batch=s["batch"] // 2)
        if x and x["sched"]["store_pragma"] == "b_t":
            x["sched"]["store_pragma"] = "oc_t"
        cands.append(x and dict(x, config=dict(c, LOG_BATCH=0)))
    if s["batch"] > s["batch_tile"]:
        cands.append(reshaped(batch=s["batch_tile"]))
    for ch in ("cin", "cout"):
        blocks = s[ch] // s["block"]
        cands += [reshaped(**{ch: v * s["block"]}) for v in sorted({1, blocks // 2, blocks - 1}) if 1 <= v < blocks]
    if s["kind"] == "conv":
        for key, smaller in (("h", lambda v: {1, v // 2, v - 1}), ("w", lambda v: {1, v // 2, v - 1}),
                             ("kh", lambda v: {1}), ("kw", lambda v: {1}), ("stride_h", lambda v: {1}),
                             ("stride_w", lambda v: {1}), ("pad_h", lambda v: {0}), ("pad_w", lambda v: {0})):
            cands += [reshaped(**{key: v}) for v in sorted(smaller(s[key])) if v < s[key] and v >= 0]
    if s["clip_min"] != 0 or s["clip_max"] != 127:
        cands.append(reshaped(clip_min=0, clip_max=127))
    out += [x for x in cands if x is not None]
    return [x for x in out if threads_valid(x["spec"], x["sched"])]


def threads_valid(spec, sched):
    """Whether every thread axis still splits a loop around the GEMM whose extent it divides (a
    candidate without an earlier axis may leave a later one pointing past the nest)."""
    axes = out_axes(spec)
    nest = [n // t if n % t == 0 else None for (_, n), t in zip(axes, sched["tiles"])][:sched["gemm_level"]]
    for p, k, up in sched["threads"]:
        if p >= len(nest) or nest[p] is None or nest[p] % k:
            return False
        nest[p:p + 1] = [nest[p] // k, None]
        if up is not None:
            if up > p:
                return False
            nest.insert(up, nest.pop(p + 1))
    return True


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    result = fuzzing.vta_campaign(
        argv, sys.modules[__name__], "vta-schedule-fuzz", 2_000_000,
        lambda args: fuzzing.VtacRunner(args.vtac, args.timeout, command, write_case, classify))
    if result is None:
        return 0
    done, counts, bugs = result
    print("vta-schedule-fuzz: %d cases, %d match, %d expected, %d bugs" % (
        done, counts.get("match", 0), counts.get("expected", 0), len(bugs)))
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())

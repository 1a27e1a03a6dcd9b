#!/usr/bin/python3
"""Differential fuzzer of vta-graph-pack (passes/relax/VtaGraphPack.h): packed against unpacked runs.

Each case draws a quantized NCHW network of high-level Relax operators in vtac's TVMScript text,
case.tvm, and runs, in a temporary directory,

    vtac run case.tvm --random-inputs --seed S --output plain.npy
    vtac run case.tvm --passes=vta-graph-pack --engine=E --random-inputs --seed S --output packed.E.npy
    vtac run case.tvm --passes=vta-graph-pack,fuse-ops,vta-lower --auto-schedule ... --output vta.npy

for E = interp and jit, and requires every result to be the plain one bit for bit (packing moves
data, not arithmetic; the VTA run is integer arithmetic the simulator must get exactly).

Drawn per case (numpy's default_rng([seed, case]), so case i is the same whatever --cases):
  input     int8 (1, C, H, W): C in {8, 16, 32, 48}, H and W 4-9
  layers    1-4, each: conv2d int8 -> int32 (out channels in {8, 16, 32}, kernel 1 or 3,
            stride 1 or 2, padding 0 to kernel // 2, a weight parameter), then right_shift by a
            constant 4-9, in half the layers the widened layer input added when the shapes allow
            (a residual), in a quarter a per-channel int32 bias (1, C, 1, 1), clip to [0, 127] or
            [-127, 127], astype int8; in a quarter of the cases a max_pool2d 2x2 stride 2 between
            layers (the default start of the packed region is after the first one)
  shapes    channels that are no multiple of 16 make convs graph-pack leaves unpacked (a remark)

Outcomes: match (all runs agree bit for bit), bugs (a mismatch, an error or a crash of any
command). Last line: `vta-graph-pack-fuzz: N cases, M match, P packed convs, V on VTA, B bugs`;
exit status 1 when B > 0. Failing cases are kept under --out. Needs /usr/bin/python3 with numpy.
"""

import os
import sys

import fuzzing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def draw_case(rng):
    channels = int(rng.choice([8, 16, 32, 48]))
    height, width = int(rng.integers(4, 10)), int(rng.integers(4, 10))
    params = ['x: R.Tensor((1, %d, %d, %d), "int8")' % (channels, height, width)]
    lines, count = [], [0]

    def bind(value):
        name = "v%d" % count[0]
        count[0] += 1
        lines.append("            %s = %s" % (name, value))
        return name

    current = "x"
    pool_after = int(rng.integers(0, 4)) if rng.random() < 0.25 else -1
    for layer in range(int(rng.integers(1, 5))):
        out_channels = int(rng.choice([8, 16, 32]))
        kernel = int(rng.choice([1, 3]))
        stride = int(rng.choice([1, 2])) if min(height, width) >= kernel + 1 else 1
        pad = int(rng.integers(0, kernel // 2 + 1))
        out_h, out_w = (height + 2 * pad - kernel) // stride + 1, (width + 2 * pad - kernel) // stride + 1
        if out_h < 1 or out_w < 1:
            break
        weight = "w%d" % layer
        params.append('%s: R.Tensor((%d, %d, %d, %d), "int8")' % (weight, out_channels, channels, kernel, kernel))
        value = bind('R.nn.conv2d(%s, %s, strides=%d, padding=%d, out_dtype="int32")' % (current, weight, stride, pad))
        value = bind('R.right_shift(%s, R.const(%d, "int32"))' % (value, int(rng.integers(4, 10))))
        if rng.random() < 0.5 and (out_channels, out_h, out_w) == (channels, height, width):
            value = bind("R.add(%s, %s)" % (value, bind('R.astype(%s, "int32")' % current)))
        if rng.random() < 0.25:
            bias = "b%d" % layer
            params.append('%s: R.Tensor((1, %d, 1, 1), "int32")' % (bias, out_channels))
            value = bind("R.add(%s, %s)" % (value, bias))
        low = int(rng.choice([0, -127]))
        value = bind("R.clip(%s, %d, 127)" % (value, low))
        current = bind('R.astype(%s, "int8")' % value)
        channels, height, width = out_channels, out_h, out_w
        if layer == pool_after and min(height, width) >= 2:
            current = bind("R.nn.max_pool2d(%s, pool_size=2, strides=2)" % current)
            height, width = height // 2, width // 2
    lines.append("            gv = %s" % current)
    lines.append("            R.output(gv)")
    return ("@I.ir_module\nclass Case:\n    @R.function\n    def main(%s) -> R.Tensor((1, %d, %d, %d), \"int8\"):\n"
            "        with R.dataflow():\n%s\n        return gv\n" % (", ".join(params), channels, height, width,
                                                                  "\n".join(lines)))


def run_case(vtac, text, seed, directory, timeout):
    """(outcome, detail, packed convs, on VTA)."""
    with open(os.path.join(directory, "case.tvm"), "w") as f:
        f.write(text)
    inputs = ["--random-inputs", "--seed", str(seed)]
    steps = [[vtac, "run", "case.tvm"] + inputs + ["--output", "plain.npy"],
             [vtac, "opt", "case.tvm", "--passes=vta-graph-pack", "-o", "packed.tvm"]]
    for engine in ("interp", "jit"):
        steps.append([vtac, "run", "case.tvm", "--passes=vta-graph-pack", "--engine=" + engine] + inputs +
                     ["--output", "packed.%s.npy" % engine])
    steps.append([vtac, "run", "case.tvm", "--passes=vta-graph-pack,fuse-ops,vta-lower", "--auto-schedule"] + inputs +
                 ["--output", "vta.npy"])
    on_vta = 0
    for argv in steps:
        rc, out, err = fuzzing.run(argv, directory, timeout)
        if rc != 0:
            return "bugs", "%s: exit %s: %s" % (" ".join(argv[1:4]), rc, (err or out).strip()[:300]), 0, 0
        on_vta += err.count("on VTA by")
    plain = open(os.path.join(directory, "plain.npy"), "rb").read()
    for result in ("packed.interp", "packed.jit", "vta"):
        if open(os.path.join(directory, result + ".npy"), "rb").read() != plain:
            return "bugs", result + " differs from the unpacked run", 0, 0
    packed = open(os.path.join(directory, "packed.tvm")).read().count('data_layout="NCHW1n16c"')
    return "match", "", packed, on_vta


def main(argv):
    return fuzzing.relax_campaign(argv, __doc__, ROOT, "vta-graph-pack-fuzz", draw_case, run_case, ("packed convs", "on VTA"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

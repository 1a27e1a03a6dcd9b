#!/usr/bin/env python3
"""Generator of the quantized ResNet-18 part that TVM's VTA deploy flow runs on the accelerator.

What is generated
-----------------
The network from after the first max-pool to before the global average pool, batch 1:
layer1 (2 basic blocks, 64 -> 64, stride 1), layer2 (64 -> 128), layer3 (128 -> 256), layer4
(256 -> 512), the first block of layers 2-4 with stride 2 and a 1x1 stride-2 downsample conv:
16 3x3 convs (pad 1) and 3 1x1 convs (pad 0). Input 1x64x56x56, output 1x512x7x7.

Layout (VTA's packed int8 layout, BATCH=1, BLOCK_IN=BLOCK_OUT=16):
- activations NCHW1n16c: shape (1, C/16, H, W, 1, 16) int8, element [0, c // 16, y, x, 0, c % 16];
- kernels (O/16, I/16, KH, KW, 16, 16) int8, element [o // 16, i // 16, ky, kx, o % 16, i % 16].

Integer arithmetic of one conv layer (output channel o, output position (y, x)), exactly:
    acc  = sum over i, ky, kx of int32(xpad[i, y*stride + ky, x*stride + kx]) * int32(w[o, i, ky, kx])
           (int32; xpad is the input padded with zeros by `pad` on each side; no overflow is
           possible: |acc| <= 4608 * 128 * 128 < 2^31)
    v    = acc >> s                  (T.shift_right: arithmetic shift, i.e. floor(acc / 2^s);
                                      s is a per-layer constant chosen by this generator)
    v    = v + int32(residual[o, y, x])   only for the second conv of each basic block: the
                                      block's input, or the downsample conv's output
    v    = min(max(v, 0), 127)       ReLU + requantize (T.max then T.min);
                                      the downsample convs clip to [-127, 127] instead
    out  = int8(v)
The shift of each layer is chosen on this generator's data: s0 = the smallest s for which at
most 1% of the layer's outputs saturate (127, or +-127 for the downsample convs); but when an
earlier layer has the same shape, stride, pad and epilogue with a shift s1 = s0 +- 1, s1 is taken
instead if with it at most 3% of the outputs saturate and at most 75% are 0, so that the two
layers share one prim_func. A layer then fails the health check (exit status 1) if more than
90% of its outputs are 0 or more than 10% saturate. Per-layer statistics are printed on stdout.

Each conv layer is an unscheduled TensorIR `@T.prim_func` in the form of
samples/conv2d_tensorir.tvm (blocks data_buf (padding, only when pad > 0), kernel_buf,
res_conv, res_shr, res_add (with a residual), res_max, res_min, res); one prim_func per distinct
(shape, stride, pad, shift, epilogue), named e.g. conv3x3_s1_c64_h56_sh9_res; a Relax `main`
chains them with R.call_tir, the weights being main's parameters (bind them with
`vtac run --params W.npz`).

Outputs (all optional): --module (the .tvm module; samples/models/resnet18_vta.tvm is its output
for the default seed), --params (.npz, keys = main's weight parameters, int8), --input (.npy, x,
int8), --expected (.npy, the output computed by the numpy implementation below, which shares
nothing with vtac: im2col + int64 matmul in plain NCHW / OIHW, packed only at the end).

--conv-benchmark DIR writes instead the ten conv2d workloads of TVM's VTA benchmark
(vta/tests/python/integration/test_benchmark_topi_conv2d.py, resnet-18 C2..C11) as standalone
modules DIR/conv_C2.tvm .. conv_C11.tvm: one prim_func `main` each, same form, epilogue
`>> 8`, clip [0, 127], cast (as samples/conv2d_tensorir.tvm).

--nchw writes instead the same network (same weights, shifts and output bytes) as TVM's frontends
give it before any VTA packing, the input of vta-graph-pack: a Relax `main` of high-level
operators in plain NCHW / OIHW, each conv layer
    R.nn.conv2d(x, w, strides, padding, out_dtype="int32") -> R.right_shift(., R.const(s))
    [-> R.add(., R.astype(residual, "int32"))] -> R.clip(., min, 127) -> R.astype(., "int8"),
with --params OIHW int8 weights, --input x (1, 64, 56, 56) and --expected (1, 512, 7, 7).

Deterministic: the same --seed (default 0) gives the same bytes. Needs python3 and numpy only.
"""

import argparse
import os
import sys
import time

import numpy as np

BLOCK = 16  # VTA's BLOCK_IN == BLOCK_OUT
MAX_ZERO_FRACTION = 0.90
MAX_SATURATED_FRACTION = 0.10
TARGET_SATURATED_FRACTION = 0.01
REUSE_MAX_SATURATED_FRACTION = 0.03
REUSE_MAX_ZERO_FRACTION = 0.75

# ---------------------------------------------------------------------------------------------
# Conv layer descriptions and their TensorIR text


class ConvSpec:
    """One conv2d + epilogue in VTA's packed layout.

    The keyword-only arguments generalise it for other writers (fuzz/autoschedule_conv2d.py):
    a kernel, stride and padding per axis (kw, stride_w, pad_w: default the same as k, stride,
    pad), clip_max (default 127), block (BLOCK_IN == BLOCK_OUT, default 16), batch (images N,
    default 1) in tiles of batch_tile (VTA's BATCH, default 1): data (N / batch_tile, C / block,
    H, W, batch_tile, block). This script's own outputs use the defaults."""

    def __init__(self, cin, cout, h, w, k, stride, pad, shift, residual=False, clip_min=0, *,
                 kw=None, stride_w=None, pad_w=None, clip_max=127, block=BLOCK, batch=1, batch_tile=1):
        assert cin % block == 0 and cout % block == 0 and batch % batch_tile == 0
        self.cin, self.cout, self.h, self.w = cin, cout, h, w
        self.k, self.stride, self.pad, self.shift = k, stride, pad, shift
        self.residual, self.clip_min = residual, clip_min
        self.kh, self.kw = k, k if kw is None else kw
        self.stride_h, self.stride_w = stride, stride if stride_w is None else stride_w
        self.pad_h, self.pad_w = pad, pad if pad_w is None else pad_w
        self.clip_max, self.block, self.batch, self.batch_tile = clip_max, block, batch, batch_tile
        self.ho = (h + 2 * self.pad_h - self.kh) // self.stride_h + 1
        self.wo = (w + 2 * self.pad_w - self.kw) // self.stride_w + 1

    def key(self):
        return self.key_but_shift() + (self.shift,)

    def key_but_shift(self):
        return (self.cin, self.cout, self.h, self.w, self.k, self.stride, self.pad, self.residual,
                self.clip_min)

    def data_shape(self):
        b, n = self.block, self.batch_tile
        return (self.batch // n, self.cin // b, self.h, self.w, n, b)

    def kernel_shape(self):
        b = self.block
        return (self.cout // b, self.cin // b, self.kh, self.kw, b, b)

    def out_shape(self):
        b, n = self.block, self.batch_tile
        return (self.batch // n, self.cout // b, self.ho, self.wo, n, b)

    def name(self):
        """Descriptive prim_func name, e.g. conv3x3_s1_c64_h56_sh9_res."""
        text = "conv%dx%d_s%d_c%d" % (self.k, self.k, self.stride, self.cin)
        if self.cout != self.cin:
            text += "to%d" % self.cout
        text += "_h%d_sh%d" % (self.h, self.shift)
        if self.residual:
            text += "_res"
        if self.clip_min != 0:
            text += "_clip%d" % self.clip_min  # e.g. _clip-127
        return text.replace("-", "m")


def _shape(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def prim_func_text(spec, func_name, indent="    "):
    """The unscheduled TensorIR of one conv layer, as te.create_prim_func prints it."""
    s = spec
    v6 = "v_i0, v_i1, v_i2, v_i3, v_i4, v_i5"
    out_shape = _shape(s.out_shape())
    params = ["data: T.Buffer(%s, \"int8\")" % _shape(s.data_shape()),
              "kernel: T.Buffer(%s, \"int8\")" % _shape(s.kernel_shape())]
    if s.residual:
        params.append("residual: T.Buffer(%s, \"int8\")" % out_shape)
    params.append("res: T.Buffer(%s, \"int8\")" % out_shape)
    lines = ["@T.prim_func",
             "def %s(%s):" % (func_name, ", ".join(params)),
             "    T.func_attr({\"tir.noalias\": T.bool(True)})",
             "    # with T.block(\"root\"):"]
    hp, wp = s.h + 2 * s.pad_h, s.w + 2 * s.pad_w
    padded_shape = s.data_shape()[:2] + (hp, wp) + s.data_shape()[4:]
    padded = s.pad_h > 0 or s.pad_w > 0
    if padded:
        lines.append("    data_buf = T.alloc_buffer(%s, \"int8\")" % _shape(padded_shape))
    lines.append("    kernel_buf = T.alloc_buffer(%s, \"int8\")" % _shape(s.kernel_shape()))
    stages = ["res_conv", "res_shr"] + (["res_add"] if s.residual else []) + ["res_max", "res_min"]
    for stage in stages:
        lines.append("    %s = T.alloc_buffer(%s, \"int32\")" % (stage, out_shape))

    def elementwise(block, shape, reads, writes, value):
        _elementwise(lines, block, shape, reads, writes, value)

    def at(buf, idx=v6):
        return "%s[%s]" % (buf, idx)

    if padded:
        # as topi.nn.pad: an axis without padding is neither shifted nor tested
        ph, pw = s.pad_h, s.pad_w
        rows = "v_i2 - %d" % ph if ph else "v_i2"
        cols = "v_i3 - %d" % pw if pw else "v_i3"
        src = "data[v_i0, v_i1, %s, %s, v_i4, v_i5]" % (rows, cols)
        cond = " and ".join(["%d <= v_i2 and v_i2 < %d" % (ph, s.h + ph)] * (ph > 0) +
                            ["%d <= v_i3 and v_i3 < %d" % (pw, s.w + pw)] * (pw > 0))
        elementwise("data_buf", padded_shape, [src], at("data_buf"),
                    "T.if_then_else(%s, %s, T.int8(0))" % (cond, src))
        conv_input = "data_buf"
    else:
        conv_input = "data"
    elementwise("kernel_buf", s.kernel_shape(), [at("kernel")], at("kernel_buf"), at("kernel"))

    yi = "v_i + v_dy" if s.stride_h == 1 else "v_i * %d + v_dy" % s.stride_h
    xi = "v_j + v_dx" if s.stride_w == 1 else "v_j * %d + v_dx" % s.stride_w
    d_load = "%s[v_bo, v_ic, %s, %s, v_bi, v_ic_tns]" % (conv_input, yi, xi)
    k_load = "kernel_buf[v_co, v_ic, v_dy, v_dx, v_ci, v_ic_tns]"
    c_elem = "res_conv[v_bo, v_co, v_i, v_j, v_bi, v_ci]"
    extents = s.out_shape() + (s.cin // s.block, s.kh, s.kw, s.block)
    lines += [
        "    for bo, co, i, j, bi, ci, ic, dy, dx, ic_tns in T.grid(%s):" % ", ".join(str(d) for d in extents),
        "        with T.block(\"res_conv\"):",
        "            v_bo, v_co, v_i, v_j, v_bi, v_ci, v_ic, v_dy, v_dx, v_ic_tns = T.axis.remap("
        "\"SSSSSSRRRR\", [bo, co, i, j, bi, ci, ic, dy, dx, ic_tns])",
        "            T.reads(%s, %s)" % (d_load, k_load),
        "            T.writes(%s)" % c_elem,
        "            with T.init():",
        "                %s = 0" % c_elem,
        "            %s = %s + T.Cast(\"int32\", %s) * T.Cast(\"int32\", %s)" % (c_elem, c_elem, d_load, k_load),
    ]
    _epilogue(lines, s, "res_conv", s.out_shape())
    return "".join(indent + line + "\n" for line in lines)


def _elementwise(lines, block, shape, reads, writes, value):
    """Appends a spatial block over all of `shape` (loops i0.., block iters v_i0..)."""
    n = len(shape)
    loops = ", ".join("i%d" % k for k in range(n))
    lines.append("    for %s in T.grid(%s):" % (loops, ", ".join(str(d) for d in shape)))
    lines.append("        with T.block(\"%s\"):" % block)
    lines.append("            %s = T.axis.remap(\"%s\", [%s])" % (", ".join("v_i%d" % k for k in range(n)), "S" * n, loops))
    lines.append("            T.reads(%s)" % ", ".join(reads))
    lines.append("            T.writes(%s)" % writes)
    lines.append("            %s = %s" % (writes, value))


def _epilogue(lines, s, acc, oshape):
    """Appends shift, residual add, clip and cast from the int32 `acc` to `res` (shape oshape)."""
    idx = ", ".join("v_i%d" % k for k in range(len(oshape)))

    def at(buf):
        return "%s[%s]" % (buf, idx)

    _elementwise(lines, "res_shr", oshape, [at(acc)], at("res_shr"), "T.shift_right(%s, %d)" % (at(acc), s.shift))
    prev = "res_shr"
    if s.residual:
        _elementwise(lines, "res_add", oshape, [at(prev), at("residual")], at("res_add"),
                     "%s + T.Cast(\"int32\", %s)" % (at(prev), at("residual")))
        prev = "res_add"
    _elementwise(lines, "res_max", oshape, [at(prev)], at("res_max"), "T.max(%s, %d)" % (at(prev), s.clip_min))
    _elementwise(lines, "res_min", oshape, [at("res_max")], at("res_min"), "T.min(%s, %d)" % (at("res_max"), s.clip_max))
    _elementwise(lines, "res", oshape, [at("res_min")], at("res"), "T.Cast(\"int8\", %s)" % at("res_min"))


class DenseSpec:
    """One packed int8 dense (GEMM) + epilogue, in the form of samples/gemm_blocked_tensorir.tvm
    (seed 003's blocked GEMM): data (N / batch_tile, C / block, batch_tile, block), weight
    (O / block, C / block, block, block), res (N / batch_tile, O / block, batch_tile, block);
    blocks data_buf, weight_buf, res_gem, res_shr, res_max, res_min, res. For the fuzzers."""

    residual = False

    def __init__(self, cin, cout, shift, *, clip_min=0, clip_max=127, block=BLOCK, batch=1, batch_tile=1):
        assert cin % block == 0 and cout % block == 0 and batch % batch_tile == 0
        self.cin, self.cout, self.shift, self.clip_min, self.clip_max = cin, cout, shift, clip_min, clip_max
        self.block, self.batch, self.batch_tile = block, batch, batch_tile

    def data_shape(self):
        return (self.batch // self.batch_tile, self.cin // self.block, self.batch_tile, self.block)

    def weight_shape(self):
        return (self.cout // self.block, self.cin // self.block, self.block, self.block)

    def out_shape(self):
        return (self.batch // self.batch_tile, self.cout // self.block, self.batch_tile, self.block)


def dense_prim_func_text(spec, func_name, indent="    "):
    """The unscheduled TensorIR of one packed dense layer (DenseSpec)."""
    s = spec
    v4 = "v_i0, v_i1, v_i2, v_i3"
    lines = ["@T.prim_func",
             "def %s(data: T.Buffer(%s, \"int8\"), weight: T.Buffer(%s, \"int8\"), res: T.Buffer(%s, \"int8\")):" % (
                 func_name, _shape(s.data_shape()), _shape(s.weight_shape()), _shape(s.out_shape())),
             "    T.func_attr({\"tir.noalias\": T.bool(True)})",
             "    # with T.block(\"root\"):",
             "    data_buf = T.alloc_buffer(%s, \"int8\")" % _shape(s.data_shape()),
             "    weight_buf = T.alloc_buffer(%s, \"int8\")" % _shape(s.weight_shape())]
    for stage in ("res_gem", "res_shr", "res_max", "res_min"):
        lines.append("    %s = T.alloc_buffer(%s, \"int32\")" % (stage, _shape(s.out_shape())))
    _elementwise(lines, "data_buf", s.data_shape(), ["data[%s]" % v4], "data_buf[%s]" % v4, "data[%s]" % v4)
    _elementwise(lines, "weight_buf", s.weight_shape(), ["weight[%s]" % v4], "weight_buf[%s]" % v4, "weight[%s]" % v4)
    d_load = "data_buf[v_bo, v_ic, v_bi, v_ic_tns]"
    w_load = "weight_buf[v_co, v_ic, v_ci, v_ic_tns]"
    c_elem = "res_gem[v_bo, v_co, v_bi, v_ci]"
    extents = s.out_shape() + (s.cin // s.block, s.block)
    lines += [
        "    for bo, co, bi, ci, ic, ic_tns in T.grid(%s):" % ", ".join(str(d) for d in extents),
        "        with T.block(\"res_gem\"):",
        "            v_bo, v_co, v_bi, v_ci, v_ic, v_ic_tns = T.axis.remap(\"SSSSRR\", [bo, co, bi, ci, ic, ic_tns])",
        "            T.reads(%s, %s)" % (d_load, w_load),
        "            T.writes(%s)" % c_elem,
        "            with T.init():",
        "                %s = 0" % c_elem,
        "            %s = %s + T.Cast(\"int32\", %s) * T.Cast(\"int32\", %s)" % (c_elem, c_elem, d_load, w_load),
    ]
    _epilogue(lines, s, "res_gem", s.out_shape())
    return "".join(indent + line + "\n" for line in lines)


MODULE_HEADER = ("# from tvm.script import ir as I\n"
                 "# from tvm.script import tir as T\n")


def write_text(path, text):
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# ---------------------------------------------------------------------------------------------
# numpy reference (plain NCHW / OIHW, independent of the TensorIR text)


def pack_activation(a):
    """(C, H, W) -> (1, C/16, H, W, 1, 16)."""
    c, h, w = a.shape
    return np.ascontiguousarray(a.reshape(c // BLOCK, BLOCK, h, w).transpose(0, 2, 3, 1)[None, :, :, :, None, :])


def unpack_activation(p):
    """(1, C/16, H, W, 1, 16) -> (C, H, W)."""
    _, co, h, w, _, ci = p.shape
    return np.ascontiguousarray(p[0, :, :, :, 0, :].transpose(0, 3, 1, 2).reshape(co * ci, h, w))


def pack_kernel(k):
    """(O, I, KH, KW) -> (O/16, I/16, KH, KW, 16, 16)."""
    o, i, kh, kw = k.shape
    return np.ascontiguousarray(
        k.reshape(o // BLOCK, BLOCK, i // BLOCK, BLOCK, kh, kw).transpose(0, 2, 4, 5, 1, 3))


def conv_accumulate(x, w, stride, pad):
    """int32 accumulators of conv2d(x (C, H, W) int8, w (O, C, K, K) int8), via im2col + int64 matmul."""
    c, h, wd = x.shape
    o, _, k, _ = w.shape
    ho = (h + 2 * pad - k) // stride + 1
    wo = (wd + 2 * pad - k) // stride + 1
    xp = np.zeros((c, h + 2 * pad, wd + 2 * pad), dtype=np.int64)
    xp[:, pad:pad + h, pad:pad + wd] = x
    cols = np.empty((c, k, k, ho, wo), dtype=np.int64)
    for ky in range(k):
        for kx in range(k):
            cols[:, ky, kx] = xp[:, ky:ky + stride * (ho - 1) + 1:stride, kx:kx + stride * (wo - 1) + 1:stride]
    acc = w.reshape(o, c * k * k).astype(np.int64) @ cols.reshape(c * k * k, ho * wo)
    assert np.abs(acc).max() < 2 ** 31
    return acc.astype(np.int32).reshape(o, ho, wo)


def epilogue(acc, shift, residual, clip_min):
    v = acc >> np.int32(shift)  # arithmetic shift of int32
    if residual is not None:
        v = v + residual.astype(np.int32)
    return np.minimum(np.maximum(v, clip_min), 127).astype(np.int8)


def saturated_fraction(out, clip_min):
    sat = out == 127
    if clip_min != 0:
        sat |= out == clip_min
    return float(np.mean(sat))


def choose_shift(acc, residual, clip_min):
    """The smallest shift with at most TARGET_SATURATED_FRACTION of saturated outputs (or the
    least saturating one when none is that low)."""
    best = None
    for shift in range(0, 31):
        out = epilogue(acc, shift, residual, clip_min)
        sat = saturated_fraction(out, clip_min)
        if sat <= TARGET_SATURATED_FRACTION:
            return shift
        if best is None or sat < best[1]:
            best = (shift, sat)
    return best[0]


# ---------------------------------------------------------------------------------------------
# The network


def resnet18_layers():
    """(weight name, cin, cout, h, k, stride, pad, role) in execution order; role is 'conv1',
    'conv2' (adds the block's residual) or 'downsample'."""
    layers = []
    cin, h = 64, 56
    for stage, cout in enumerate((64, 128, 256, 512), start=1):
        for block in range(2):
            stride = 2 if (stage > 1 and block == 0) else 1
            prefix = "w_l%d_%d_" % (stage, block)
            layers.append((prefix + "conv1", cin, cout, h, 3, stride, 1, "conv1"))
            hout = (h + 2 - 3) // stride + 1
            if stride != 1 or cin != cout:
                layers.append((prefix + "downsample", cin, cout, h, 1, stride, 0, "downsample"))
            layers.append((prefix + "conv2", cout, cout, hout, 3, 1, 1, "conv2"))
            cin, h = cout, hout
    return layers


def build_resnet18(seed, log):
    """Draws input and weights, runs the numpy reference layer by layer choosing each shift,
    and returns (x, weights, expected output, list of (weight name, ConvSpec, stats), healthy)."""
    rng = np.random.default_rng(seed)
    layers = resnet18_layers()
    # Input: post-ReLU/max-pool activations, non-negative, about a quarter zeros.
    x = np.clip(np.rint(rng.normal(12.0, 30.0, size=(64, 56, 56))), 0, 127).astype(np.int8)
    weights = {}
    for name, cin, cout, _, k, _, _, _ in layers:
        weights[name] = np.clip(np.rint(rng.normal(0.0, 32.0, size=(cout, cin, k, k))), -127, 127).astype(np.int8)

    records = []
    healthy = True
    block_input = x
    cur = x
    shortcut = None
    for name, cin, cout, h, k, stride, pad, role in layers:
        clip_min = -127 if role == "downsample" else 0
        if role == "downsample":
            src = block_input
        elif role == "conv1":
            src = cur
            block_input = cur
            shortcut = cur
        else:
            src = cur
        assert src.shape == (cin, h, h), (name, src.shape)
        acc = conv_accumulate(src, weights[name], stride, pad)
        residual = shortcut if role == "conv2" else None
        spec = ConvSpec(cin, cout, h, h, k, stride, pad, 0, residual=(role == "conv2"), clip_min=clip_min)
        shift = choose_shift(acc, residual, clip_min)
        for _, earlier, _, _ in records:  # share an earlier layer's prim_func when that stays healthy
            if earlier.key_but_shift() == spec.key_but_shift() and abs(earlier.shift - shift) == 1:
                out = epilogue(acc, earlier.shift, residual, clip_min)
                if (saturated_fraction(out, clip_min) <= REUSE_MAX_SATURATED_FRACTION
                        and float(np.mean(out == 0)) <= REUSE_MAX_ZERO_FRACTION):
                    shift = earlier.shift
                    break
        spec.shift = shift
        out = epilogue(acc, shift, residual, clip_min)
        zeros = float(np.mean(out == 0))
        sat = saturated_fraction(out, clip_min)
        ok = zeros <= MAX_ZERO_FRACTION and sat <= MAX_SATURATED_FRACTION
        healthy &= ok
        records.append((name, spec, zeros, sat))
        log("%-20s %s  shift %2d  out %-12s zeros %5.1f%%  saturated %5.2f%%  mean %6.1f  %s%s" % (
            name, "%dx%d s%d %4d->%-4d" % (k, k, stride, cin, cout), shift, "%dx%dx%d" % out.shape,
            100 * zeros, 100 * sat, float(out.mean()), spec.name(), "" if ok else "  UNHEALTHY"),
            force=not ok)
        if role == "downsample":
            shortcut = out
        else:
            cur = out
    return x, weights, cur, records, healthy


def resnet18_module_text(records, seed):
    funcs = {}  # key -> (function name, spec), in first-use order
    for _, spec, _, _ in records:
        if spec.key() not in funcs:
            funcs[spec.key()] = (spec.name(), spec)
    names = [n for n, _ in funcs.values()]
    assert len(set(names)) == len(names), names

    text = MODULE_HEADER + "# from tvm.script import relax as R\n"
    text += ("# Quantized ResNet-18, layer1..layer4 (the part TVM's VTA deploy flow runs on VTA), batch 1,\n"
             "# VTA's packed int8 layout. Generated by samples/models/gen_resnet18_vta.py --seed %d (its\n"
             "# docstring defines the arithmetic); weights: --params of that script.\n\n" % seed)
    text += "@I.ir_module\nclass Module:\n"
    for name, spec in funcs.values():
        text += prim_func_text(spec, name) + "\n"

    def tensor(shape):
        return "R.Tensor(%s, dtype=\"int8\")" % _shape(shape)

    params = ["x: %s" % tensor(records[0][1].data_shape())]
    params += ["%s: %s" % (name, tensor(spec.kernel_shape())) for name, spec, _, _ in records]
    out_shape = records[-1][1].out_shape()
    body = ["cls = Module", "with R.dataflow():"]
    cur, block_input, shortcut = "x", "x", None
    for index, (name, spec, _, _) in enumerate(records):
        role = name.rsplit("_", 1)[1]
        var = "gv" if index == len(records) - 1 else "lv%d" % index
        if role == "conv1":
            block_input = shortcut = cur
            args = (cur, name)
        elif role == "downsample":
            args = (block_input, name)
        else:
            args = (cur, name, shortcut)
        body.append("    %s = R.call_tir(cls.%s, (%s), out_sinfo=%s)" % (
            var, funcs[spec.key()][0], ", ".join(args), tensor(spec.out_shape())))
        if role == "downsample":
            shortcut = var
        else:
            cur = var
    body += ["    R.output(gv)", "return gv"]
    text += "    @R.function\n"
    text += "    def main(\n%s    ) -> %s:\n" % ("".join("        %s,\n" % p for p in params), tensor(out_shape))
    text += "".join("        " + line + "\n" for line in body)
    return text, len(funcs)


def resnet18_nchw_module_text(records, seed):
    """The network as high-level Relax in plain NCHW / OIHW (--nchw): what vta-graph-pack packs."""
    def tensor(shape, dtype="int8"):
        return "R.Tensor(%s, dtype=\"%s\")" % (_shape(shape), dtype)

    def nchw(channels, size):
        return (1, channels, size, size)

    first = records[0][1]
    params = ["x: %s" % tensor(nchw(first.cin, first.h))]
    params += ["%s: %s" % (name, tensor((spec.cout, spec.cin, spec.k, spec.k))) for name, spec, _, _ in records]
    body = ["with R.dataflow():"]
    cur, block_input, shortcut = "x", "x", None
    count = 0

    def bind(value, shape, dtype, var=None):
        nonlocal count
        var = var or "lv%d" % count
        count += 1
        body.append("    %s: %s = %s" % (var, tensor(shape, dtype), value))
        return var

    for index, (name, spec, _, _) in enumerate(records):
        role = name.rsplit("_", 1)[1]
        if role == "conv1":
            block_input = shortcut = cur
        source = block_input if role == "downsample" else cur
        out = nchw(spec.cout, spec.ho)
        v = bind("R.nn.conv2d(%s, %s, strides=[%d, %d], padding=[%d, %d, %d, %d], out_dtype=\"int32\")" % (
            source, name, spec.stride, spec.stride, spec.pad, spec.pad, spec.pad, spec.pad), out, "int32")
        v = bind("R.right_shift(%s, R.const(%d, \"int32\"))" % (v, spec.shift), out, "int32")
        if role == "conv2":
            widened = bind("R.astype(%s, dtype=\"int32\")" % shortcut, out, "int32")
            v = bind("R.add(%s, %s)" % (v, widened), out, "int32")
        v = bind("R.clip(%s, %d, %d)" % (v, spec.clip_min, spec.clip_max), out, "int32")
        # the network's output binds `gv` itself (vtac compile returns no alias)
        v = bind("R.astype(%s, dtype=\"int8\")" % v, out, "int8", "gv" if index == len(records) - 1 else None)
        if role == "downsample":
            shortcut = v
        else:
            cur = v
    last = records[-1][1]
    body += ["    R.output(gv)", "return gv"]
    text = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n"
    text += ("# Quantized ResNet-18, layer1..layer4, batch 1, as high-level Relax in plain NCHW / OIHW (the\n"
             "# input of vta-graph-pack). Generated by samples/models/gen_resnet18_vta.py --nchw --seed %d\n"
             "# (its docstring defines the arithmetic); weights: --params of that script.\n\n" % seed)
    text += "@I.ir_module\nclass Module:\n    @R.function\n"
    text += "    def main(\n%s    ) -> %s:\n" % ("".join("        %s,\n" % p for p in params),
                                               tensor(nchw(last.cout, last.ho)))
    text += "".join("        " + line + "\n" for line in body)
    return text


# ---------------------------------------------------------------------------------------------
# TVM's VTA conv2d benchmark workloads

# Workload(batch, height, width, in_filter, out_filter, hkernel, wkernel, hpad, wpad, hstride, wstride)
BENCHMARK_WORKLOADS = [
    ("C2", (1, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1)),
    ("C3", (1, 56, 56, 64, 128, 3, 3, 1, 1, 2, 2)),
    ("C4", (1, 56, 56, 64, 128, 1, 1, 0, 0, 2, 2)),
    ("C5", (1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 1)),
    ("C6", (1, 28, 28, 128, 256, 3, 3, 1, 1, 2, 2)),
    ("C7", (1, 28, 28, 128, 256, 1, 1, 0, 0, 2, 2)),
    ("C8", (1, 14, 14, 256, 256, 3, 3, 1, 1, 1, 1)),
    ("C9", (1, 14, 14, 256, 512, 3, 3, 1, 1, 2, 2)),
    ("C10", (1, 14, 14, 256, 512, 1, 1, 0, 0, 2, 2)),
    ("C11", (1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1)),
]


def write_benchmark_convs(directory, log):
    for name, (batch, h, w, cin, cout, kh, kw, hpad, wpad, hs, ws) in BENCHMARK_WORKLOADS:
        assert batch == 1 and kh == kw and hpad == wpad and hs == ws
        spec = ConvSpec(cin, cout, h, w, kh, hs, hpad, shift=8)
        text = MODULE_HEADER + (
            "# TVM's VTA conv2d benchmark workload %s (resnet-18): %dx%d input, %d -> %d channels, %dx%d kernel,\n"
            "# pad %d, stride %d; >> 8, clip [0, 127], int8. Generated by samples/models/gen_resnet18_vta.py\n"
            "# --conv-benchmark.\n\n" % (name, h, w, cin, cout, kh, kw, hpad, hs))
        text += "@I.ir_module\nclass Module:\n" + prim_func_text(spec, "main")
        path = os.path.join(directory, "conv_%s.tvm" % name)
        write_text(path, text)
        log("%s: %s" % (path, "x".join(str(d) for d in spec.out_shape())))


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of the input and weights (default 0)")
    parser.add_argument("--module", help="write the .tvm module here")
    parser.add_argument("--params", help="write the weights (.npz, int8, keys = main's parameter names)")
    parser.add_argument("--input", help="write the input x (.npy, int8)")
    parser.add_argument("--expected", help="write the numpy reference output (.npy, int8)")
    parser.add_argument("--conv-benchmark", metavar="DIR",
                        help="write TVM's VTA benchmark convs C2..C11 as DIR/conv_C*.tvm and stop")
    parser.add_argument("--nchw", action="store_true",
                        help="write the network as plain NCHW high-level Relax (OIHW weights, NCHW input and "
                             "expected output) instead of VTA's packed TensorIR")
    parser.add_argument("--quiet", action="store_true", help="print only failures")
    args = parser.parse_args(argv)

    def log(message, force=False):
        if force or not args.quiet:
            print(message, flush=True)

    if args.conv_benchmark:
        write_benchmark_convs(args.conv_benchmark, log)
        return 0

    start = time.process_time()
    x, weights, expected, records, healthy = build_resnet18(args.seed, log)
    if args.nchw:
        module = resnet18_nchw_module_text(records, args.seed)
        log("%d conv layers; numpy reference %.1f s CPU" % (len(records), time.process_time() - start))
        kernel, activation = (lambda w: w), (lambda a: a[None])
    else:
        module, functions = resnet18_module_text(records, args.seed)
        log("%d conv layers, %d prim_funcs; numpy reference %.1f s CPU" % (
            len(records), functions, time.process_time() - start))
        kernel, activation = pack_kernel, pack_activation
    if args.module:
        write_text(args.module, module)
    if args.params:
        np.savez(args.params, **{name: kernel(w) for name, w in weights.items()})
    if args.input:
        np.save(args.input, activation(x))
    if args.expected:
        np.save(args.expected, activation(expected))
    if not healthy:
        print("error: some layer's output is more than %d%% zeros or %d%% saturated (see above)" % (
            100 * MAX_ZERO_FRACTION, 100 * MAX_SATURATED_FRACTION), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

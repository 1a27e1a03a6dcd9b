// vta-graph-pack (TVM's Relay vta.top.graph_pack, redone for Relax): rewrites the part of an
// int8-quantized NCHW graph that VTA runs into VTA's packed layouts, before legalize-ops, so
// that every convolution and its elementwise epilogue legalize into prim_funcs in the form
// --auto-schedule maps to VTA.
//
// The region starts after the first call of the start operator (`--pass-option
// graph-pack-start=OP`, default nn.max_pool2d, as TVM's deploy flow packs ResNet; the
// function's inputs when the graph has none) and stops at the first call of the stop operator
// after it (graph-pack-stop, default nn.adaptive_avg_pool2d; the outputs when none). In it:
// - an R.nn.conv2d of int8 NCHW data and OIHW weights into int32 (groups 1, no dilation, the
//   channels multiples of VTA's BLOCK_IN / BLOCK_OUT, the batch of BATCH) takes its data in
//   NCHW{BATCH}n{BLOCK_IN}c, (N/B, C/BI, H, W, B, BI), and its weights in OIHW{BO}o{BI}i,
//   (O/BO, I/BI, KH, KW, BO, BI), and gives its result packed as its data: a constant weight
//   is packed here (TVM folds the same transform), a weight parameter through R.reshape and
//   R.permute_dims in the graph;
// - an elementwise operator (add, subtract, multiply, maximum, minimum, the shifts and bitwise
//   operators, nn.relu, astype, clip) of a packed value works on it packed, its other operands
//   scalars or tensors of the same NCHW shape (packed on the way); R.clip becomes R.minimum
//   then R.maximum, the two ALU stages of VTA's own clip compute (vta/top/op.py).
// An NCHW tensor is packed by R.reshape to (N/B, B, C/BI, BI, H, W) and R.permute_dims [0, 2,
// 4, 5, 1, 3], once, where it is first needed. A packed value that something else uses (an
// operator that does not pack, an output, a call_tir) is unpacked (the inverse permutation and
// reshape) into the variable it replaced, so the graph's outputs and every other binding keep
// their NCHW values. The numbers a packed graph computes are the unpacked graph's.
#pragma once

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"
#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Error vtaGraphPack(ir::IRModule &module, PassContext &context);

}  // namespace vtac::passes

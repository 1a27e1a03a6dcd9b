// fuse-ops (TVM's relax.transform.FuseOps followed by FuseTIR, as one module pass): chains of
// R.call_tir in a dataflow block become one R.call_tir of one prim_func that computes the chain,
// its intermediate results in T.alloc_buffer, so that a convolution and the elementwise stages
// after it (a quantized layer's shift, residual add, clip and cast) are one TensorIR function
// the auto-scheduler maps to VTA.
//
// Each prim_func gets TVM's op pattern (AnnotateTIROpPattern, primFuncPattern below). Grouping
// follows TVM's FuseOps rules, simplified to chains of single-use values in one dataflow block
// (TVM's post-dominator analysis reduced to that case: a value used by two members of a group,
// TVM's diamond conv -> add(1, conv) -> add(conv, .), is not fused across):
//  - an edge P -> C is a call_tir P whose value is a dataflow variable used only by the call_tir
//    C of the same dataflow block (any number of times in its arguments); values used twice,
//    outside the block, by a non-call binding, in a branch or returned are never fused across;
//  - phase 0: a group holding an OutEWiseFusable function (a convolution, a matmul, a pooling)
//    takes its consumer C when C is ElemWise or Broadcast and still alone, so the chain after a
//    reduction grows consumer by consumer (TVM's kOutEWiseFusable case) -- up to a cast that
//    widens (astype int8 -> int32), which stays for its consumer's group: the groups then pass
//    the narrower tensor, and a quantized layer's int8 output, widened as the next layer's
//    residual, ends its own layer's chain (where TVM's quantizer puts stop_fusion);
//  - phase 1: a producer group P joins the group of its consumer C by P's pattern, as TVM's
//    edges decide: an ElemWise/Broadcast P when C is ElemWise, Broadcast, Injective or
//    CommReduce (C's group may hold a convolution: astype(residual) joins the add of a
//    convolution's chain), a convolution's chain only into an ElemWise/Broadcast C that is no
//    widening cast (TVM's kOutEWiseFusable path: a transpose after it stays apart), an
//    Injective P when C's whole group is at most Injective; never into a convolution or matmul
//    (the next layer's convolution does not take the previous layer's chain, nor an elementwise
//    producer, as in TVM), and never so that a group holds two reductions (TVM would allow a
//    convolution's chain into a sum);
//  - a CommReduce group takes no consumer; Opaque functions, call_tir of symbolic shapes,
//    scalar or tir_vars arguments, R.call_tir_inplace and every other binding are left alone.
// A group of one call is left as it is. A group of several becomes a prim_func built as TVM's
// FuseTIR builds it: parameters the group's external inputs in order of first use (named after
// the Relax variable, constants "param_0", ...) then the output, each buffer of the shape its
// callee declares (TVM takes the Relax shape, int64, which mixes index types in a prim_func of
// int32 loops); each member's output an
// intermediate buffer "<buffer>_intermediate" (TVM's unique suffix "_1"), the last one the
// output parameter; the callees' root bodies in binding order with fresh loop and block
// variables, block names made unique as TVM's BlockNameDeduplicator does ("T_add", "T_add_1");
// {"tir.noalias": True}, private; named "fused_" + the callees' names joined by "_" (a
// structurally equal function already in the module is reused, a taken name gets a numeric
// suffix). The group's last binding keeps its variable and becomes the R.call_tir; the other
// bindings go. Private prim_funcs that only fused calls called are removed from the module.
#pragma once

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"
#include "vtac/passes/Pass.h"

namespace vtac::passes {

// TVM's OpPatternKind, in TVM's order: a larger kind fuses with less.
enum class OpPattern { ElemWise = 0, Broadcast = 1, Injective = 2, CommReduce = 3, OutEWiseFusable = 4, Opaque = 8 };

// The pattern of a prim_func as TVM's PatternKindAnalyzer (src/relax/analysis/
// tir_op_pattern_kind.cc) finds it from each block's one store and its loads: loads at the store's
// indices are ElemWise, at a subsequence of them Broadcast, at expressions of them Injective; a
// block with reduction iterators is OutEWiseFusable when it multiplies and adds (matmul, conv)
// or reads windows (pooling), else CommReduce; the kinds of the blocks combine by max, and an
// output block after a CommReduce makes the function OutEWiseFusable. Stricter than TVM, anything
// unclear is Opaque: a body that is not the root block over serial loops and blocks, a block that
// is not one buffer store (nested blocks, allocations, match_buffers), a parameter that is no
// buffer, a write to an input parameter, a body that names a parameter's handle or data pointer.
OpPattern primFuncPattern(const ir::PrimFunc &func);

llvm::Error fuseOps(ir::IRModule &module, PassContext &context);

}  // namespace vtac::passes

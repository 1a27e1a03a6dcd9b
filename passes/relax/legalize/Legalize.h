// What legalize-ops' operator families share: the prim_func one operator call becomes, and a
// small stand-in for TVM's te.compute + te.create_prim_func that builds it.
//
// TVM legalizes an operator by calling a topi compute on placeholders of its tensor arguments
// (BlockBuilder.call_te) and turning the result into a prim_func: one loop per output
// dimension (then per reduction axis) around one block named after the compute (`T_add`,
// `compute`, `matmul`, `T_transpose`) whose iterators are remapped from the loops, whose
// reads/writes are inferred, and which holds `out[axes] = value` — or for a reduction an init
// (0 for a sum) and `out[axes] = out[axes] + value` (T.max, T.min) — inside the implicit root
// block, after the blocks of intermediate stages (a mean's sum, allocated in the root block);
// the function is private with {"tir.noalias": True}. The Relax function's symbolic sizes become fresh TIR variables
// of the same names (TVM copies them so the prim_func stands alone).
//
// One file per operator family, as TVM's legalize_ops/ has: Binary.cpp (add, subtract,
// multiply, divide, maximum, minimum, power, floor_divide, shifts, bitwise, comparisons),
// Unary.cpp (clip, exp, log, sqrt, rsqrt, tanh, sigmoid, sin, cos, erf, negative, abs, square,
// round, floor, ceil, trunc, sign), Nn.cpp (nn.relu, nn.gelu, nn.gelu_tanh, nn.silu, nn.softmax,
// nn.log_softmax, nn.layer_norm, nn.batch_norm),
// LinearAlgebra.cpp (matmul), Manipulate.cpp (permute_dims, reshape, concat, expand_dims,
// squeeze, flatten, broadcast_to, split, tile), Datatype.cpp (astype), Statistical.cpp (sum, mean,
// max, min), Convolution.cpp (nn.conv2d), Pooling.cpp (nn.max_pool2d, nn.avg_pool2d,
// nn.adaptive_avg_pool2d), Create.cpp (zeros, ones, full, their *_like twins, arange),
// Search.cpp (where, argmax, argmin), Index.cpp (take, strided_slice), Qdq.cpp (quantize,
// dequantize).
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"
#include "vtac/ir/Relax.h"
#include "vtac/ir/RelaxOperators.h"

namespace vtac::passes::legalize {

// One operator call, legalized: the prim_func, TVM's name hint for it ("add", "relu",
// "matmul", "transpose"), and the arguments of the R.call_tir that replaces the call (scalar
// constants folded into the prim_func are left out).
struct LegalizedOperator {
  ir::PrimFuncRef func;
  std::string nameHint;
  std::vector<ir::relax::Arg> args;
  // Set instead of the above when the call folds into a constant (R.arange of constant
  // bounds): the binding becomes the constant.
  ir::relax::ConstantPtr constant;
};

class ComputeBuilder {
public:
  using Indices = std::vector<ir::Expr>;

  // A reduction: its axes (extent, iterator name), the value it starts from, and how it
  // combines (Add for te.sum, Max, Min).
  struct Reduction {
    std::vector<std::pair<ir::Expr, std::string>> axes;
    ir::Expr init;
    ir::NodeKind combine = ir::NodeKind::Add;
  };

  // The names of a stage's spatial iterators: a prefix numbered (ax0, ax1, ...), as te.compute
  // names the axes of a `lambda *indices`, or a name each, as it names a lambda's parameters.
  struct AxisNames {
    AxisNames(const char *prefix) : prefix(prefix) {}
    AxisNames(std::string prefix) : prefix(std::move(prefix)) {}
    AxisNames(std::vector<std::string> names) : names(std::move(names)) {}
    std::string operator()(size_t i) const { return i < names.size() ? names[i] : prefix + std::to_string(i); }

    std::string prefix;
    std::vector<std::string> names;
  };

  // A placeholder for a tensor argument of the call (an argument of the R.call_tir): named
  // after the variable, "A", "B", ... for a constant, as TVM's call_te names them. An error at
  // the argument when its shape or element type is unknown.
  llvm::Expected<ir::BufferRef> input(const ir::relax::Arg &arg);
  // The shape of `sinfo` with the Relax function's symbolic sizes replaced by the prim_func's.
  std::vector<ir::Expr> shapeOf(const ir::relax::TensorStructInfo &sinfo);

  // te.compute(shape, value, name=block): out[i] = value(i), iterators named by `axisNames`;
  // an error at the result's struct info when its shape or element type is unknown.
  // `annotations` are the block's (TVM's T.block_attr, topi's compute attrs).
  llvm::Expected<LegalizedOperator> compute(std::string nameHint, const std::string &block, const AxisNames &axisNames,
                            const ir::relax::TensorStructInfo &out, std::function<ir::Expr(const Indices &)> value,
                            ir::AttrMap annotations = {});
  // Several te.compute outputs of one prim_func (topi's split): output i of struct info
  // `outs[i]` in block `blocks[i]`, out[i][indices] = value(i, indices); the prim_func takes one
  // output buffer per block, in order.
  llvm::Expected<LegalizedOperator> computeEach(std::string nameHint, const std::vector<std::string> &blocks,
                                                const AxisNames &axisNames,
                                                const std::vector<ir::relax::TensorStructInfo> &outs,
                                                const std::function<ir::Expr(size_t, const Indices &)> &value);
  // te.compute(shape, lambda i: te.sum(value(i, k), axis=k)): a reduction over k in [0, extent).
  llvm::Expected<LegalizedOperator> sum(std::string nameHint, const std::string &block, const AxisNames &axisNames,
                        const ir::relax::TensorStructInfo &out, ir::Expr extent,
                        std::function<ir::Expr(const Indices &, const ir::Expr &)> value);
  // te.compute(shape, lambda i: reducer(value(i, ks), axis=ks)) over several axes.
  llvm::Expected<LegalizedOperator> reduce(std::string nameHint, const std::string &block, const AxisNames &axisNames,
                           const ir::relax::TensorStructInfo &out, const Reduction &reduction,
                           std::function<ir::Expr(const Indices &, const Indices &)> value,
                           ir::AttrMap annotations = {});
  // A reduction whose result a later stage reads (TVM's intermediate te tensor): allocated in
  // the prim_func's root block and named after the block; the result's shape is `out`'s.
  llvm::Expected<ir::BufferRef> reduceStage(const std::string &block, const AxisNames &axisNames,
                                            const ir::relax::TensorStructInfo &out, const Reduction &reduction,
                                            std::function<ir::Expr(const Indices &, const Indices &)> value);
  // The same of its own shape (prim_func sizes) and element type (topi's softmax maximum).
  ir::BufferRef reduceStage(const std::string &block, const AxisNames &axisNames, ir::DataType dtype,
                            std::vector<ir::Expr> shape, const Reduction &reduction,
                            const std::function<ir::Expr(const Indices &, const Indices &)> &value);

  // A reduction of several values at once (te.comm_reducer over a tuple: topi's argmax, the
  // sums of x and x * x of layer_norm): its axes, the element type and starting value of each
  // accumulator, and how the accumulators (`acc`) take in new values (`next`).
  struct TupleReduction {
    std::vector<std::pair<ir::Expr, std::string>> axes;
    std::vector<ir::DataType> dtypes;
    std::vector<ir::Expr> inits;
    std::function<std::vector<ir::Expr>(const Indices &acc, const Indices &next)> combine;
  };
  // Its stage over `shape` (prim_func sizes): one block `block` writing intermediates
  // `<block>_v0`, `<block>_v1`, ...: the inits, then each combined value bound to `v_<buffer>`
  // before the stores, as te.create_prim_func writes a tuple reduction. `values` gives the new
  // values at the spatial and reduction iterators.
  std::vector<ir::BufferRef> tupleReduceStage(const std::string &block, const AxisNames &axisNames,
                                              std::vector<ir::Expr> shape, const TupleReduction &reduction,
                                              const std::function<Indices(const Indices &, const Indices &)> &values);

  // An intermediate te tensor of its own shape (prim_func sizes) and element type, computed
  // elementwise (topi's pad_temp).
  ir::BufferRef computeStage(const std::string &block, const AxisNames &axisNames, ir::DataType dtype,
                             std::vector<ir::Expr> shape, const std::function<ir::Expr(const Indices &)> &value);

  // The prim_func of the stages so far whose results `outputs` (stages' buffers, in order) it
  // writes instead of allocating them: the outputs of a te computation of several results that
  // later stages read (topi's batch_norm). An error at `resultLoc` as for one output.
  llvm::Expected<LegalizedOperator> finishWithOutputs(std::string nameHint, const std::vector<ir::BufferRef> &outputs,
                                                      ir::SourceLoc resultLoc);

  // topi's pad: `data` with `before`/`after` elements added along each dimension, filled with
  // `padValue`, in block `block` (iterators `axisNames`: ax0, ax1, ... for topi's C++ pad): T.if_then_else(before <= ax and
  // ax < size + before and ..., data[ax - before], padValue) over the padded dimensions, a copy
  // when none is. Python's topi.nn.pad (`bothBounds`) checks both bounds of a dimension padded
  // on either side, C++'s topi::pad only the padded sides.
  ir::BufferRef pad(const ir::BufferRef &data, const std::vector<int64_t> &before, const std::vector<int64_t> &after,
                    ir::Expr padValue, bool bothBounds, const std::string &block = "pad_temp",
                    const AxisNames &axisNames = "ax");

private:
  // One block over the output's loops (then the reduction's) storing into `output`.
  ir::Stmt stage(const ir::BufferRef &output, const AxisNames &axisNames, const Reduction *reduction,
                 const std::function<ir::Expr(const Indices &, const Indices &)> &value,
                 ir::AttrMap annotations = {});
  // A block's body and init (null when it reduces nothing).
  struct BlockStatements {
    ir::Stmt body, init;
  };
  // Loops i0, i1, ... over `spatial` then the reduction axes, bound to the iterators of block
  // `block` (spatial ones named by `axisNames`), which holds what `statements` makes of them.
  ir::Stmt loopNest(const std::string &block, const std::vector<ir::Expr> &spatial, const AxisNames &axisNames,
                    const std::vector<std::pair<ir::Expr, std::string>> &reduceAxes,
                    const std::function<BlockStatements(const Indices &, const Indices &)> &statements,
                    ir::AttrMap annotations);
  llvm::Expected<LegalizedOperator> build(std::string nameHint, const std::string &block, const AxisNames &axisNames,
                          const ir::relax::TensorStructInfo &out, const Reduction *reduction,
                          const std::function<ir::Expr(const Indices &, const Indices &)> &value,
                          ir::AttrMap annotations);
  // The prim_func of the stages so far, writing `outputs` (an error at `resultLoc` for a size
  // it cannot be passed).
  llvm::Expected<LegalizedOperator> finish(std::string nameHint, const std::vector<ir::BufferRef> &outputs,
                                           ir::SourceLoc resultLoc);

  std::vector<ir::relax::Arg> args_;
  std::vector<ir::BufferRef> inputs_;
  std::vector<ir::BufferRef> intermediates_;
  std::vector<ir::Stmt> stages_;
  std::unordered_map<const ir::Var *, ir::Expr> sizes_;  // Relax size -> prim_func size
};

// 0 of `dtype` (T.float32(0), T.int32(0)), as tir.const(0, dtype).
ir::Expr zeroOf(ir::DataType dtype);

// A TIR intrinsic of one operand, of its type: `T.exp(x)` for ("tir.exp", x).
ir::Expr unaryIntrinsic(const std::string &name, ir::Expr x);

// topi.erf of a float16 tensor as TVM's legalizations take it (legalize_ops' te_erf, te_gelu):
// cast to float32 in block `compute`, erf in `compute_1`; the float32 result, which the caller
// casts back.
ir::BufferRef float32Erf(ComputeBuilder &builder, const ir::BufferRef &x);

// A scalar constant argument as TVM's _try_convert_to_scalar_const folds it into the compute
// (T.float32(1)); null for any other argument. (Only R.const scalars: a 0-d metadata constant
// stays a tensor argument.)
ir::Expr scalarConstant(const ir::relax::Arg &arg);

// topi's InputIndexFromBroadcast: the indices of an operand of shape `mine` among the result's
// iterators `axes`, aligned at the last dimension, 0 where it broadcasts (its size is 1 and
// `other`'s, the other operand's or the result's, is not).
std::vector<ir::Expr> broadcastIndices(const std::vector<ir::Expr> &axes, const std::vector<ir::Expr> &mine,
                                       const std::vector<ir::Expr> &other);

// topi's reshape: the operand's indices (of shape `from`) for the result's iterators `ax` (of
// shape `to`): the iterators raveled in `to`, unraveled in `from`, in the form TVM's simplifier
// leaves (see Manipulate.cpp).
std::vector<ir::Expr> reshapeIndices(const std::vector<ir::Expr> &ax, const std::vector<ir::Expr> &to,
                                     const std::vector<ir::Expr> &from);

// The families, each given an operator call of its family whose struct info was inferred when
// it was read; errors are located at an argument or the call (its result's struct info).
llvm::Expected<LegalizedOperator> legalizeBinary(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeNn(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeClip(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeUnary(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeLinearAlgebra(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeManipulate(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeDatatype(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeStatistical(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeConvolution(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizePooling(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeCreate(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeSearch(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeIndex(const ir::relax::Call &call);
llvm::Expected<LegalizedOperator> legalizeQdq(const ir::relax::Call &call);

}  // namespace vtac::passes::legalize

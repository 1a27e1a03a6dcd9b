// The high-level Relax operators vtac knows and their struct info inference, after TVM's
// src/relax/op/tensor/{binary,create,datatype,index,linear_algebra,manipulate,search,statistical,unary}.cc and
// op/nn/nn.cc.
#include "vtac/ir/RelaxOperators.h"

#include <algorithm>
#include <cassert>

#include "vtac/ir/Printer.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::ir::relax {

namespace {

const std::vector<OperatorInfo> &operators() {
  using F = OperatorFamily;
  static const std::vector<OperatorInfo> table = {
      {"add", F::ElementwiseBinary, {"x1", "x2"}},      {"subtract", F::ElementwiseBinary, {"x1", "x2"}},
      {"multiply", F::ElementwiseBinary, {"x1", "x2"}}, {"divide", F::ElementwiseBinary, {"x1", "x2"}},
      {"maximum", F::ElementwiseBinary, {"x1", "x2"}},  {"minimum", F::ElementwiseBinary, {"x1", "x2"}},
      {"left_shift", F::BitwiseBinary, {"x1", "x2"}},   {"right_shift", F::BitwiseBinary, {"x1", "x2"}},
      {"bitwise_and", F::BitwiseBinary, {"x1", "x2"}},  {"bitwise_or", F::BitwiseBinary, {"x1", "x2"}},
      {"bitwise_xor", F::BitwiseBinary, {"x1", "x2"}},  {"clip", F::Clip, {"x"}},
      {"power", F::ElementwiseBinary, {"x1", "x2"}},    {"floor_divide", F::ElementwiseBinary, {"x1", "x2"}},
      {"equal", F::Comparison, {"x1", "x2"}},           {"not_equal", F::Comparison, {"x1", "x2"}},
      {"less", F::Comparison, {"x1", "x2"}},            {"less_equal", F::Comparison, {"x1", "x2"}},
      {"greater", F::Comparison, {"x1", "x2"}},         {"greater_equal", F::Comparison, {"x1", "x2"}},
      {"nn.relu", F::ElementwiseUnary, {"data"}},       {"matmul", F::Matmul, {"x1", "x2"}},
      {"permute_dims", F::PermuteDims, {"x"}},         {"reshape", F::Reshape, {"x"}},
      {"astype", F::Astype, {"x"}},                    {"sum", F::Statistical, {"x"}},
      {"mean", F::Statistical, {"x"}},                  {"max", F::Statistical, {"x"}},
      {"min", F::Statistical, {"x"}},                   {"concat", F::Concat, {"tensors"}},
      {"nn.conv2d", F::Conv2D, {"data", "weight"}},     {"nn.max_pool2d", F::Pool2D, {"data"}},
      {"nn.avg_pool2d", F::Pool2D, {"data"}},           {"nn.adaptive_avg_pool2d", F::AdaptivePool2D, {"data"}},
      // Creation (create.cc): the shape, arange's bounds and the dtype are no tensors.
      {"zeros", F::Full, {}},                           {"ones", F::Full, {}},
      {"full", F::Full, {"fill_value"}},                {"zeros_like", F::FullLike, {"x"}},
      {"ones_like", F::FullLike, {"x"}},                {"full_like", F::FullLike, {"x", "fill_value"}},
      {"arange", F::Arange, {}},
      {"expand_dims", F::ExpandDims, {"x"}},            {"squeeze", F::Squeeze, {"x"}},
      {"flatten", F::Flatten, {"x"}},
      {"where", F::Where, {"condition", "x1", "x2"}},   {"take", F::Take, {"x", "indices"}},
      {"strided_slice", F::StridedSlice, {"x"}},
      {"quantize", F::Quantize, {"data", "scale", "zero_point"}},
      {"dequantize", F::Quantize, {"data", "scale", "zero_point"}},
      // Elementwise math (unary.cc; the float ones refuse other tensors), nn.gelu and nn.silu
      // (nn.cc), softmax (nn.cc), broadcast_to (manipulate.cc), layer_norm (nn.cc), argmax and
      // argmin (statistical.cc).
      {"negative", F::ElementwiseUnary, {"x"}},         {"abs", F::ElementwiseUnary, {"x"}},
      {"square", F::ElementwiseUnary, {"x"}},           {"exp", F::FloatUnary, {"x"}},
      {"log", F::FloatUnary, {"x"}},                    {"sqrt", F::FloatUnary, {"x"}},
      {"rsqrt", F::FloatUnary, {"x"}},                  {"tanh", F::FloatUnary, {"x"}},
      {"sigmoid", F::FloatUnary, {"x"}},                {"sin", F::FloatUnary, {"x"}},
      {"cos", F::FloatUnary, {"x"}},                    {"erf", F::FloatUnary, {"x"}},
      {"nn.gelu", F::FloatUnary, {"data"}},             {"nn.silu", F::FloatUnary, {"data"}},
      {"nn.softmax", F::Softmax, {"data"}},             {"nn.log_softmax", F::Softmax, {"data"}},
      {"broadcast_to", F::BroadcastTo, {"x"}},
      {"nn.layer_norm", F::LayerNorm, {"data", "gamma", "beta"}},
      {"argmax", F::ArgReduce, {"x"}},                  {"argmin", F::ArgReduce, {"x"}},
      {"split", F::Split, {"x"}},
      // Rounding and sign (unary.cc; any element type), nn.gelu_tanh, nn.batch_norm (nn.cc), tile
      // (manipulate.cc).
      {"round", F::ElementwiseUnary, {"x"}},            {"floor", F::ElementwiseUnary, {"x"}},
      {"ceil", F::ElementwiseUnary, {"x"}},             {"trunc", F::ElementwiseUnary, {"x"}},
      {"sign", F::ElementwiseUnary, {"x"}},             {"nn.gelu_tanh", F::FloatUnary, {"data"}},
      {"nn.batch_norm", F::BatchNorm, {"data", "gamma", "beta", "moving_mean", "moving_var"}},
      {"tile", F::Tile, {"x"}},
  };
  return table;
}

// A clip bound as TVM prints its PrimValue: `R.prim_value(0)`, `R.prim_value(T.float32(0.5))`.
std::string printClipBound(const std::variant<int64_t, double> &bound) {
  if (const auto *integer = std::get_if<int64_t>(&bound)) return "R.prim_value(" + std::to_string(*integer) + ")";
  return "R.prim_value(" + printExpr(floatImm(std::get<double>(bound), DataType::float32())) + ")";
}

// "[1, -1]": axes as TVM prints them.
std::string printAxes(const std::vector<int64_t> &axes) {
  std::string text = "[";
  for (size_t i = 0; i < axes.size(); ++i) text += (i ? ", " : "") + std::to_string(axes[i]);
  return text + "]";
}

std::string printShape(llvm::ArrayRef<Expr> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + printDim(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

// "[8, 3]": a shape value as R.shape prints it.
std::string printShapeList(llvm::ArrayRef<Expr> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + printDim(shape[i]);
  return text + "]";
}

// TVM's InferBinaryArithOpOutDtype: one element type, or unknown when either is.
std::optional<DataType> commonDtype(const Call &call, const TensorStructInfo &a, const TensorStructInfo &b,
                                    SourceLoc at, RelaxDiagnostic &diagnostic) {
  if (a.dtype.isVoid() || b.dtype.isVoid()) return DataType::voidTy();
  if (a.dtype == b.dtype) return a.dtype;
  diagnostic = {at, "R." + call.callee + " needs operands of one element type, got " + a.dtype.str() + " and " +
                        b.dtype.str()};
  return std::nullopt;
}

std::optional<TensorStructInfo> inferBinary(const Call &call, const std::vector<TensorStructInfo> &in, SourceLoc at,
                                            RelaxDiagnostic &diagnostic) {
  std::optional<DataType> dtype = commonDtype(call, in[0], in[1], at, diagnostic);
  if (!dtype) return std::nullopt;
  TensorStructInfo result;
  result.dtype = *dtype;
  if (in[0].rank() >= 0 && in[1].rank() >= 0) result.ndim = std::max(in[0].rank(), in[1].rank());
  if (!in[0].shape || !in[1].shape) return result;
  std::string conflict;
  result.shape = broadcastShapes(*in[0].shape, *in[1].shape, conflict);
  if (!conflict.empty()) {
    diagnostic = {at, "R." + call.callee + " cannot broadcast shapes " + printShape(*in[0].shape) + " and " +
                          printShape(*in[1].shape) + ": " + conflict};
    return std::nullopt;
  }
  return result;
}

// The shifts and bitwise operators: numpy broadcasting of integer (or bool) tensors.
std::optional<TensorStructInfo> inferBitwise(const Call &call, const std::vector<TensorStructInfo> &in, SourceLoc at,
                                             RelaxDiagnostic &diagnostic) {
  for (const TensorStructInfo &operand : in)
    if (!operand.dtype.isVoid() && operand.dtype.isFloat()) {
      diagnostic = {at, "R." + call.callee + " needs integer operands, got " + operand.dtype.str()};
      return std::nullopt;
    }
  return inferBinary(call, in, at, diagnostic);
}

bool oneOf(DataType dtype, std::initializer_list<const char *> names) {
  return std::any_of(names.begin(), names.end(), [&](const char *name) { return dtype.str() == name; });
}

// quantize / dequantize (TVM's qdq.cc): the data's shape in `out_dtype`; a float scale and an
// integer (or float16) zero point, each a scalar, a tensor of one element, or a vector as long
// as the data's dimension `axis`.
std::optional<TensorStructInfo> inferQuantize(const Call &call, const std::vector<TensorStructInfo> &in,
                                              SourceLoc axisLoc, RelaxDiagnostic &diagnostic) {
  bool quantize = call.callee == "quantize";
  const char *dataTypes = quantize ? "float16 or float32" : "int8, uint8, int16, uint16 or int32";
  struct Check {
    const char *what;
    std::initializer_list<const char *> types;
    const char *typeNames;
  };
  const Check checks[3] = {
      {"data", {}, dataTypes},
      {"scale", {"float16", "float32"}, "float16 or float32"},
      {"zero_point", {"int8", "uint8", "int16", "uint16", "int32", "uint32", "float16"},
       "int8, uint8, int16, uint16, int32, uint32 or float16"}};
  for (size_t i = 0; i < 3; ++i) {
    if (in[i].dtype.isVoid()) continue;
    bool fits = i > 0 ? oneOf(in[i].dtype, checks[i].types)
                      : quantize ? oneOf(in[i].dtype, {"float16", "float32"})
                                 : oneOf(in[i].dtype, {"int8", "uint8", "int16", "uint16", "int32"});
    if (!fits) {
      diagnostic = {call.args[i].loc, "R." + call.callee + " needs " + checks[i].what + " of type " +
                                          checks[i].typeNames + ", got " + in[i].dtype.str()};
      return std::nullopt;
    }
  }
  int rank = in[0].rank();
  int64_t axis = call.axes->front();
  if (rank > 0 && (axis < -rank || axis >= rank)) {
    diagnostic = {axisLoc, "R." + call.callee + "'s axis " + std::to_string(axis) + " is out of range for rank " +
                               std::to_string(rank)};
    return std::nullopt;
  }
  for (size_t i = 1; i < 3; ++i) {
    if (!in[i].shape || quantizeParameterIsScalar(in[i])) continue;
    const Expr *dim = in[0].shape && rank > 0 ? &(*in[0].shape)[axis < 0 ? axis + rank : axis] : nullptr;
    bool vector = in[i].shape->size() == 1;
    if (!vector || (dim && dim->isa<IntImm>() && in[i].shape->front().isa<IntImm>() &&
                    !sizesProvablyEqual(*dim, in[i].shape->front()))) {
      diagnostic = {call.args[i].loc, "R." + call.callee + "'s " + checks[i].what + " must be a scalar or a vector of " +
                                          (dim ? printDim(*dim) : std::string("the axis' length")) +
                                          " (the data's dimension " + std::to_string(axis) + "), got shape " +
                                          printShape(*in[i].shape)};
      return std::nullopt;
    }
  }
  return TensorStructInfo{in[0].shape, in[0].ndim, call.outDtype, {}};
}

std::optional<TensorStructInfo> inferMatmul(const Call &call, const std::vector<TensorStructInfo> &in, SourceLoc at,
                                            RelaxDiagnostic &diagnostic) {
  for (size_t i = 0; i < 2; ++i)
    if (in[i].rank() == 0) {
      diagnostic = {call.args[i].loc, "R.matmul needs operands of rank 1 or more; this one has rank 0"};
      return std::nullopt;
    }
  TensorStructInfo result;
  if (call.outDtype.isVoid()) {
    std::optional<DataType> dtype = commonDtype(call, in[0], in[1], at, diagnostic);
    if (!dtype) return std::nullopt;
    result.dtype = *dtype;
  } else {
    result.dtype = call.outDtype;
  }
  if (!in[0].shape || !in[1].shape) return result;
  // numpy: a vector is a matrix of one row (left) or one column (right), dropped again after.
  std::vector<Expr> a = *in[0].shape, b = *in[1].shape;
  bool prepended = a.size() == 1, appended = b.size() == 1;
  if (prepended) a.insert(a.begin(), intImm(1, DataType::int64()));
  if (appended) b.push_back(intImm(1, DataType::int64()));
  const Expr &reduceA = a.back(), &reduceB = b[b.size() - 2];
  if (reduceA.isa<IntImm>() && reduceB.isa<IntImm>() && !sizesProvablyEqual(reduceA, reduceB)) {
    diagnostic = {at, "R.matmul needs equal reduction lengths, got " + printDim(reduceA) + " (the last dimension of " +
                          printShape(*in[0].shape) + ") and " + printDim(reduceB) + " (" +
                          (appended ? "the only" : "the second-to-last") + " dimension of " +
                          printShape(*in[1].shape) + ")"};
    return std::nullopt;
  }
  std::string conflict;
  std::optional<std::vector<Expr>> batch = broadcastShapes(llvm::ArrayRef<Expr>(a).drop_back(2),
                                                           llvm::ArrayRef<Expr>(b).drop_back(2), conflict);
  if (!conflict.empty()) {
    diagnostic = {at, "R.matmul cannot broadcast the batch dimensions of " + printShape(*in[0].shape) + " and " +
                          printShape(*in[1].shape) + ": " + conflict};
    return std::nullopt;
  }
  size_t rank = std::max(a.size(), b.size()) - prepended - appended;
  if (!batch) {
    result.ndim = int(rank);
    return result;
  }
  std::vector<Expr> shape = *batch;
  if (!prepended) shape.push_back(a[a.size() - 2]);
  if (!appended) shape.push_back(b.back());
  return TensorStructInfo::known(std::move(shape), result.dtype);
}

std::optional<TensorStructInfo> inferPermuteDims(const Call &call, const TensorStructInfo &in, SourceLoc axesLoc,
                                                 RelaxDiagnostic &diagnostic) {
  if (in.rank() < 0) {
    if (call.axes) return TensorStructInfo{std::nullopt, int(call.axes->size()), in.dtype, {}};
    return TensorStructInfo{std::nullopt, -1, in.dtype, {}};
  }
  std::optional<std::vector<int64_t>> axes = normalizedAxes(call.axes, in.rank());
  if (!axes) {
    diagnostic = {axesLoc, "R.permute_dims needs a permutation of the " + std::to_string(in.rank()) +
                               " dimensions of its operand, got axes " + printAxes(*call.axes)};
    return std::nullopt;
  }
  if (!in.shape) return TensorStructInfo{std::nullopt, in.rank(), in.dtype, {}};
  std::vector<Expr> shape;
  for (int64_t axis : *axes) shape.push_back((*in.shape)[size_t(axis)]);
  return TensorStructInfo::known(std::move(shape), in.dtype);
}

// The number of elements of a shape of constant sizes; nullopt when a size is not constant
// (or the count overflows).
std::optional<int64_t> constantElementCount(llvm::ArrayRef<Expr> shape) {
  int64_t count = 1;
  for (const Expr &dim : shape) {
    const auto *imm = dim.as<IntImm>();
    if (!imm || __builtin_mul_overflow(count, imm->value, &count)) return std::nullopt;
  }
  return count;
}

// TVM's reshape inference: the written shape (`call.outSinfo.shape`) with its one -1 resolved
// from the operand's element count; a count that differs is an error when both are known.
std::optional<TensorStructInfo> inferReshape(const Call &call, const TensorStructInfo &in, SourceLoc shapeLoc,
                                             RelaxDiagnostic &diagnostic) {
  std::vector<Expr> shape = *call.outSinfo.shape;
  std::optional<size_t> inferred;
  std::vector<Expr> others;
  for (size_t i = 0; i < shape.size(); ++i) {
    const auto *imm = shape[i].as<IntImm>();
    if (imm && imm->value == -1 && !inferred) {
      inferred = i;
      continue;
    }
    if (imm && imm->value < 0) {
      diagnostic = {shapeLoc, "R.reshape needs sizes of 0 or more and at most one -1, got " + printShape(shape)};
      return std::nullopt;
    }
    others.push_back(shape[i]);
  }
  std::optional<int64_t> inCount = in.shape ? constantElementCount(*in.shape) : std::nullopt;
  std::optional<int64_t> outCount = constantElementCount(others);
  if (inferred) {
    if (!inCount || !outCount || *outCount == 0 || *inCount % *outCount != 0) {
      diagnostic = {shapeLoc, "R.reshape cannot infer the -1 of " + printShape(shape) + " from an operand of " +
                                  (in.shape ? "shape " + printShape(*in.shape) : printStructInfo(in)) +
                                  (inCount && outCount ? "" : " (only from constant sizes)")};
      return std::nullopt;
    }
    shape[*inferred] = intImm(*inCount / *outCount, DataType::int64());
  } else if (inCount && outCount && *inCount != *outCount) {
    diagnostic = {shapeLoc, "R.reshape keeps the number of elements: the operand " + printShape(*in.shape) + " has " +
                                std::to_string(*inCount) + ", the shape " + printShape(shape) + " " +
                                std::to_string(*outCount)};
    return std::nullopt;
  }
  return TensorStructInfo::known(std::move(shape), in.dtype);
}

// TVM's statistical inference (also argmax's and argmin's shape): the reduced dimensions (all
// when no axes are given) dropped, or kept as 1.
std::optional<TensorStructInfo> inferStatistical(const Call &call, const TensorStructInfo &in, SourceLoc axesLoc,
                                                 RelaxDiagnostic &diagnostic) {
  int rank = in.rank();
  if (rank < 0) return TensorStructInfo{std::nullopt, -1, in.dtype, {}};
  std::optional<std::vector<bool>> reduced = reducedDimensions(call.axes, rank);
  if (!reduced) {
    // argmax/argmin take one axis.
    bool single = lookupOperator(call.callee)->family == OperatorFamily::ArgReduce;
    diagnostic = {axesLoc, "R." + call.callee + (single ? " needs an axis" : " needs distinct axes") + " within the " +
                               std::to_string(rank) + " dimensions of its operand, got axis " +
                               (single ? std::to_string(call.axes->front()) : printAxes(*call.axes))};
    return std::nullopt;
  }
  int kept = int(std::count(reduced->begin(), reduced->end(), false));
  if (!in.shape) return TensorStructInfo{std::nullopt, call.keepdims ? rank : kept, in.dtype, {}};
  std::vector<Expr> shape;
  for (int d = 0; d < rank; ++d) {
    if (!(*reduced)[size_t(d)]) shape.push_back((*in.shape)[size_t(d)]);
    else if (call.keepdims) shape.push_back(intImm(1, DataType::int64()));
  }
  return TensorStructInfo::known(std::move(shape), in.dtype);
}

// TVM's concat inference: one element type and rank, equal sizes but along the axis, where the
// sizes add up.
std::optional<TensorStructInfo> inferConcat(const Call &call, const std::vector<TensorStructInfo> &in,
                                            SourceLoc callLoc, SourceLoc axesLoc, RelaxDiagnostic &diagnostic) {
  if (in.empty()) {
    diagnostic = {callLoc, "R.concat needs at least one tensor"};
    return std::nullopt;
  }
  if (!call.axes) {
    diagnostic = {axesLoc, "R.concat with axis=None (flattened tensors) is not supported yet"};
    return std::nullopt;
  }
  TensorStructInfo result{std::nullopt, -1, in[0].dtype, {}};
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].dtype.isVoid()) result.dtype = DataType::voidTy();
    if (!in[i].dtype.isVoid() && !in[0].dtype.isVoid() && in[i].dtype != in[0].dtype) {
      diagnostic = {call.args[i].loc, "R.concat needs tensors of one element type, got " + in[0].dtype.str() +
                                          " and " + in[i].dtype.str()};
      return std::nullopt;
    }
    if (in[i].rank() >= 0 && result.ndim >= 0 && in[i].rank() != result.ndim) {
      diagnostic = {call.args[i].loc, "R.concat needs tensors of one rank, got " + std::to_string(result.ndim) +
                                          " and " + std::to_string(in[i].rank())};
      return std::nullopt;
    }
    if (in[i].rank() >= 0) result.ndim = in[i].rank();
  }
  if (result.ndim < 0) return result;
  int64_t axis = (*call.axes)[0];
  if (axis < -result.ndim || axis >= result.ndim) {
    diagnostic = {axesLoc, "R.concat needs an axis within the " + std::to_string(result.ndim) +
                               " dimensions of its tensors, got " + std::to_string(axis)};
    return std::nullopt;
  }
  if (axis < 0) axis += result.ndim;
  for (const TensorStructInfo &tensor : in)
    if (!tensor.shape) return result;
  std::vector<Expr> shape = *in[0].shape;
  // The sizes along the axis added up as TVM's simplifier leaves the sum: the symbolic ones in
  // order, then the constants' total (`b0 + b1 + 5`).
  Expr symbolic;
  int64_t constant = 0;
  for (const TensorStructInfo &tensor : in) {
    const Expr &dim = (*tensor.shape)[size_t(axis)];
    if (const auto *imm = dim.as<IntImm>()) constant += imm->value;
    else symbolic = symbolic ? binary(NodeKind::Add, symbolic, dim) : dim;
  }
  Expr constantSize = intImm(constant, DataType::int64());
  shape[size_t(axis)] = !symbolic ? constantSize : constant ? binary(NodeKind::Add, symbolic, constantSize) : symbolic;
  for (size_t i = 1; i < in.size(); ++i)
    for (size_t d = 0; d < shape.size(); ++d) {
      const Expr &dim = (*in[i].shape)[d];
      if (d != size_t(axis) && dimsConflict(shape[d], dim)) {
        diagnostic = {call.args[i].loc, "R.concat needs tensors of equal sizes but along axis " + std::to_string(axis) +
                                            ", got " + printShape(*in[0].shape) + " and " + printShape(*in[i].shape)};
        return std::nullopt;
      }
    }
  return TensorStructInfo::known(std::move(shape), result.dtype);
}

// TVM's creation inference (create.cc): the written shape (zeros, ones, full), x's struct
// info (the *_like operators), with the dtype given or else the fill value's (full) or x's (the
// *_like ones); a fill value is a scalar tensor.
std::optional<TensorStructInfo> inferFull(const Call &call, SourceLoc dtypeLoc, RelaxDiagnostic &diagnostic) {
  bool like = lookupOperator(call.callee)->family == OperatorFamily::FullLike;
  TensorStructInfo result;
  if (like) {
    StructInfo x = call.args[0].sinfo();
    if (!x.isTensor()) {
      diagnostic = {call.args[0].loc, "R." + call.callee + " takes a tensor as 'x', got " + printStructInfo(x)};
      return std::nullopt;
    }
    result = x.tensor;
  } else {
    const std::vector<Expr> &shape = *call.args[0].shape;
    for (const Expr &dim : shape)
      if (const auto *imm = dim.as<IntImm>(); imm && imm->value < 0) {
        diagnostic = {call.args[0].loc, "R." + call.callee + " needs sizes of 0 or more, got " + printShape(shape)};
        return std::nullopt;
      }
    result = TensorStructInfo::known(shape, call.outDtype);
  }
  if (call.args.size() == 2) {
    StructInfo fill = call.args[1].sinfo();
    if (!fill.isTensor() || fill.tensor.rank() != 0) {
      diagnostic = {call.args[1].loc, "R." + call.callee + " needs a scalar tensor (rank 0) as 'fill_value', got " +
                                          printStructInfo(fill)};
      return std::nullopt;
    }
    if (!like && call.outDtype.isVoid()) result.dtype = fill.tensor.dtype;
  }
  if (!call.outDtype.isVoid()) result.dtype = call.outDtype;
  if (result.dtype.isVoid() && !like) {
    diagnostic = {dtypeLoc, "R." + call.callee + " needs the element type of its result"};
    return std::nullopt;
  }
  return result;
}

// TVM's arange inference: floordiv(end - start + step - 1, step) elements, simplified. vtac
// takes integer bounds only; the count of constant ones is numpy's (none when the range is
// empty, also for a negative step), a symbolic one needs a constant positive step.
std::optional<TensorStructInfo> inferArange(const Call &call, RelaxDiagnostic &diagnostic) {
  static const char *names[] = {"start", "end", "step"};
  for (size_t i = 0; i < 3; ++i)
    if (!call.args[i].prim || !call.args[i].prim->dtype.isInt()) {
      diagnostic = {call.args[i].loc, std::string("R.arange needs an integer as '") + names[i] + "', got " +
                                          printStructInfo(call.args[i].sinfo())};
      return std::nullopt;
    }
  const Expr &start = call.args[0].prim, &end = call.args[1].prim, &step = call.args[2].prim;
  const auto *constantStep = step.as<IntImm>();
  if (!constantStep || constantStep->value == 0 || (constantStep->value < 0 && !(start.isa<IntImm>() && end.isa<IntImm>()))) {
    diagnostic = {call.args[2].loc, "R.arange needs a step other than 0, constant (and positive unless start and end "
                                    "are constant)"};
    return std::nullopt;
  }
  Expr count;
  if (start.isa<IntImm>() && end.isa<IntImm>()) {
    int64_t from = start.as<IntImm>()->value, to = end.as<IntImm>()->value, by = constantStep->value;
    // numpy: ceil((end - start) / step), 0 when negative (in 128 bits: no overflow).
    __int128 span = __int128(to) - from, steps = span / by + (span % by != 0 && (span < 0) == (by < 0));
    count = intImm(int64_t(std::max<__int128>(steps, 0)), DataType::int64());
  } else {
    Expr one = intImm(1, DataType::int64());
    Expr numerator = simplify(binary(NodeKind::Sub, binary(NodeKind::Add, binary(NodeKind::Sub, end, start), step), one));
    count = arith::Analyzer().simplify(binary(NodeKind::FloorDiv, numerator, step));
    // numerator = step * q + r with a constant 0 <= r < step: the count is q, as TVM's
    // canonical simplifier finds (`(n * 2 + 1) // 2` is n).
    for (int64_t r = 0; r < std::min<int64_t>(constantStep->value, 64); ++r)
      if (std::optional<Expr> q = divideExactly(simplify(binary(NodeKind::Sub, numerator, intImm(r, DataType::int64()))),
                                                constantStep->value)) {
        count = simplify(*q);
        break;
      }
  }
  return TensorStructInfo::known({count}, call.outDtype);
}

// TVM's expand_dims inference: a dimension of size 1 at each axis of the result (of the
// operand's rank plus the number of axes), the operand's dimensions in order elsewhere.
std::optional<TensorStructInfo> inferExpandDims(const Call &call, const TensorStructInfo &in, SourceLoc axesLoc,
                                                RelaxDiagnostic &diagnostic) {
  if (call.axes->empty()) return in;
  if (in.rank() < 0) return TensorStructInfo{std::nullopt, -1, in.dtype, {}};
  int rank = in.rank() + int(call.axes->size());
  std::optional<std::vector<bool>> added = reducedDimensions(call.axes, rank);
  if (!added) {
    diagnostic = {axesLoc, "R.expand_dims needs distinct axes within the " + std::to_string(rank) +
                               " dimensions of its result, got axis " + printAxes(*call.axes)};
    return std::nullopt;
  }
  if (!in.shape) return TensorStructInfo{std::nullopt, rank, in.dtype, {}};
  std::vector<Expr> shape;
  size_t next = 0;
  for (bool isNew : *added) shape.push_back(isNew ? intImm(1, DataType::int64()) : (*in.shape)[next++]);
  return TensorStructInfo::known(std::move(shape), in.dtype);
}

// TVM's squeeze inference: the dimensions at the axes dropped (a constant size there must be
// 1), or with axis=None every dimension of constant size 1 (the rank is unknown when a size is
// symbolic).
std::optional<TensorStructInfo> inferSqueeze(const Call &call, const TensorStructInfo &in, SourceLoc axesLoc,
                                             RelaxDiagnostic &diagnostic) {
  if (call.axes && call.axes->empty()) return in;
  int rank = in.rank();
  if (rank < 0) return TensorStructInfo{std::nullopt, -1, in.dtype, {}};
  std::vector<bool> removed(size_t(rank), false);
  if (call.axes) {
    std::optional<std::vector<bool>> given = reducedDimensions(call.axes, rank);
    if (!given) {
      diagnostic = {axesLoc, "R.squeeze needs distinct axes within the " + std::to_string(rank) +
                                 " dimensions of its operand, got axis " + printAxes(*call.axes)};
      return std::nullopt;
    }
    removed = *given;
    if (!in.shape) return TensorStructInfo{std::nullopt, rank - int(call.axes->size()), in.dtype, {}};
    for (int d = 0; d < rank; ++d)
      if (const auto *size = (*in.shape)[size_t(d)].as<IntImm>(); removed[size_t(d)] && size && size->value != 1) {
        diagnostic = {axesLoc, "R.squeeze needs size 1 at the axes it removes; dimension " + std::to_string(d) + " of " +
                                   printShape(*in.shape) + " is " + std::to_string(size->value)};
        return std::nullopt;
      }
  } else {
    if (!in.shape) return TensorStructInfo{std::nullopt, -1, in.dtype, {}};
    for (int d = 0; d < rank; ++d) {
      if (!(*in.shape)[size_t(d)].isa<IntImm>()) return TensorStructInfo{std::nullopt, -1, in.dtype, {}};
      removed[size_t(d)] = isConstantSize((*in.shape)[size_t(d)], 1);
    }
  }
  std::vector<Expr> shape;
  for (int d = 0; d < rank; ++d)
    if (!removed[size_t(d)]) shape.push_back((*in.shape)[size_t(d)]);
  return TensorStructInfo::known(std::move(shape), in.dtype);
}

// TVM's flatten inference: one dimension, the product of the sizes (1 for a scalar).
TensorStructInfo inferFlatten(const TensorStructInfo &in) {
  if (in.rank() == 1) return in;
  if (!in.shape) return TensorStructInfo{std::nullopt, 1, in.dtype, {}};
  Expr product;
  if (std::optional<int64_t> count = constantElementCount(*in.shape)) product = intImm(*count, DataType::int64());
  else
    for (const Expr &size : *in.shape) product = product ? binary(NodeKind::Mul, product, size) : size;
  return TensorStructInfo::known({product}, in.dtype);
}

// TVM's where inference (search.cc): a bool condition, x1 and x2 of one element type, the
// three shapes broadcast (x1's with x2's, then the condition's with that).
std::optional<TensorStructInfo> inferWhere(const Call &call, const std::vector<TensorStructInfo> &in, SourceLoc callLoc,
                                           RelaxDiagnostic &diagnostic) {
  if (!in[0].dtype.isVoid() && !in[0].dtype.isBool()) {
    diagnostic = {call.args[0].loc, "R.where needs a bool condition, got " + in[0].dtype.str()};
    return std::nullopt;
  }
  std::optional<DataType> dtype = commonDtype(call, in[1], in[2], callLoc, diagnostic);
  if (!dtype) return std::nullopt;
  TensorStructInfo result{std::nullopt, -1, *dtype, {}};
  if (in[0].rank() >= 0 && in[1].rank() >= 0 && in[2].rank() >= 0)
    result.ndim = std::max({in[0].rank(), in[1].rank(), in[2].rank()});
  if (!in[0].shape || !in[1].shape || !in[2].shape) return result;
  std::string conflict;
  std::optional<std::vector<Expr>> values = broadcastShapes(*in[1].shape, *in[2].shape, conflict);
  std::optional<std::vector<Expr>> shape = values ? broadcastShapes(*in[0].shape, *values, conflict) : std::nullopt;
  if (!conflict.empty()) {
    diagnostic = {callLoc, "R.where cannot broadcast shapes " + printShape(*in[0].shape) + ", " +
                               printShape(*in[1].shape) + " and " + printShape(*in[2].shape) + ": " + conflict};
    return std::nullopt;
  }
  if (!shape) return result;
  return TensorStructInfo::known(std::move(*shape), *dtype);
}

// TVM's take inference (index.cc): integer indices (a scalar R.Prim is a rank-0 tensor) whose
// dimensions replace the axis (axis=None: a 1-D tensor's only one).
std::optional<TensorStructInfo> inferTake(const Call &call, const TensorStructInfo &x, const TensorStructInfo &indices,
                                          SourceLoc axisLoc, RelaxDiagnostic &diagnostic) {
  if (!indices.dtype.isVoid() && !indices.dtype.isIntOrUInt()) {
    diagnostic = {call.args[1].loc, "R.take needs integer indices, got " + indices.dtype.str()};
    return std::nullopt;
  }
  if (!call.axes && x.rank() != 1) {
    diagnostic = {axisLoc, "R.take without an axis needs a 1-D tensor, got " + printStructInfo(x)};
    return std::nullopt;
  }
  if (x.rank() < 0 || indices.rank() < 0) return TensorStructInfo{std::nullopt, -1, x.dtype, {}};
  int64_t axis = call.axes ? call.axes->front() : 0;
  if (axis < -x.rank() || axis >= x.rank()) {
    diagnostic = {axisLoc, "R.take needs an axis within the " + std::to_string(x.rank()) +
                               " dimensions of its tensor, got " + std::to_string(axis)};
    return std::nullopt;
  }
  if (axis < 0) axis += x.rank();
  if (!x.shape || !indices.shape) return TensorStructInfo{std::nullopt, x.rank() + indices.rank() - 1, x.dtype, {}};
  std::vector<Expr> shape;
  for (int d = 0; d < x.rank(); ++d) {
    if (d != axis) shape.push_back((*x.shape)[size_t(d)]);
    else shape.insert(shape.end(), indices.shape->begin(), indices.shape->end());
  }
  return TensorStructInfo::known(std::move(shape), x.dtype);
}

// TVM's strided_slice inference (index.cc, topi::GetLength) for constant bounds: along each
// axis the elements Python's slice `begin:end:stride` selects (negative bounds count from the
// end, then clamp to the dimension). The sliced dimensions must be of constant size.
std::optional<TensorStructInfo> inferStridedSlice(const Call &call, const TensorStructInfo &in, SourceLoc callLoc,
                                                  RelaxDiagnostic &diagnostic) {
  const auto &attrs = std::get<StridedSliceAttrs>(call.attrs);
  int rank = in.rank();
  if (rank < 0) return TensorStructInfo{std::nullopt, -1, in.dtype, {}};
  std::vector<int64_t> axes;
  for (int64_t axis : *call.axes) {
    if (axis < -rank || axis >= rank || std::count(axes.begin(), axes.end(), axis < 0 ? axis + rank : axis)) {
      diagnostic = {callLoc, "R.strided_slice needs distinct axes within the " + std::to_string(rank) +
                                 " dimensions of its operand, got axes " + printAxes(*call.axes)};
      return std::nullopt;
    }
    axes.push_back(axis < 0 ? axis + rank : axis);
  }
  if (!in.shape) return TensorStructInfo{std::nullopt, rank, in.dtype, {}};
  std::vector<Expr> shape = *in.shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    std::optional<StridedSliceBounds> bounds = stridedSliceBounds(attrs, i, shape[size_t(axes[i])]);
    if (!bounds) {
      diagnostic = {callLoc, "R.strided_slice of dimension " + std::to_string(axes[i]) + " of " +
                                 printShape(*in.shape) + ": only dimensions of constant size can be sliced yet"};
      return std::nullopt;
    }
    shape[size_t(axes[i])] = intImm(bounds->length, DataType::int64());
  }
  return TensorStructInfo::known(std::move(shape), in.dtype);
}

// ---- Elementwise math, softmax, broadcast_to ----------------------------------------------

// TVM's InferStructInfoUnaryArith<require_float_dtype=true> (exp, sigmoid, nn.gelu) and the
// softmax inference: the operand's struct info, for a float tensor (or one of unknown type).
bool requireFloat(const Call &call, const TensorStructInfo &in, SourceLoc callLoc, RelaxDiagnostic &diagnostic) {
  if (in.dtype.isVoid() || in.dtype.isFloat()) return true;
  diagnostic = {callLoc, "R." + call.callee + " needs a float tensor, got " + in.dtype.str()};
  return false;
}

// TVM's softmax inference (nn.cc): a float tensor, an axis within its dimensions.
std::optional<TensorStructInfo> inferSoftmax(const Call &call, const TensorStructInfo &in, SourceLoc callLoc,
                                             SourceLoc axisLoc, RelaxDiagnostic &diagnostic) {
  if (!requireFloat(call, in, callLoc, diagnostic)) return std::nullopt;
  int64_t axis = call.axes->front();
  if (in.rank() >= 0 && (axis < -in.rank() || axis >= in.rank())) {
    diagnostic = {axisLoc, "R." + call.callee + " needs an axis within the " + std::to_string(in.rank()) +
                               " dimensions of its operand, got " + std::to_string(axis)};
    return std::nullopt;
  }
  return in;
}

// TVM's broadcast_to inference (manipulate.cc): the written shape (`call.outSinfo.shape`), of
// no smaller rank than the operand, each operand size 1 or the target's (aligned at the last
// dimension); only two different constants conflict.
std::optional<TensorStructInfo> inferBroadcastTo(const Call &call, const TensorStructInfo &in, SourceLoc shapeLoc,
                                                 RelaxDiagnostic &diagnostic) {
  const std::vector<Expr> &target = *call.outSinfo.shape;
  if (in.rank() > int(target.size())) {
    diagnostic = {shapeLoc, "R.broadcast_to needs a shape of rank " + std::to_string(in.rank()) + " or more, got " +
                                printShape(target)};
    return std::nullopt;
  }
  for (size_t i = 0; in.shape && i < in.shape->size(); ++i) {
    const Expr &mine = (*in.shape)[in.shape->size() - 1 - i], &theirs = target[target.size() - 1 - i];
    if (isConstantSize(mine, 1) || sizesProvablyEqual(mine, theirs) || !mine.isa<IntImm>() || !theirs.isa<IntImm>())
      continue;
    diagnostic = {shapeLoc, "R.broadcast_to cannot broadcast " + printShape(*in.shape) + " to " + printShape(target) +
                                ": " + printDim(mine) + " and " + printDim(theirs) + " at dimension " +
                                std::to_string(target.size() - 1 - i) + " of the result"};
    return std::nullopt;
  }
  return TensorStructInfo::known(target, in.dtype);
}

// TVM's layer_norm inference (nn.cc, NormCheckDtypeAndShape): float data, gamma and beta of
// its element type with one dimension per normalized axis, each the data's size along it
// (only two different constants conflict); the result is the data's.
std::optional<TensorStructInfo> inferLayerNorm(const Call &call, const std::vector<TensorStructInfo> &in,
                                               SourceLoc callLoc, SourceLoc axesLoc, RelaxDiagnostic &diagnostic) {
  const TensorStructInfo &data = in[0];
  if (!requireFloat(call, data, callLoc, diagnostic)) return std::nullopt;
  std::vector<int64_t> axes;
  if (data.rank() >= 0) {
    std::optional<std::vector<bool>> normalized = reducedDimensions(call.axes, data.rank());
    if (!normalized) {
      diagnostic = {axesLoc, "R.nn.layer_norm needs distinct axes within the " + std::to_string(data.rank()) +
                                 " dimensions of its data, got axes " + printAxes(*call.axes)};
      return std::nullopt;
    }
    for (int64_t axis : *call.axes) axes.push_back(axis < 0 ? axis + data.rank() : axis);
  }
  for (size_t i = 1; i < 3; ++i) {
    const TensorStructInfo &param = in[i];
    const std::string name = i == 1 ? "gamma" : "beta";
    if (!param.dtype.isVoid() && !data.dtype.isVoid() && param.dtype != data.dtype) {
      diagnostic = {call.args[i].loc, "R.nn.layer_norm needs " + name + " of the data's element type " +
                                          data.dtype.str() + ", got " + param.dtype.str()};
      return std::nullopt;
    }
    if (param.rank() >= 0 && param.rank() != int(call.axes->size())) {
      diagnostic = {call.args[i].loc, "R.nn.layer_norm needs " + name + " of one dimension per normalized axis (" +
                                          std::to_string(call.axes->size()) + "), got rank " +
                                          std::to_string(param.rank())};
      return std::nullopt;
    }
    for (size_t k = 0; param.shape && data.shape && k < axes.size(); ++k) {
      const Expr &mine = (*param.shape)[k], &theirs = (*data.shape)[size_t(axes[k])];
      if (!mine.isa<IntImm>() || !theirs.isa<IntImm>() || sizesProvablyEqual(mine, theirs)) continue;
      diagnostic = {call.args[i].loc, "R.nn.layer_norm needs " + name + " of the data's sizes along the axes, got " +
                                          printShape(*param.shape) + " for data " + printShape(*data.shape)};
      return std::nullopt;
    }
  }
  return data;
}

// TVM's split inference (manipulate.cc, InferStructInfoSplit): n sections of ceil(size / n)
// elements, the last one what remains; or the pieces between the indices, each index clamped
// to [0, size] and a piece never negative (indices beyond the size or not increasing give
// empty pieces). One section, or no index, is the tensor itself. Symbolic sizes are simplified.
std::optional<StructInfo> inferSplit(const Call &call, const TensorStructInfo &in, SourceLoc axesLoc,
                                     RelaxDiagnostic &diagnostic) {
  const auto &indicesOrSections = std::get<SplitAttrs>(call.attrs).indicesOrSections;
  const auto *indices = std::get_if<std::vector<int64_t>>(&indicesOrSections);
  size_t pieces = indices ? indices->size() + 1 : size_t(std::get<int64_t>(indicesOrSections));
  int rank = in.rank();
  int64_t axis = call.axes->front();
  if (rank >= 0 && (axis < -rank || axis >= rank)) {
    diagnostic = {axesLoc, "R.split needs an axis within the " + std::to_string(rank) +
                               " dimensions of its operand, got " + std::to_string(axis)};
    return std::nullopt;
  }
  if (pieces == 1) return StructInfo(in);
  StructInfo tuple = StructInfo::of(StructInfo::Kind::Tuple);
  if (!in.shape) {
    tuple.fields.assign(pieces, StructInfo(TensorStructInfo{std::nullopt, rank, in.dtype, {}}));
    return tuple;
  }
  if (axis < 0) axis += rank;
  const Expr &size = (*in.shape)[size_t(axis)];
  auto constant = [](int64_t value) { return intImm(value, DataType::int64()); };
  auto simplified = [](const Expr &e) { return arith::Analyzer().simplify(e); };
  std::vector<Expr> lengths;
  if (indices) {
    auto clamp = [&](const Expr &bound) {
      return binary(NodeKind::Min, binary(NodeKind::Max, bound, constant(0)), size);
    };
    for (size_t i = 0; i < pieces; ++i) {
      Expr left = clamp(i == 0 ? constant(0) : constant((*indices)[i - 1]));
      Expr right = clamp(i < indices->size() ? constant((*indices)[i]) : size);
      lengths.push_back(simplified(binary(NodeKind::Max, binary(NodeKind::Sub, right, left), constant(0))));
    }
  } else {
    Expr sections = constant(int64_t(pieces));
    Expr length = simplified(binary(NodeKind::FloorDiv, binary(NodeKind::Add, size, constant(int64_t(pieces) - 1)), sections));
    lengths.assign(pieces - 1, length);
    lengths.push_back(simplified(binary(NodeKind::Sub, size, binary(NodeKind::Mul, length, constant(int64_t(pieces) - 1)))));
  }
  for (const Expr &length : lengths) {
    std::vector<Expr> shape = *in.shape;
    shape[size_t(axis)] = length;
    tuple.fields.push_back(StructInfo(TensorStructInfo::known(std::move(shape), in.dtype)));
  }
  return tuple;
}

// TVM's batch_norm inference (nn.cc, NormCheckDtypeAndShape with one axis): float data; gamma,
// beta, moving_mean and moving_var of its element type, each of rank 1 and of the data's size
// along the axis. The result is (data, moving_mean, moving_var); when a size cannot be proven
// equal to the others, of known ranks only. Only two different constants conflict.
std::optional<StructInfo> inferBatchNorm(const Call &call, const std::vector<TensorStructInfo> &in, SourceLoc callLoc,
                                         SourceLoc axisLoc, RelaxDiagnostic &diagnostic) {
  static const char *names[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  const TensorStructInfo &data = in[0];
  if (!requireFloat(call, data, callLoc, diagnostic)) return std::nullopt;
  int64_t axis = call.axes->front();
  if (data.rank() >= 0 && (axis < -data.rank() || axis >= data.rank())) {
    diagnostic = {axisLoc, "R.nn.batch_norm needs an axis within the " + std::to_string(data.rank()) +
                               " dimensions of its data, got " + std::to_string(axis)};
    return std::nullopt;
  }
  // The sizes along the axis: the data's first (when known), then each parameter's.
  std::vector<std::pair<Expr, size_t>> lengths;
  if (data.shape) lengths.emplace_back((*data.shape)[size_t(axis < 0 ? axis + data.rank() : axis)], 0);
  for (size_t i = 1; i < 5; ++i) {
    const TensorStructInfo &param = in[i];
    if (!param.dtype.isVoid() && !data.dtype.isVoid() && param.dtype != data.dtype) {
      diagnostic = {call.args[i].loc, std::string("R.nn.batch_norm needs ") + names[i] + " of the data's element type " +
                                          data.dtype.str() + ", got " + param.dtype.str()};
      return std::nullopt;
    }
    if (param.rank() >= 0 && param.rank() != 1) {
      diagnostic = {call.args[i].loc, std::string("R.nn.batch_norm needs ") + names[i] +
                                          " of rank 1 (the data's size along the axis), got rank " +
                                          std::to_string(param.rank())};
      return std::nullopt;
    }
    if (param.shape) lengths.emplace_back(param.shape->front(), i);
  }
  bool known = true;
  for (size_t i = 1; i < lengths.size(); ++i) {
    const Expr &first = lengths[0].first, &mine = lengths[i].first;
    if (sizesProvablyEqual(first, mine)) continue;
    if (first.isa<IntImm>() && mine.isa<IntImm>()) {
      diagnostic = {call.args[lengths[i].second].loc,
                    std::string("R.nn.batch_norm needs ") + names[lengths[i].second] + " of size " + printDim(first) +
                        " (the " + names[lengths[0].second] + "'s" + (lengths[0].second ? "" : " along the axis") +
                        "), got " + printDim(mine)};
      return std::nullopt;
    }
    known = false;
  }
  StructInfo tuple = StructInfo::of(StructInfo::Kind::Tuple);
  if (known) {
    for (size_t i : {0, 3, 4}) tuple.fields.push_back(StructInfo(in[i]));
    return tuple;
  }
  for (int rank : {data.rank(), 1, 1}) tuple.fields.push_back(StructInfo(TensorStructInfo{std::nullopt, rank, data.dtype, {}}));
  return tuple;
}

// TVM's tile inference (manipulate.cc): repeats aligned with the operand's dimensions at the
// last one; a dimension of either that the other lacks is taken as is, the others multiply.
std::optional<TensorStructInfo> inferTile(const Call &call, const TensorStructInfo &in) {
  const std::vector<int64_t> &repeats = std::get<TileAttrs>(call.attrs).repeats;
  int given = int(repeats.size()), rank = in.rank();
  if (rank < 0) return TensorStructInfo{std::nullopt, -1, in.dtype, {}};
  if (!in.shape) {
    if (given > rank) return TensorStructInfo{std::nullopt, given, in.dtype, {}};
    if (std::all_of(repeats.begin(), repeats.end(), [](int64_t r) { return r == 1; })) return in;
    return TensorStructInfo{std::nullopt, rank, in.dtype, {}};
  }
  int outRank = std::max(given, rank);
  std::vector<Expr> shape;
  for (int i = 0; i < outRank; ++i) {
    int d = i - (outRank - rank), r = i - (outRank - given);
    Expr repeat = intImm(r >= 0 ? repeats[size_t(r)] : 1, DataType::int64());
    if (d < 0) shape.push_back(repeat);
    else if (r < 0) shape.push_back((*in.shape)[size_t(d)]);
    else shape.push_back(arith::Analyzer().simplify(binary(NodeKind::Mul, (*in.shape)[size_t(d)], repeat)));
  }
  return TensorStructInfo::known(std::move(shape), in.dtype);
}

}  // namespace

std::optional<StridedSliceBounds> stridedSliceBounds(const StridedSliceAttrs &attrs, size_t i, const Expr &extent) {
  const auto *size = extent.as<IntImm>();
  if (!size) return std::nullopt;
  int64_t stride = attrs.strides[i];
  // topi's CanonicalizeIndex, in 128 bits (a bound may be near the int64 limits).
  auto canonical = [&](int64_t index) {
    __int128 value = index < 0 ? __int128(index) + size->value : __int128(index);
    __int128 low = stride < 0 ? -1 : 0, high = stride < 0 ? size->value - 1 : size->value;
    return int64_t(std::min(std::max(value, low), high));
  };
  int64_t begin = canonical(attrs.begin[i]), end = canonical(attrs.end[i]);
  __int128 span = stride < 0 ? __int128(begin) - end : __int128(end) - begin, step = stride < 0 ? -__int128(stride) : stride;
  return StridedSliceBounds{begin, int64_t(span <= 0 ? 0 : (span + step - 1) / step)};
}

std::optional<std::vector<bool>> reducedDimensions(const std::optional<std::vector<int64_t>> &axes, int rank) {
  std::vector<bool> reduced(size_t(rank), !axes);
  for (int64_t axis : axes ? *axes : std::vector<int64_t>{}) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
    if (reduced[size_t(axis)]) return std::nullopt;
    reduced[size_t(axis)] = true;
  }
  return reduced;
}

bool isConstantSize(const Expr &dim, int64_t value) {
  const auto *imm = dim.as<IntImm>();
  return imm && imm->value == value;
}

bool sizesProvablyEqual(const Expr &a, const Expr &b) {
  const auto *ia = a.as<IntImm>(), *ib = b.as<IntImm>();
  if (ia || ib) return ia && ib && ia->value == ib->value;
  return a == b || printDim(a) == printDim(b);
}

const OperatorInfo *lookupOperator(llvm::StringRef name) {
  for (const OperatorInfo &info : operators())
    if (info.name == name) return &info;
  return nullptr;
}

std::vector<llvm::StringRef> knownOperators() {
  std::vector<llvm::StringRef> names;
  for (const OperatorInfo &info : operators()) names.push_back(info.name);
  return names;
}

std::string unknownOperatorHint(llvm::StringRef name) {
  // A typo is at most a third of the name away (nn.conv2D, maxpool2d), as LLVM's option
  // suggestions judge.
  llvm::StringRef closest;
  unsigned best = unsigned(name.size() / 3) + 1;
  for (const OperatorInfo &info : operators()) {
    unsigned distance = name.edit_distance(info.name, /*AllowReplacements=*/true, best);
    if (distance < best) {
      best = distance;
      closest = info.name;
    }
  }
  std::string hint = closest.empty() ? "" : "; did you mean R." + closest.str() + "?";
  return hint + " (`vtac opt --list-operators` lists the " + std::to_string(operators().size()) + " that vtac reads)";
}

std::optional<std::vector<Expr>> broadcastShapes(llvm::ArrayRef<Expr> a, llvm::ArrayRef<Expr> b,
                                                 std::string &conflict) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<Expr> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Aligned at the last dimension: a missing leading dimension is 1.
    const Expr *da = i + a.size() >= rank ? &a[i + a.size() - rank] : nullptr;
    const Expr *db = i + b.size() >= rank ? &b[i + b.size() - rank] : nullptr;
    if (!da || isConstantSize(*da, 1)) result[i] = db ? *db : *da;
    else if (!db || isConstantSize(*db, 1)) result[i] = *da;
    else if (sizesProvablyEqual(*da, *db)) result[i] = *da;
    else {
      // Only two constants conflict; other sizes may agree when the graph runs.
      if (da->isa<IntImm>() && db->isa<IntImm>())
        conflict = printDim(*da) + " and " + printDim(*db) + " at dimension " + std::to_string(i) + " of the result";
      return std::nullopt;
    }
  }
  return result;
}

std::optional<std::vector<int64_t>> normalizedAxes(const std::optional<std::vector<int64_t>> &axes, int rank) {
  std::vector<int64_t> result;
  if (!axes) {
    for (int i = rank - 1; i >= 0; --i) result.push_back(i);
    return result;
  }
  if (axes->size() != size_t(rank)) return std::nullopt;
  std::vector<bool> seen(size_t(rank), false);
  for (int64_t axis : *axes) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
    if (seen[size_t(axis)]) return std::nullopt;
    seen[size_t(axis)] = true;
    result.push_back(axis);
  }
  return result;
}

std::optional<StructInfo> inferOperatorStructInfo(const Call &call, SourceLoc callLoc, SourceLoc axesLoc,
                                                  RelaxDiagnostic &diagnostic) {
  const OperatorInfo *info = lookupOperator(call.callee);
  // The creation operators take shapes and scalars besides tensors.
  if (info && (info->family == OperatorFamily::Full || info->family == OperatorFamily::FullLike ||
               info->family == OperatorFamily::Arange)) {
    std::optional<TensorStructInfo> result =
        info->family == OperatorFamily::Arange ? inferArange(call, diagnostic) : inferFull(call, axesLoc, diagnostic);
    if (result) result->loc = callLoc;
    return result;
  }
  assert(info && (info->family == OperatorFamily::Concat || call.args.size() == info->tensorParams.size()) &&
         "the reader gives each tensor parameter one argument");
  std::vector<TensorStructInfo> in;
  for (size_t i = 0; i < call.args.size(); ++i) {
    StructInfo sinfo = call.args[i].sinfo();
    // take's index may be a scalar (R.prim_value(0), an R.Prim variable): a rank-0 tensor.
    if (info->family == OperatorFamily::Take && i == 1 && sinfo.kind == StructInfo::Kind::Prim) {
      in.push_back(TensorStructInfo::known({}, sinfo.dtype));
      continue;
    }
    if (!sinfo.isTensor()) {
      // concat's one parameter is the tuple of its tensors.
      std::string param = info->tensorParams[std::min(i, info->tensorParams.size() - 1)].str();
      diagnostic = {call.args[i].loc, "R." + call.callee + " takes a tensor as '" + param +
                                          (info->family == OperatorFamily::Concat ? "' fields" : "'") + ", got " +
                                          printStructInfo(sinfo)};
      return std::nullopt;
    }
    in.push_back(sinfo.tensor);
  }
  if (info->family == OperatorFamily::Split || info->family == OperatorFamily::BatchNorm) {
    std::optional<StructInfo> result = info->family == OperatorFamily::Split
                                           ? inferSplit(call, in[0], axesLoc, diagnostic)
                                           : inferBatchNorm(call, in, callLoc, axesLoc, diagnostic);
    if (result) result->loc = callLoc;
    for (StructInfo &field : result ? result->fields : std::vector<StructInfo>{}) field.loc = field.tensor.loc = callLoc;
    return result;
  }
  std::optional<TensorStructInfo> result;
  switch (info->family) {
  case OperatorFamily::ElementwiseBinary: result = inferBinary(call, in, callLoc, diagnostic); break;
  case OperatorFamily::BitwiseBinary: result = inferBitwise(call, in, callLoc, diagnostic); break;
  case OperatorFamily::Comparison:
    result = inferBinary(call, in, callLoc, diagnostic);
    if (result) result->dtype = DataType::boolTy();
    break;
  case OperatorFamily::ElementwiseUnary:
  case OperatorFamily::Clip: result = in[0]; break;
  case OperatorFamily::Matmul: result = inferMatmul(call, in, callLoc, diagnostic); break;
  case OperatorFamily::PermuteDims: result = inferPermuteDims(call, in[0], axesLoc, diagnostic); break;
  case OperatorFamily::Reshape: result = inferReshape(call, in[0], axesLoc, diagnostic); break;
  case OperatorFamily::Astype: result = TensorStructInfo{in[0].shape, in[0].ndim, call.outDtype, {}}; break;
  case OperatorFamily::Statistical: result = inferStatistical(call, in[0], axesLoc, diagnostic); break;
  case OperatorFamily::Concat: result = inferConcat(call, in, callLoc, axesLoc, diagnostic); break;
  case OperatorFamily::Conv2D:
  case OperatorFamily::Pool2D:
  case OperatorFamily::AdaptivePool2D: result = inferWindowOperator(call, in, callLoc, diagnostic); break;
  case OperatorFamily::ExpandDims: result = inferExpandDims(call, in[0], axesLoc, diagnostic); break;
  case OperatorFamily::Squeeze: result = inferSqueeze(call, in[0], axesLoc, diagnostic); break;
  case OperatorFamily::Flatten: result = inferFlatten(in[0]); break;
  case OperatorFamily::Where: result = inferWhere(call, in, callLoc, diagnostic); break;
  case OperatorFamily::Take: result = inferTake(call, in[0], in[1], axesLoc, diagnostic); break;
  case OperatorFamily::StridedSlice: result = inferStridedSlice(call, in[0], callLoc, diagnostic); break;
  case OperatorFamily::Quantize: result = inferQuantize(call, in, axesLoc, diagnostic); break;
  case OperatorFamily::FloatUnary:
    if (requireFloat(call, in[0], callLoc, diagnostic)) result = in[0];
    break;
  case OperatorFamily::Softmax: result = inferSoftmax(call, in[0], callLoc, axesLoc, diagnostic); break;
  case OperatorFamily::BroadcastTo: result = inferBroadcastTo(call, in[0], axesLoc, diagnostic); break;
  case OperatorFamily::LayerNorm: result = inferLayerNorm(call, in, callLoc, axesLoc, diagnostic); break;
  case OperatorFamily::Tile: result = inferTile(call, in[0]); break;
  case OperatorFamily::ArgReduce:
    // The dimensions of R.max's, indices of int64 (statistical.cc).
    result = inferStatistical(call, in[0], axesLoc, diagnostic);
    if (result) result->dtype = DataType::int64();
    break;
  default: break;  // the creation operators, inferred above
  }
  if (!result) return std::nullopt;
  result->loc = callLoc;
  return StructInfo(*result);
}

bool hasOperatorCalls(const IRModule &module) {
  bool found = false;
  for (const IRModule::Entry &entry : module.functions())
    if (const RelaxFunction *func = asRelaxFunction(entry.function))
      forEachBinding(func->blocks, [&](const Binding &binding) {
        found |= binding.call && binding.call->kind == CallKind::Operator;
      });
  return found;
}

// `, dtype="float32"`; a void dtype (the operands') is "void", as TVM prints it.
static std::string dtypeAttribute(const std::string &name, DataType dtype) {
  return ", " + name + "=\"" + (dtype.isVoid() ? std::string("void") : dtype.str()) + "\"";
}

std::string printOperatorAttributes(const Call &call) {
  const OperatorInfo *info = lookupOperator(call.callee);
  if (!info) return "";
  switch (info->family) {
  case OperatorFamily::Matmul: return dtypeAttribute("out_dtype", call.outDtype);
  case OperatorFamily::Reshape:
  case OperatorFamily::BroadcastTo: return ", R.shape(" + printShapeList(*call.outSinfo.shape) + ")";
  case OperatorFamily::Astype: return ", dtype=\"" + call.outDtype.str() + "\"";
  case OperatorFamily::PermuteDims: return ", axes=" + (call.axes ? printAxes(*call.axes) : "None");
  case OperatorFamily::Statistical:
    return ", axis=" + (call.axes ? printAxes(*call.axes) : "None") + ", keepdims=" + (call.keepdims ? "True" : "False");
  case OperatorFamily::ArgReduce:
    return ", axis=" + (call.axes ? std::to_string(call.axes->front()) : "None") +
           ", keepdims=" + (call.keepdims ? "True" : "False");
  case OperatorFamily::LayerNorm: {
    const auto &attrs = std::get<LayerNormAttrs>(call.attrs);
    std::string epsilon;
    appendFloat(epsilon, attrs.epsilon);
    return ", axes=" + printAxes(*call.axes) + ", epsilon=" + epsilon + ", center=" + (attrs.center ? "True" : "False") +
           ", scale=" + (attrs.scale ? "True" : "False");
  }
  case OperatorFamily::BatchNorm: {
    const auto &attrs = std::get<BatchNormAttrs>(call.attrs);
    std::string epsilon, momentum;
    appendFloat(epsilon, attrs.epsilon);
    appendFloat(momentum, attrs.momentum);
    // training: newer TVM's attribute, written only when it is not the older TVM's behaviour.
    return ", axis=" + std::to_string(call.axes->front()) + ", epsilon=" + epsilon +
           ", center=" + (attrs.center ? "True" : "False") + ", scale=" + (attrs.scale ? "True" : "False") +
           ", momentum=" + momentum + (attrs.training ? "" : ", training=False");
  }
  case OperatorFamily::Tile: return ", repeats=" + printAxes(std::get<TileAttrs>(call.attrs).repeats);
  case OperatorFamily::Concat:
  case OperatorFamily::Take:
  case OperatorFamily::Softmax: return ", axis=" + (call.axes ? std::to_string(call.axes->front()) : "None");
  case OperatorFamily::ExpandDims:
  case OperatorFamily::Squeeze: return ", axis=" + (call.axes ? printAxes(*call.axes) : "None");
  case OperatorFamily::Conv2D:
  case OperatorFamily::Pool2D:
  case OperatorFamily::AdaptivePool2D: return printWindowAttributes(call);
  case OperatorFamily::Clip: {
    const auto &bounds = std::get<ClipAttrs>(call.attrs);
    return ", " + printClipBound(bounds.min) + ", " + printClipBound(bounds.max);
  }
  case OperatorFamily::Full:
  case OperatorFamily::FullLike:
  case OperatorFamily::Arange: return dtypeAttribute("dtype", call.outDtype);
  case OperatorFamily::Split: {
    const auto &indicesOrSections = std::get<SplitAttrs>(call.attrs).indicesOrSections;
    const auto *indices = std::get_if<std::vector<int64_t>>(&indicesOrSections);
    return ", indices_or_sections=" + (indices ? printAxes(*indices) : std::to_string(std::get<int64_t>(indicesOrSections))) +
           ", axis=" + std::to_string(call.axes->front());
  }
  case OperatorFamily::Quantize:
    return ", axis=" + std::to_string(call.axes->front()) + dtypeAttribute("out_dtype", call.outDtype);
  case OperatorFamily::StridedSlice: {
    const auto &attrs = std::get<StridedSliceAttrs>(call.attrs);
    return ", axes=" + printAxes(*call.axes) + ", begin=" + printAxes(attrs.begin) + ", end=" + printAxes(attrs.end) +
           (attrs.stridesGiven ? ", strides=" + printAxes(attrs.strides) : "") +
           ", assume_inbound=" + (attrs.assumeInbound ? "True" : "False");
  }
  default: return "";
  }
}

std::string quantizeOutDtypeProblem(llvm::StringRef callee, DataType dtype) {
  bool quantize = callee == "quantize";
  if (quantize ? oneOf(dtype, {"int8", "uint8", "int16", "uint16"}) : oneOf(dtype, {"float16", "float32"})) return "";
  return "R." + callee.str() + " needs out_dtype " + (quantize ? "int8, uint8, int16 or uint16" : "float16 or float32") +
         ", got " + dtype.str();
}

bool quantizeParameterIsScalar(const TensorStructInfo &sinfo) {
  return sinfo.shape && std::all_of(sinfo.shape->begin(), sinfo.shape->end(), [](const Expr &dim) { return isConstantSize(dim, 1); });
}

Expr clipBoundOf(const std::variant<int64_t, double> &bound, DataType dtype) {
  const auto *integer = std::get_if<int64_t>(&bound);
  if (dtype.isFloat()) return floatImm(integer ? double(*integer) : std::get<double>(bound), dtype);
  return intImm(integer ? *integer : int64_t(std::get<double>(bound)), dtype);
}

}  // namespace vtac::ir::relax

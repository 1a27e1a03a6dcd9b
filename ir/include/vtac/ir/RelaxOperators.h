// The high-level Relax operators vtac reads (`R.add(x, y)`, `R.nn.relu(x)`, `R.matmul(a, b)`,
// `R.permute_dims(x, axes=[1, 0])`, `R.reshape(x, R.shape([2, 3]))`, `R.astype(x, "float16")`,
// `R.sum(x, axis=[1], keepdims=False)`, `R.concat((x, y), axis=0)`, `R.expand_dims(x, axis=[0])`,
// `R.squeeze(x, axis=None)`, `R.flatten(x)`, `R.where(c, x, y)`, `R.take(x, i, axis=1)`, `R.zeros(R.shape([2, 3]), dtype="float32")`,
// `R.full_like(x, v, dtype="void")`, `R.arange(R.prim_value(0), R.prim_value(8),
// R.prim_value(1), dtype="int64")`, `R.exp(x)`, `R.nn.softmax(x, axis=-1)`,
// `R.broadcast_to(x, R.shape([2, 3]))`, `R.nn.layer_norm(x, gamma, beta, axes=[-1])`,
// `R.argmax(x, axis=1)`): their names as TVM registers them (without "relax."), the
// tensors they take in TVM's parameter order, and their struct info inference (TVM's
// FInferStructInfo): numpy broadcasting for the elementwise binary operators (bool results for comparisons), numpy's matmul
// (a rank-1 operand gains a unit dimension, batch dimensions broadcast, the reduction lengths
// must agree), a permutation of the dimensions, a new shape of as many elements, a new element
// type, dimensions reduced (or kept as 1), tensors joined along one axis, dimensions of size 1
// added or removed, a written or borrowed shape (creation), a range's length, a selection
// broadcast over three tensors, the indices' dimensions in place of the axis, the operand's
// own (elementwise math, softmax, layer_norm; some need a float tensor), a shape broadcast
// to, int64 indices over the other dimensions (argmax), the data's shape in the
// (de)quantized type, the pieces of a split (`R.split(x, indices_or_sections=2, axis=1)`, an
// R.Tuple), the normalized data with the moving mean and variance (`R.nn.batch_norm(x, gamma,
// beta, mean, var, axis=1)`, an R.Tuple of three), a tensor repeated along its dimensions
// (`R.tile(x, repeats=[2, 1])`). legalize-ops
// (passes/relax/) turns each into R.call_tir of a generated prim_func.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>

#include "vtac/ir/Relax.h"

namespace vtac::ir::relax {

enum class OperatorFamily {
  ElementwiseBinary,  // add, subtract, multiply, divide, maximum, minimum, power, floor_divide
  Comparison,         // equal, not_equal, less, less_equal, greater, greater_equal (bool results)
  BitwiseBinary,      // left_shift, right_shift, bitwise_and, bitwise_or, bitwise_xor (integers)
  ElementwiseUnary,   // nn.relu, negative, abs, square, round, floor, ceil, trunc, sign
  Clip,               // clip(x, min, max)
  Matmul,             // matmul(x1, x2, out_dtype="void")
  PermuteDims,        // permute_dims(x, axes=None)
  Reshape,            // reshape(x, shape)
  Astype,             // astype(x, dtype)
  Statistical,        // sum, mean, max, min (x, axis=None, keepdims=False)
  Concat,             // concat(tensors, axis=0)
  Conv2D,             // nn.conv2d(data, weight, strides, padding, dilation, groups, layouts, out_dtype)
  Pool2D,             // nn.max_pool2d, nn.avg_pool2d(data, pool_size, strides, padding, dilation, ...)
  AdaptivePool2D,     // nn.adaptive_avg_pool2d(data, output_size=None, layout, out_layout)
  Full,               // zeros, ones (shape, dtype); full(shape, fill_value, dtype=None)
  FullLike,           // zeros_like, ones_like (x, dtype=None); full_like(x, fill_value, dtype=None)
  Arange,             // arange(start, end=None, step=1, dtype=None)
  ExpandDims,         // expand_dims(x, axis)
  Squeeze,            // squeeze(x, axis=None)
  Flatten,            // flatten(x)
  Where,              // where(condition, x1, x2)
  Take,               // take(x, indices, axis=None)
  StridedSlice,       // strided_slice(x, axes, begin, end, strides=None, assume_inbound=False)
  Quantize,           // quantize, dequantize (data, scale, zero_point, axis=-1, out_dtype)
  FloatUnary,         // exp, log, sqrt, tanh, sigmoid, sin, cos, erf, nn.gelu, nn.gelu_tanh, nn.silu (float tensors)
  Softmax,            // nn.softmax, nn.log_softmax(data, axis=-1) (float tensors)
  BroadcastTo,        // broadcast_to(x, shape)
  LayerNorm,          // nn.layer_norm(data, gamma, beta, axes, epsilon=1e-5, center=True, scale=True)
  ArgReduce,          // argmax, argmin(x, axis=None, keepdims=False)
  Split,              // split(x, indices_or_sections, axis=0): an R.Tuple of tensors
  BatchNorm,          // nn.batch_norm(data, gamma, beta, moving_mean, moving_var, axis, epsilon=1e-5,
                      //   center=True, scale=True, momentum=0.1, training=True): an R.Tuple of three
  Tile,               // tile(x, repeats)
};

struct OperatorInfo {
  llvm::StringLiteral name;  // "add", "nn.relu"
  OperatorFamily family;
  // The tensor parameters, by TVM's names (what a keyword argument may call them).
  std::vector<llvm::StringLiteral> tensorParams;
};

// The operator TVM registers as "relax.<name>", when vtac knows it; null otherwise.
const OperatorInfo *lookupOperator(llvm::StringRef name);
// Every operator vtac knows, in the order of its table (`vtac opt --list-operators`).
std::vector<llvm::StringRef> knownOperators();
// What a message about unknown operator `name` ("tiel", "nn.conv2D") adds: the closest known
// name if one is a typo away ("; did you mean R.tile?"), and where the list is.
std::string unknownOperatorHint(llvm::StringRef name);

// The struct info of an operator call's result (`call.callee`, `call.args`, `call.axes`,
// `call.outDtype`), or nullopt with `diagnostic` set: an argument that is not a tensor (at the
// argument), element types that differ, shapes that do not broadcast, reduction lengths that
// differ (at `callLoc`), axes that are no permutation, out of range or repeated, a reshape that
// changes the number of elements (at `axesLoc`, the attribute argument: axes, axis or shape),
// tensors to concatenate whose other dimensions differ (at the tensor). Shapes that cannot be
// proven to agree (two different symbolic sizes) give a result of known rank and unknown
// shape, as TVM's inference does.
// R.split's result is an R.Tuple of tensors (one section: the tensor), R.nn.batch_norm's an
// R.Tuple of three; every other operator's is a tensor.
std::optional<StructInfo> inferOperatorStructInfo(const Call &call, SourceLoc callLoc,
                                                  SourceLoc axesLoc, RelaxDiagnostic &diagnostic);

// The broadcast of two shapes (numpy's rule, aligned at the last dimension). nullopt with
// `conflict` set ("3 and 4 at dimension 1 of the result") when two constant sizes differ and
// neither is 1; nullopt with `conflict` empty when two sizes cannot be proven to agree.
std::optional<std::vector<Expr>> broadcastShapes(llvm::ArrayRef<Expr> a, llvm::ArrayRef<Expr> b,
                                                 std::string &conflict);

// Sizes known to be equal: the same constant, or the same symbolic expression.
bool sizesProvablyEqual(const Expr &a, const Expr &b);
// Is the size the constant `value`?
bool isConstantSize(const Expr &dim, int64_t value);

// `permute_dims`' axes made non-negative (reversed dimensions when absent); nullopt when they
// are no permutation of `rank` dimensions.
std::optional<std::vector<int64_t>> normalizedAxes(const std::optional<std::vector<int64_t>> &axes, int rank);

// The dimensions sum/mean/max/min reduce (all when `axes` is absent; negative axes count from
// the end); nullopt when an axis is out of range or repeated.
std::optional<std::vector<bool>> reducedDimensions(const std::optional<std::vector<int64_t>> &axes, int rank);

// R.strided_slice along its i-th axis of size `extent`: the first index taken (topi's
// canonical begin) and how many; nullopt when the size is not constant.
struct StridedSliceBounds {
  int64_t begin, length;
};
std::optional<StridedSliceBounds> stridedSliceBounds(const StridedSliceAttrs &attrs, size_t i, const Expr &extent);

// ---- The window operators (conv2d, the pools; RelaxWindowOperators.cpp) -------------------

// The axes of a layout as TVM's Layout reads it: "NCHW" -> N, C, H, W; "NCHW16c" -> N, C, H, W,
// 16c (a subordinate axis: a factor and a lower-case letter). nullopt when malformed: another
// character, a subordinate axis without factor, or an axis twice.
std::optional<std::vector<std::string>> layoutAxes(llvm::StringRef layout);

// Why a layout attribute of `call` cannot be used, or "": conv2d's layouts convert to NCHW (OIHW
// for the kernel), each primal axis maybe split by a factor ("NCHW1n16c"); a pool's layout has H and W
// (subordinate axes allowed) and its output layout is the same (other ones are not supported
// yet). `attribute` is the attribute's name ("data_layout").
std::string layoutProblem(const Call &call, llvm::StringRef attribute);

// The struct info of a conv2d, pool or adaptive pool call (see inferOperatorStructInfo): each
// spatial size floordiv(in + padding - dilation * (window - 1) - 1 [+ stride - 1 with
// ceil_mode], stride) + 1, a symbolic one in TVM's canonical order (`h + 1 - kh`, `h // 2`).
std::optional<TensorStructInfo> inferWindowOperator(const Call &call, const std::vector<TensorStructInfo> &in,
                                                    SourceLoc callLoc, RelaxDiagnostic &diagnostic);

// ", strides=[1, 1], padding=[0, 0, 0, 0], ...": every attribute, as TVM's printer writes them.
std::string printWindowAttributes(const Call &call);

// Does a Relax function of the module call a high-level operator?
bool hasOperatorCalls(const IRModule &module);

// ", axes=[1, 0]", ", out_dtype=\"void\"": the attributes as TVM's printer writes them after
// the tensors ("" for operators without attributes).
std::string printOperatorAttributes(const Call &call);

// Why R.quantize / R.dequantize (`callee`) cannot produce `dtype`, or "".
std::string quantizeOutDtypeProblem(llvm::StringRef callee, DataType dtype);
// Is a scale or zero point of R.quantize / R.dequantize one value for all of the data: a
// scalar, or a tensor whose every dimension is 1?
bool quantizeParameterIsScalar(const TensorStructInfo &sinfo);

// An R.clip bound as a constant of the clipped tensor's element type, as tir.const makes it
// (a float bound of an integer tensor is truncated).
Expr clipBoundOf(const std::variant<int64_t, double> &bound, DataType dtype);

}  // namespace vtac::ir::relax

// legalize-ops for the nn operators without windows (TVM's legalize_ops/nn.py, topi/nn/):
// - R.nn.relu: topi.nn.relu, `compute[i] = T.max(x[i], 0)` in block `compute` with iterators
//   i0, i1, ....
// - R.nn.gelu: TVM's te_gelu, `x * (0.5 + erf(x * 0.7071..) * 0.5)` as five elementwise stages
//   (blocks T_multiply, compute (T.erf), T_multiply_1, T_add, T_multiply_2); a float16 operand
//   takes its erf in float32 (casts in blocks compute around it).
// - R.nn.silu: `x * sigmoid(x)`, blocks compute (T.sigmoid) and T_multiply.
// - R.nn.softmax: topi.nn.softmax, four stages along the axis: the maximum
//   (`T_softmax_maxelem`, over the other dimensions then reduction iterator k, from the lowest
//   float), `T_softmax_exp` = exp(x - maximum), their sum `T_softmax_expsum`, and
//   `T_softmax_norm` = exp / sum, annotated {"axis": axis} as topi's compute attrs.
// - R.nn.log_softmax: topi.nn.log_softmax, the maximum, then in block `compute` the sum of
//   exp(x - maximum), then `compute_1` = x - maximum - log(sum), annotated {"axis": axis}.
// - R.nn.layer_norm: topi.nn.layer_norm, the sums of x and x * x over the axes in one tuple
//   reduction (block `<x>_red_temp`, iterators ax* then k<dimension>; float16 summed in
//   float32), then block `T_layer_norm`: (x - mean) * T.rsqrt(var + epsilon) * gamma + beta,
//   mean = sum / count and var = sum of squares / count - mean * mean, a division by a constant
//   count a multiplication by its reciprocal. Like TVM it ignores center and scale (gamma and
//   beta are always applied).
#include "Legalize.h"

#include <algorithm>

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/ExtremeValue.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::DataType;
using ir::Expr;
using Indices = ComputeBuilder::Indices;

namespace {

llvm::Expected<LegalizedOperator> legalizeSoftmax(const relax::Call &call, const ir::BufferRef &x,
                                                  ComputeBuilder &builder) {
  DataType dtype = x->dtype;
  // The reader checked the axis against the operand's rank.
  int64_t rank = int64_t(x->rank()), axis = call.axes->front() < 0 ? call.axes->front() + rank : call.axes->front();
  std::vector<Expr> reducedShape = x->shape;
  reducedShape.erase(reducedShape.begin() + axis);
  // The operand's indices from the reduced shape's and the reduction iterator; the reduced
  // shape's from the operand's.
  auto along = [&](const Indices &i, const Expr &k) {
    Indices indices = i;
    indices.insert(indices.begin() + axis, k);
    return indices;
  };
  auto across = [&](const Indices &i) {
    Indices indices = i;
    indices.erase(indices.begin() + axis);
    return indices;
  };
  ComputeBuilder::Reduction maximum{{{x->shape[size_t(axis)], "k"}}, ir::extremeValue(dtype, false), ir::NodeKind::Max};
  ComputeBuilder::Reduction sum{{{x->shape[size_t(axis)], "k"}}, zeroOf(dtype), ir::NodeKind::Add};
  ir::BufferRef maxElem = builder.reduceStage("T_softmax_maxelem", "i", dtype, reducedShape, maximum,
                                              [&](const Indices &i, const Indices &k) { return ir::bufferLoad(x, along(i, k[0])); });
  auto shifted = [&](const Indices &i) {
    return ir::binary(ir::NodeKind::Sub, ir::bufferLoad(x, i), ir::bufferLoad(maxElem, across(i)));
  };
  ir::AttrMap attrs;
  attrs.set("axis", axis);
  if (call.callee == "nn.log_softmax") {
    ir::BufferRef expSum = builder.reduceStage("compute", "i", dtype, reducedShape, sum, [&](const Indices &i, const Indices &k) {
      return unaryIntrinsic("tir.exp", ir::binary(ir::NodeKind::Sub, ir::bufferLoad(x, along(i, k[0])), ir::bufferLoad(maxElem, i)));
    });
    return builder.compute("log_softmax", "compute_1", "i", call.outSinfo, [&](const Indices &i) {
      return ir::binary(ir::NodeKind::Sub, shifted(i), unaryIntrinsic("tir.log", ir::bufferLoad(expSum, across(i))));
    }, std::move(attrs));
  }
  ir::BufferRef exp = builder.computeStage("T_softmax_exp", "i", dtype, x->shape,
                                           [&](const Indices &i) { return unaryIntrinsic("tir.exp", shifted(i)); });
  ir::BufferRef expSum = builder.reduceStage("T_softmax_expsum", "i", dtype, reducedShape, sum,
                                             [&](const Indices &i, const Indices &k) { return ir::bufferLoad(exp, along(i, k[0])); });
  return builder.compute("softmax", "T_softmax_norm", "i", call.outSinfo, [&](const Indices &i) {
    return ir::binary(ir::NodeKind::Div, ir::bufferLoad(exp, i), ir::bufferLoad(expSum, across(i)));
  }, std::move(attrs));
}

// TVM's te_gelu: x * (0.5 + erf(x * sqrt(1/2)) * 0.5), each operation a stage of topi's
// (multiply and add by a scalar: C++ topi, iterators ax; erf and cast: Python topi, i).
llvm::Expected<LegalizedOperator> legalizeGelu(const relax::Call &call, const ir::BufferRef &x, ComputeBuilder &builder) {
  DataType dtype = x->dtype;
  auto elementwise = [&](const char *block, const char *axes, DataType type, std::function<Expr(const Indices &)> value) {
    return builder.computeStage(block, axes, type, x->shape, value);
  };
  ir::BufferRef scaled = elementwise("T_multiply", "ax", dtype, [&](const Indices &ax) {
    return ir::binary(ir::NodeKind::Mul, ir::bufferLoad(x, ax), ir::floatImm(0.70710678118654757, dtype));
  });
  ir::BufferRef erf;
  if (dtype == DataType::floatTy(16)) {
    ir::BufferRef wide = float32Erf(builder, scaled);
    erf = elementwise("compute_2", "i", dtype,
                      [&](const Indices &i) { return Expr(ir::make<ir::Cast>(dtype, ir::bufferLoad(wide, i))); });
  } else {
    erf = elementwise("compute", "i", dtype, [&](const Indices &i) { return unaryIntrinsic("tir.erf", ir::bufferLoad(scaled, i)); });
  }
  Expr half = ir::floatImm(0.5, dtype);
  ir::BufferRef halved = elementwise("T_multiply_1", "ax", dtype, [&](const Indices &ax) {
    return ir::binary(ir::NodeKind::Mul, ir::bufferLoad(erf, ax), half);
  });
  ir::BufferRef shifted = elementwise("T_add", "ax", dtype, [&](const Indices &ax) {
    return ir::binary(ir::NodeKind::Add, half, ir::bufferLoad(halved, ax));
  });
  return builder.compute("gelu", "T_multiply_2", "ax", call.outSinfo, [&](const Indices &ax) {
    return ir::binary(ir::NodeKind::Mul, ir::bufferLoad(x, ax), ir::bufferLoad(shifted, ax));
  });
}

// topi's reduce_extent: 1 of the data's type times each normalized size (a symbolic one cast to
// it), the constant sizes multiplied out (`constantSizes` counts them).
Expr elementCount(const ir::BufferRef &x, const std::vector<bool> &normalized, int &constantSizes) {
  DataType dtype = x->dtype;
  Expr count;  // null: the 1 it starts from
  constantSizes = 0;
  for (size_t d = 0; d < normalized.size(); ++d) {
    if (!normalized[d]) continue;
    const auto *constant = x->shape[d].as<ir::IntImm>();
    constantSizes += constant != nullptr;
    Expr size = constant ? ir::floatImm(double(constant->value), dtype) : Expr(ir::make<ir::Cast>(dtype, x->shape[d]));
    const auto *folded = count ? count.as<ir::FloatImm>() : nullptr;
    if (!count) count = size;
    else if (folded && constant) count = ir::floatImm(folded->value * double(constant->value), dtype);
    else count = ir::binary(ir::NodeKind::Mul, count, size);
  }
  return count;
}

llvm::Expected<LegalizedOperator> legalizeLayerNorm(const relax::Call &call, const ir::BufferRef &x,
                                                    ComputeBuilder &builder) {
  DataType dtype = x->dtype;
  if (dtype != DataType::float32() && dtype != DataType::floatTy(16))
    return ir::diagnosticError(call.args[0].loc, "legalize-ops: R.nn.layer_norm of " + dtype.str() +
                                                     " is not supported (topi's layer_norm takes float32 and float16)");
  llvm::Expected<ir::BufferRef> gamma = builder.input(call.args[1]);
  if (!gamma) return gamma.takeError();
  llvm::Expected<ir::BufferRef> beta = builder.input(call.args[2]);
  if (!beta) return beta.takeError();
  // The reader checked the axes against the data's rank.
  std::vector<bool> normalized = *relax::reducedDimensions(call.axes, int(x->rank()));
  if (std::find(normalized.begin(), normalized.end(), false) == normalized.end())
    return ir::diagnosticError(call.args[0].loc, "legalize-ops: R.nn.layer_norm over every dimension of its data "
                                                 "is not supported yet");
  bool half = dtype != DataType::float32();
  DataType sumType = DataType::float32();
  ComputeBuilder::TupleReduction sums;
  std::vector<Expr> meanShape;
  for (size_t d = 0; d < normalized.size(); ++d) {
    if (normalized[d]) sums.axes.emplace_back(x->shape[d], "k" + std::to_string(d));
    else meanShape.push_back(x->shape[d]);
  }
  sums.dtypes = {sumType, sumType};
  sums.inits = {zeroOf(sumType), zeroOf(sumType)};
  sums.combine = [](const Indices &acc, const Indices &next) {
    return Indices{ir::binary(ir::NodeKind::Add, acc[0], next[0]), ir::binary(ir::NodeKind::Add, acc[1], next[1])};
  };
  auto widened = [&](Expr value) { return half ? Expr(ir::make<ir::Cast>(sumType, value)) : value; };
  std::vector<ir::BufferRef> temps =
      builder.tupleReduceStage(x->name + "_red_temp", "ax", meanShape, sums, [&](const Indices &ax, const Indices &ks) {
        Indices indices;
        size_t a = 0, k = 0;
        for (size_t d = 0; d < normalized.size(); ++d) indices.push_back(normalized[d] ? ks[k++] : ax[a++]);
        Expr value = ir::bufferLoad(x, indices);
        return Indices{widened(value), ir::binary(ir::NodeKind::Mul, widened(value), widened(value))};
      });
  // The sums divided by the count in float32: a constant's reciprocal multiplies (as TVM's
  // simplifier leaves a division by a constant). float16's count is cast: TVM folds the cast of
  // one constant size, not of a product of them (T.float16(4) * T.float16(5), which vtac's
  // reader folds to T.float16(20)), nor of a symbolic count.
  int constantSizes;
  Expr count = elementCount(x, normalized, constantSizes);
  const auto *constantCount = count.as<ir::FloatImm>();
  if (half && constantCount && constantSizes == 1) count = ir::floatImm(constantCount->value, sumType);
  else if (half) count = ir::make<ir::Cast>(sumType, count);
  constantCount = count.as<ir::FloatImm>();
  auto average = [&](const Expr &sum) {
    if (constantCount) return ir::binary(ir::NodeKind::Mul, sum, ir::floatImm(1.0 / constantCount->value, sumType));
    return ir::binary(ir::NodeKind::Div, sum, count);
  };
  const auto &attrs = std::get<relax::LayerNormAttrs>(call.attrs);
  return builder.compute("layer_norm", "T_layer_norm", "ax", call.outSinfo, [&](const Indices &ax) {
    Indices across, along;
    for (size_t d = 0; d < normalized.size(); ++d) (normalized[d] ? along : across).push_back(ax[d]);
    auto mean = [&] { return average(ir::bufferLoad(temps[0], across)); };
    Expr variance = ir::binary(ir::NodeKind::Sub, average(ir::bufferLoad(temps[1], across)),
                               ir::binary(ir::NodeKind::Mul, mean(), mean()));
    Expr scale = unaryIntrinsic("tir.rsqrt", ir::binary(ir::NodeKind::Add, variance, ir::floatImm(attrs.epsilon, sumType)));
    Expr normal = ir::binary(ir::NodeKind::Mul, ir::binary(ir::NodeKind::Sub, widened(ir::bufferLoad(x, ax)), mean()), scale);
    if (half) normal = ir::make<ir::Cast>(dtype, normal);
    return ir::binary(ir::NodeKind::Add, ir::binary(ir::NodeKind::Mul, normal, ir::bufferLoad(*gamma, along)),
                      ir::bufferLoad(*beta, along));
  });
}

}  // namespace

llvm::Expected<LegalizedOperator> legalizeNn(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const ir::BufferRef &x = *data;
  if (call.callee == "nn.softmax" || call.callee == "nn.log_softmax") return legalizeSoftmax(call, x, builder);
  if (call.callee == "nn.gelu") return legalizeGelu(call, x, builder);
  if (call.callee == "nn.layer_norm") return legalizeLayerNorm(call, x, builder);
  if (call.callee == "nn.silu") {
    ir::BufferRef sigmoid = builder.computeStage("compute", "i", x->dtype, x->shape,
                                                 [&](const Indices &i) { return unaryIntrinsic("tir.sigmoid", ir::bufferLoad(x, i)); });
    return builder.compute("silu", "T_multiply", "ax", call.outSinfo, [&](const Indices &ax) {
      return ir::binary(ir::NodeKind::Mul, ir::bufferLoad(x, ax), ir::bufferLoad(sigmoid, ax));
    });
  }
  Expr zero = zeroOf(x->dtype);
  return builder.compute("relu", "compute", "i", call.outSinfo, [&](const Indices &i) {
    return ir::binary(ir::NodeKind::Max, ir::bufferLoad(x, i), zero);
  });
}

}  // namespace vtac::passes::legalize

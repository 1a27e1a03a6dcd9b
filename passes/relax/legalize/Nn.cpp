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
// - R.nn.gelu_tanh: TVM's te_gelu_tanh, 0.5 * x * (1 + tanh(sqrt(2 / pi) * x * (1 + 0.044715 *
//   x * x))), one stage per operation (blocks T_multiply .. T_multiply_4, T_add, compute
//   (T.tanh), T_add_1, T_multiply_5).
// - R.nn.batch_norm: topi.nn.batch_norm, one stage per te operation (see BatchNormStages), three
//   outputs. Training (TVM's LegalizeOps always legalizes so; newer TVM's default): the mean and
//   variance of the batch over every dimension but the axis, out = (x - mean) / sqrt(var +
//   epsilon) * gamma + beta, and the moving statistics updated, (1 - momentum) * moving +
//   momentum * batch's (the variance computed again for it, as topi did). training=False
//   (newer TVM): the moving statistics normalize, and are returned as they are.
#include "Legalize.h"

#include <algorithm>
#include <map>

#include "vtac/ir/Arith.h"
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

// TVM's te_gelu_tanh, each te operation a stage (C++ topi's multiply and add by a scalar,
// iterators ax; Python topi's tanh, i).
llvm::Expected<LegalizedOperator> legalizeGeluTanh(const relax::Call &call, const ir::BufferRef &x,
                                                   ComputeBuilder &builder) {
  DataType dtype = x->dtype;
  using Value = std::function<Expr(const Indices &)>;
  auto at = [](const ir::BufferRef &buffer) -> Value {
    return [buffer](const Indices &ax) { return ir::bufferLoad(buffer, ax); };
  };
  auto constant = [dtype](double value) -> Value {
    return [value, dtype](const Indices &) { return ir::floatImm(value, dtype); };
  };
  auto combine = [](ir::NodeKind kind, Value a, Value b) -> Value {
    return [kind, a, b](const Indices &ax) { return ir::binary(kind, a(ax), b(ax)); };
  };
  auto stage = [&](const char *block, const char *axes, const Value &value) {
    return builder.computeStage(block, axes, dtype, x->shape, value);
  };
  using K = ir::NodeKind;
  ir::BufferRef half = stage("T_multiply", "ax", combine(K::Mul, constant(0.5), at(x)));
  const double sqrtTwoOverPi = 0.7978845608028654;
  ir::BufferRef scaled = stage("T_multiply_1", "ax", combine(K::Mul, constant(sqrtTwoOverPi), at(x)));
  ir::BufferRef cubicFactor = stage("T_multiply_2", "ax", combine(K::Mul, constant(0.044715), at(x)));
  ir::BufferRef cubicTerm = stage("T_multiply_3", "ax", combine(K::Mul, at(cubicFactor), at(x)));
  ir::BufferRef inner = stage("T_add", "ax", combine(K::Add, constant(1), at(cubicTerm)));
  ir::BufferRef argument = stage("T_multiply_4", "ax", combine(K::Mul, at(scaled), at(inner)));
  ir::BufferRef tanh =
      stage("compute", "i", [&](const Indices &i) { return unaryIntrinsic("tir.tanh", ir::bufferLoad(argument, i)); });
  ir::BufferRef shifted = stage("T_add_1", "ax", combine(K::Add, constant(1), at(tanh)));
  return builder.compute("gelu_tanh", "T_multiply_5", "ax", call.outSinfo, combine(K::Mul, at(half), at(shifted)));
}

// topi.nn.batch_norm's te operations as stages, each named as te.create_prim_func names the
// tensors of topi's names (T_subtract, T_subtract_1, ...) in the order it visits them, which is
// the order the stages are made in here.
class BatchNormStages {
public:
  BatchNormStages(ComputeBuilder &builder, const ir::BufferRef &x, size_t axis)
      : builder_(builder), x_(x), axis_(axis) {
    dtype_ = x->dtype;
    reshaped_.assign(x->rank(), ir::intImm(1, DataType::int64()));
    reshaped_[axis] = x->shape[axis];
    // Python's reduce(mul, sizes, 1): TVM's operators fold constants and x * 1.
    for (size_t d = 0; d < x->rank(); ++d) {
      if (d == axis) continue;
      const auto *done = count_ ? count_.as<ir::IntImm>() : nullptr, *size = x->shape[d].as<ir::IntImm>();
      count_ = !count_ || (done && done->value == 1) ? x->shape[d]
               : done && size                        ? ir::intImm(done->value * size->value, DataType::int64())
                                                     : ir::binary(ir::NodeKind::Mul, count_, x->shape[d]);
    }
  }

  // An operand of an elementwise operation: a tensor, or a scalar constant.
  struct Operand {
    Operand(ir::BufferRef buffer) : buffer(std::move(buffer)) {}
    Operand(double value) : value(value) {}
    ir::BufferRef buffer;
    double value = 0;
  };
  // topi's broadcast `a <op> b` (block T_add, T_subtract, ...): the result's sizes as topi's
  // BroadcastShape gives them (T.max of two sizes that may differ), each tensor indexed at 0
  // along the dimensions it broadcasts; a scalar folded as TVM's operators fold it (x * 1 is x).
  ir::BufferRef elementwise(const std::string &name, ir::NodeKind kind, const Operand &a, const Operand &b) {
    std::vector<Expr> shape = a.buffer ? a.buffer->shape : b.buffer->shape;
    if (a.buffer && b.buffer) {
      std::string conflict;
      std::optional<std::vector<Expr>> common = relax::broadcastShapes(a.buffer->shape, b.buffer->shape, conflict);
      shape = common ? *common : maxShape(a.buffer->shape, b.buffer->shape);
    }
    auto load = [&](const Operand &operand, const Operand &other, const Indices &ax) -> Expr {
      if (!operand.buffer) return ir::floatImm(operand.value, dtype_);
      const std::vector<Expr> &against = other.buffer ? other.buffer->shape : shape;
      return ir::bufferLoad(operand.buffer, broadcastIndices(ax, operand.buffer->shape, against));
    };
    return builder_.computeStage(unique(name), "ax", dtype_, shape, [&](const Indices &ax) {
      return ir::makeBinary(kind, load(a, b, ax), load(b, a, ax));
    });
  }
  // topi.sum over every dimension but the axis, block `<name>_red` (iterators ax0, then k<d>).
  ir::BufferRef sum(const ir::BufferRef &from, const std::string &teName) {
    ComputeBuilder::Reduction reduction{{}, zeroOf(dtype_), ir::NodeKind::Add};
    for (size_t d = 0; d < from->rank(); ++d)
      if (d != axis_) reduction.axes.emplace_back(from->shape[d], "k" + std::to_string(d));
    return builder_.reduceStage(unique(teName + "_red"), "ax", dtype_, {from->shape[axis_]}, reduction,
                                [&](const Indices &ax, const Indices &ks) {
                                  Indices indices = ks;
                                  indices.insert(indices.begin() + long(axis_), ax[0]);
                                  return ir::bufferLoad(from, indices);
                                });
  }
  // A sum divided by the element count (block T_divide): a constant count's reciprocal
  // multiplies (as TVM's simplifier leaves a division by a constant), a symbolic one divides,
  // cast to the element type.
  ir::BufferRef mean(const ir::BufferRef &sum) {
    return builder_.computeStage(unique("T_divide"), "ax", dtype_, sum->shape, [&](const Indices &ax) {
      Expr total = ir::bufferLoad(sum, ax);
      if (const auto *constant = count_.as<ir::IntImm>())
        return ir::binary(ir::NodeKind::Mul, total, ir::floatImm(1.0 / double(constant->value), dtype_));
      return ir::binary(ir::NodeKind::Div, total, ir::make<ir::Cast>(dtype_, count_));
    });
  }
  // topi.reshape of a vector along the axis to [1, .., size, .., 1] (block T_reshape).
  ir::BufferRef reshape(const ir::BufferRef &vector) {
    return builder_.computeStage(unique("T_reshape"), "ax", dtype_, reshaped_, [&](const Indices &ax) {
      return ir::bufferLoad(vector, reshapeIndices(ax, reshaped_, vector->shape));
    });
  }
  // The batch's variance: the mean of (x - mean) * (x - mean), `meanAlong` the mean reshaped.
  ir::BufferRef variance(const ir::BufferRef &meanAlong) {
    ir::BufferRef left = elementwise("T_subtract", ir::NodeKind::Sub, x_, meanAlong);
    ir::BufferRef right = elementwise("T_subtract", ir::NodeKind::Sub, x_, meanAlong);
    ir::BufferRef square = elementwise("T_multiply", ir::NodeKind::Mul, left, right);
    return mean(sum(square, "T_multiply"));
  }
  // topi.math.sqrt (block compute, iterators i).
  ir::BufferRef sqrt(const ir::BufferRef &from) {
    return builder_.computeStage(unique("compute"), "i", dtype_, from->shape,
                                 [&](const Indices &i) { return unaryIntrinsic("tir.sqrt", ir::bufferLoad(from, i)); });
  }

private:
  std::string unique(const std::string &name) {
    unsigned seen = used_[name]++;
    return seen ? name + "_" + std::to_string(seen) : name;
  }
  static std::vector<Expr> maxShape(const std::vector<Expr> &a, const std::vector<Expr> &b) {
    std::vector<Expr> shape;
    for (size_t i = 0; i < a.size(); ++i)
      shape.push_back(relax::sizesProvablyEqual(a[i], b[i]) ? a[i] : ir::binary(ir::NodeKind::Max, a[i], b[i]));
    return shape;
  }

  ComputeBuilder &builder_;
  ir::BufferRef x_;
  size_t axis_;
  DataType dtype_;
  std::vector<Expr> reshaped_;
  Expr count_;
  std::map<std::string, unsigned> used_;
};

llvm::Expected<LegalizedOperator> legalizeBatchNorm(const relax::Call &call, const ir::BufferRef &x,
                                                    ComputeBuilder &builder) {
  for (const relax::TensorStructInfo &output : call.tupleOutSinfo)
    if (!output.shape)
      return ir::diagnosticError(call.calleeLoc, "legalize-ops needs the shapes of R.nn.batch_norm's results; they are " +
                                                     relax::printStructInfo(call.outputSinfo()) +
                                                     " (the sizes along the axis are not known to agree)");
  if (x->rank() < 2)
    return ir::diagnosticError(call.args[0].loc, "legalize-ops: R.nn.batch_norm of " + std::to_string(x->rank()) +
                                                     "-D data is not supported (topi's batch_norm would average over "
                                                     "no dimension)");
  ir::BufferRef params[4];
  for (size_t i = 0; i < 4; ++i) {
    llvm::Expected<ir::BufferRef> param = builder.input(call.args[i + 1]);
    if (!param) return param.takeError();
    params[i] = *param;
  }
  const ir::BufferRef &gamma = params[0], &beta = params[1], &movingMean = params[2], &movingVar = params[3];
  const auto &attrs = std::get<relax::BatchNormAttrs>(call.attrs);
  int64_t rank = int64_t(x->rank()), axis = call.axes->front();  // the reader checked the axis
  BatchNormStages stages(builder, x, size_t(axis < 0 ? axis + rank : axis));
  using K = ir::NodeKind;
  ir::BufferRef batchMean, meanAlong, centered, varianceAlong;
  if (attrs.training) {
    batchMean = stages.mean(stages.sum(x, x->name));
    meanAlong = stages.reshape(batchMean);
    centered = stages.elementwise("T_subtract", K::Sub, x, meanAlong);
    varianceAlong = stages.reshape(stages.variance(meanAlong));
  } else {
    centered = stages.elementwise("T_subtract", K::Sub, x, stages.reshape(movingMean));
    varianceAlong = stages.reshape(movingVar);
  }
  ir::BufferRef out = stages.elementwise(
      "T_divide", K::Div, centered, stages.sqrt(stages.elementwise("T_add", K::Add, varianceAlong, attrs.epsilon)));
  if (attrs.scale) out = stages.elementwise("T_multiply", K::Mul, out, stages.reshape(gamma));
  if (attrs.center) out = stages.elementwise("T_add", K::Add, out, stages.reshape(beta));
  std::vector<ir::BufferRef> outputs{out};
  if (attrs.training) {
    // (1 - momentum) * moving + momentum * batch's, the mean first.
    ir::BufferRef keptMean = stages.elementwise("T_multiply", K::Mul, 1 - attrs.momentum, movingMean);
    ir::BufferRef newMean = stages.elementwise("T_multiply", K::Mul, attrs.momentum, batchMean);
    outputs.push_back(stages.elementwise("T_add", K::Add, keptMean, newMean));
    ir::BufferRef keptVar = stages.elementwise("T_multiply", K::Mul, 1 - attrs.momentum, movingVar);
    ir::BufferRef newVar = stages.elementwise("T_multiply", K::Mul, attrs.momentum, stages.variance(meanAlong));
    outputs.push_back(stages.elementwise("T_add", K::Add, keptVar, newVar));
  } else {
    // topi returns moving_mean * 1 and moving_var * 1 (copies).
    outputs.push_back(stages.elementwise("T_multiply", K::Mul, movingMean, 1.0));
    outputs.push_back(stages.elementwise("T_multiply", K::Mul, movingVar, 1.0));
  }
  return builder.finishWithOutputs("batch_norm", outputs, call.calleeLoc);
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
  if (call.callee == "nn.gelu_tanh") return legalizeGeluTanh(call, x, builder);
  if (call.callee == "nn.batch_norm") return legalizeBatchNorm(call, x, builder);
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

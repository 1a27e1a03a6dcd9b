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
#include "Legalize.h"

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

}  // namespace

llvm::Expected<LegalizedOperator> legalizeNn(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const ir::BufferRef &x = *data;
  if (call.callee == "nn.softmax" || call.callee == "nn.log_softmax") return legalizeSoftmax(call, x, builder);
  if (call.callee == "nn.gelu") return legalizeGelu(call, x, builder);
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

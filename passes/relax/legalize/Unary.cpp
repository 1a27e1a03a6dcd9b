// legalize-ops for the elementwise unary operators (TVM's legalize_ops/unary.py, topi/math.py):
// - R.clip: topi.clip, `compute[i] = T.max(T.min(x[i], max), min)`; the bounds become
//   constants of x's element type (relax::clipBoundOf).
// - R.exp, log, sqrt, rsqrt, tanh, sigmoid, sin, cos: `compute[i] = T.exp(x[i])` (the TIR
//   intrinsic of the operator's name); R.erf the same, taken in float32 for a float16 operand
//   (topi.math.cast there and back, blocks compute, compute_1, compute_2) and named "erf".
// - R.negative: `compute[i] = x[i] * -1` (Python's unary minus of a TIR value); R.abs:
//   T.fabs of a float, `T.Select(0 <= x, x, 0 - x)` of a signed integer, the value of an
//   unsigned one; R.square: topi.multiply(x, x), block `T_multiply` (iterators ax0, ax1, ...).
// - R.round, floor, ceil, trunc: T.round(x[i]), ...; of an integer tensor the value itself (TIR's
//   rounding of an integer is the integer). R.sign: topi.sign, block `T_sign` (iterators ax0,
//   ...), `T.Select(x > 0, 1, T.Select(x < 0, -1, 0))`.
// All in block `compute` with iterators i0, i1, ... and TVM's name hint "tir_<operator>".
#include "Legalize.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::DataType;
using ir::Expr;
using Indices = ComputeBuilder::Indices;

namespace {

Expr absolute(Expr x) {
  DataType dtype = x->dtype;
  if (dtype.isFloat()) return unaryIntrinsic("tir.fabs", x);
  if (dtype.isUInt()) return x;
  Expr zero = zeroOf(dtype);
  return ir::make<ir::Select>(ir::binary(ir::NodeKind::GE, x, zero), x, ir::binary(ir::NodeKind::Sub, zero, x));
}

}  // namespace

ir::BufferRef float32Erf(ComputeBuilder &builder, const ir::BufferRef &x) {
  DataType wide = DataType::float32();
  ir::BufferRef widened = builder.computeStage("compute", "i", wide, x->shape, [&](const Indices &i) {
    return Expr(ir::make<ir::Cast>(wide, ir::bufferLoad(x, i)));
  });
  return builder.computeStage("compute_1", "i", wide, x->shape,
                              [&](const Indices &i) { return unaryIntrinsic("tir.erf", ir::bufferLoad(widened, i)); });
}

llvm::Expected<LegalizedOperator> legalizeClip(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const auto &bounds = std::get<relax::ClipAttrs>(call.attrs);
  Expr min = relax::clipBoundOf(bounds.min, (*data)->dtype), max = relax::clipBoundOf(bounds.max, (*data)->dtype);
  return builder.compute("tir_clip", "compute", "i", call.outSinfo, [&](const Indices &i) {
    return ir::binary(ir::NodeKind::Max, ir::binary(ir::NodeKind::Min, ir::bufferLoad(*data, i), max), min);
  });
}

llvm::Expected<LegalizedOperator> legalizeUnary(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const ir::BufferRef &x = *data;
  DataType dtype = x->dtype;
  const std::string &op = call.callee;
  std::string hint = "tir_" + op;
  if (op == "square")
    return builder.compute(hint, "T_multiply", "ax", call.outSinfo, [&](const Indices &ax) {
      return ir::binary(ir::NodeKind::Mul, ir::bufferLoad(x, ax), ir::bufferLoad(x, ax));
    });
  if (op == "sign")
    return builder.compute(hint, "T_sign", "ax", call.outSinfo, [&](const Indices &ax) -> Expr {
      Expr value = ir::bufferLoad(x, ax), zero = zeroOf(dtype);
      auto constant = [&](int64_t c) { return dtype.isFloat() ? ir::floatImm(double(c), dtype) : ir::intImm(c, dtype); };
      Expr negative = ir::make<ir::Select>(ir::binary(ir::NodeKind::LT, value, zero), constant(-1), zero);
      return ir::make<ir::Select>(ir::binary(ir::NodeKind::GT, value, zero), constant(1), negative);
    });
  if (op == "erf" && dtype == DataType::floatTy(16)) {
    ir::BufferRef erf = float32Erf(builder, x);
    return builder.compute("erf", "compute_2", "i", call.outSinfo, [&](const Indices &i) {
      return Expr(ir::make<ir::Cast>(dtype, ir::bufferLoad(erf, i)));
    });
  }
  return builder.compute(op == "erf" ? "erf" : hint, "compute", "i", call.outSinfo, [&](const Indices &i) -> Expr {
    Expr value = ir::bufferLoad(x, i);
    if (op == "negative") return ir::binary(ir::NodeKind::Mul, value, dtype.isFloat() ? ir::floatImm(-1, dtype) : ir::intImm(-1, dtype));
    if (op == "abs") return absolute(value);
    bool rounding = op == "round" || op == "floor" || op == "ceil" || op == "trunc";
    if (rounding && !dtype.isFloat()) return value;
    return unaryIntrinsic("tir." + op, value);
  });
}

}  // namespace vtac::passes::legalize

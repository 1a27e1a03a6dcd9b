// legalize-ops for R.quantize and R.dequantize (TVM's legalize_ops/qdq.py): one elementwise
// block over the data's shape, `quantized` or `dequantized`, with iterators i0, i1, ...
//   quantize:   T.Cast(out, T.max(T.min(T.round(data / scale) + zero_point, max(out)), min(out)))
//               (no rounding to a float type);
//   dequantize: T.Cast(float32, T.Cast(int32, data) - zero_point) * scale, clipped to the
//               range of a float16 result and cast to it.
// The scale and zero point are read at the data's index along `axis`; a scalar R.const folds
// into the expression, as TVM's _try_convert_to_scalar_const does, and a constant scale of a
// quantize becomes a multiplication by its reciprocal, as TVM's output has it
// (`data * T.float32(0.5)` for a scale of 2). A one-element tensor is read at 0 for every
// element (TVM would index it along the axis, past its end).
#include "Legalize.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/ExtremeValue.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

namespace {

// te.max(te.min(value, max_value(dtype)), min_value(dtype)).astype(dtype): qdq.py's clip_cast.
Expr clipCast(const Expr &value, ir::DataType dtype) {
  Expr clipped = ir::makeBinary(ir::NodeKind::Max, ir::makeBinary(ir::NodeKind::Min, value, ir::extremeValue(dtype, true)),
                                ir::extremeValue(dtype, false));
  return ir::castExpr(dtype, clipped);
}

}  // namespace

llvm::Expected<LegalizedOperator> legalizeQdq(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  size_t rank = (*data)->shape.size();
  int64_t axis = call.axes->front() < 0 ? call.axes->front() + int64_t(rank) : call.axes->front();
  // The scale and the zero point: a folded constant, or a tensor read along the axis.
  Expr folded[2];
  ir::BufferRef params[2];
  bool broadcast[2] = {false, false};
  for (size_t i = 0; i < 2; ++i) {
    const relax::Arg &arg = call.args[i + 1];
    if ((folded[i] = scalarConstant(arg))) continue;
    llvm::Expected<ir::BufferRef> buffer = builder.input(arg);
    if (!buffer) return buffer.takeError();
    params[i] = *buffer;
    broadcast[i] = relax::quantizeParameterIsScalar(arg.sinfo().tensor);
  }
  auto param = [&](size_t i, const ComputeBuilder::Indices &indices) -> Expr {
    if (folded[i]) return folded[i];
    if (broadcast[i])
      return ir::bufferLoad(params[i], std::vector<Expr>(params[i]->shape.size(), ir::intImm(0, ir::DataType::int64())));
    return ir::bufferLoad(params[i], {indices[axis]});
  };
  ir::DataType out = call.outDtype;
  if (call.callee == "quantize")
    return builder.compute("quantize", "quantized", "i", call.outSinfo, [&](const ComputeBuilder::Indices &i) {
      Expr value = ir::bufferLoad(*data, i), scale = param(0, i);
      Expr scaled = folded[0] && scale.isa<ir::FloatImm>()
                        ? ir::makeBinary(ir::NodeKind::Mul, value,
                                         ir::floatImm(1.0 / scale.as<ir::FloatImm>()->value, scale->dtype))
                        : ir::makeBinary(ir::NodeKind::Div, value, scale);
      if (!out.isFloat()) scaled = ir::make<ir::Call>(scaled->dtype, "tir.round", std::vector<Expr>{scaled});
      return clipCast(ir::makeBinary(ir::NodeKind::Add, scaled, param(1, i)), out);
    });
  return builder.compute("dequantize", "dequantized", "i", call.outSinfo, [&](const ComputeBuilder::Indices &i) {
    ir::DataType wide = (*data)->dtype.isFloat() ? ir::DataType::float32() : ir::DataType::int32();
    Expr shifted = ir::makeBinary(ir::NodeKind::Sub, ir::castExpr(wide, ir::bufferLoad(*data, i)), param(1, i));
    Expr value = ir::makeBinary(ir::NodeKind::Mul, shifted, ir::castExpr(ir::DataType::float32(), param(0, i)));
    return out == ir::DataType::float32() ? value : clipCast(value, out);
  });
}

}  // namespace vtac::passes::legalize

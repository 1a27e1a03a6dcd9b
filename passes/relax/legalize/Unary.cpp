// legalize-ops for R.clip: topi.clip, `compute[i] = T.max(T.min(x[i], max), min)` in block
// `compute` with iterators i0, i1, ... and TVM's name hint "tir_clip" (TVM's
// legalize_ops/unary.py, topi/math.py); the bounds become constants of x's element type
// (relax::clipBoundOf).
#include "Legalize.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

llvm::Expected<LegalizedOperator> legalizeClip(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const auto &bounds = std::get<relax::ClipAttrs>(call.attrs);
  Expr min = relax::clipBoundOf(bounds.min, (*data)->dtype), max = relax::clipBoundOf(bounds.max, (*data)->dtype);
  return builder.compute("tir_clip", "compute", "i", call.outSinfo, [&](const ComputeBuilder::Indices &i) {
    return ir::binary(ir::NodeKind::Max, ir::binary(ir::NodeKind::Min, ir::bufferLoad(*data, i), max), min);
  });
}

}  // namespace vtac::passes::legalize

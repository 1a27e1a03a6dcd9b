// legalize-ops for R.permute_dims: topi.transpose, `T_transpose[ax] = x[ax permuted back]` in
// block `T_transpose` with iterators ax0, ax1, ... (TVM's legalize_ops/manipulate.py,
// topi/transform.h): dimension i of the result is dimension axes[i] of the operand, so the
// operand's index at axes[i] is the result's iterator i.
#include "Legalize.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

llvm::Expected<LegalizedOperator> legalizeManipulate(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  // The reader checked the axes against the operand's rank.
  std::vector<int64_t> axes = *relax::normalizedAxes(call.axes, int((*data)->rank()));
  return builder.compute("transpose", "T_transpose", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) {
    std::vector<Expr> indices(axes.size());
    for (size_t i = 0; i < axes.size(); ++i) indices[size_t(axes[i])] = ax[i];
    return ir::bufferLoad(*data, indices);
  });
}

}  // namespace vtac::passes::legalize

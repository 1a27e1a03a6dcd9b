// legalize-ops for R.nn.relu: topi.nn.relu, `compute[i] = T.max(x[i], 0)` in block `compute`
// with iterators i0, i1, ... (TVM's legalize_ops/nn.py, topi/nn/elemwise.py).
#include "Legalize.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

llvm::Expected<LegalizedOperator> legalizeNn(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  Expr zero = zeroOf((*data)->dtype);
  return builder.compute("relu", "compute", "i", call.outSinfo, [&](const ComputeBuilder::Indices &i) {
    return ir::binary(ir::NodeKind::Max, ir::bufferLoad(*data, i), zero);
  });
}

}  // namespace vtac::passes::legalize

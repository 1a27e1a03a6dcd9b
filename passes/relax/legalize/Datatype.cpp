// legalize-ops for R.astype: topi.cast, `compute[i] = T.Cast(dtype, x[i])` in block `compute`
// with iterators i0, i1, ... (TVM's legalize_ops/datatype.py, topi/elemwise.h).
#include "Legalize.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;

llvm::Expected<LegalizedOperator> legalizeDatatype(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  return builder.compute("cast", "compute", "i", call.outSinfo, [&](const ComputeBuilder::Indices &i) -> ir::Expr {
    ir::Expr value = ir::bufferLoad(*data, i);
    // topi.cast of a value that has the type already is the value.
    if (value->dtype == call.outDtype) return value;
    return ir::make<ir::Cast>(call.outDtype, value);
  });
}

}  // namespace vtac::passes::legalize

// legalize-ops for R.take (TVM's legalize_ops/index.py: topi.take with mode="fast"): block
// `T_take` over the result's shape (iterators ax0, ax1, ...), the tensor read with the axis'
// index taken from the indices at the iterators that replaced it, `x[ax0, indices[ax1], ax2]`;
// a scalar index written at the call (R.prim_value(0), R.prim_value(n - 1)) is folded into the
// read. Like TVM's fast mode, the indices are not clamped: one out of range reads outside the
// tensor. axis=None (a 1-D tensor) is taken as axis 0 (TVM's topi.take flattens the tensor
// first, the same elements).
#include "Legalize.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

llvm::Expected<LegalizedOperator> legalizeIndex(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const relax::Arg &indicesArg = call.args[1];
  ir::BufferRef indices;
  Expr scalar;  // the folded index
  if (indicesArg.prim) {
    scalar = builder.shapeOf(relax::TensorStructInfo::known({indicesArg.prim}, ir::DataType::int64())).front();
  } else if (indicesArg.sinfo().isTensor()) {
    llvm::Expected<ir::BufferRef> buffer = builder.input(indicesArg);
    if (!buffer) return buffer.takeError();
    indices = *buffer;
  } else {
    return ir::diagnosticError(indicesArg.loc, "legalize-ops cannot pass a scalar variable to the prim_func of R.take "
                                               "yet (R.prim_value of sizes and tensors of indices are supported)");
  }
  int64_t rank = int64_t((*data)->rank()), axis = call.axes ? call.axes->front() : 0;
  size_t along = size_t(axis < 0 ? axis + rank : axis);
  size_t taken = indices ? indices->rank() : 0;
  return builder.compute("take", "T_take", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) {
    std::vector<Expr> at(ax.begin(), ax.begin() + long(along));
    at.push_back(indices ? ir::bufferLoad(indices, {ax.begin() + long(along), ax.begin() + long(along + taken)}) : scalar);
    at.insert(at.end(), ax.begin() + long(along + taken), ax.end());
    return ir::bufferLoad(*data, at);
  });
}

}  // namespace vtac::passes::legalize

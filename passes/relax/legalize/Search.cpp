// legalize-ops for R.where (TVM's legalize_ops/search.py, topi.where): block `T_where` over the
// result's shape (iterators ax0, ax1, ...), each operand indexed as topi's broadcast indexes it
// against the result's shape, `T.Select(T.int64(0) < T.Cast("int64", condition[..]), x1[..],
// x2[..])` as TVM's expected output (test_transform_legalize_ops_search_statistical.py) has it.
#include "Legalize.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::DataType;
using ir::Expr;

llvm::Expected<LegalizedOperator> legalizeSearch(const relax::Call &call) {
  ComputeBuilder builder;
  ir::BufferRef operands[3];
  for (size_t i = 0; i < 3; ++i) {
    llvm::Expected<ir::BufferRef> buffer = builder.input(call.args[i]);
    if (!buffer) return buffer.takeError();
    operands[i] = *buffer;
  }
  std::vector<Expr> shape = builder.shapeOf(call.outSinfo);
  return builder.compute("where", "T_where", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) {
    auto load = [&](size_t i) { return ir::bufferLoad(operands[i], broadcastIndices(ax, operands[i]->shape, shape)); };
    Expr condition = ir::binary(ir::NodeKind::LT, ir::intImm(0, DataType::int64()),
                                ir::make<ir::Cast>(DataType::int64(), load(0)));
    return Expr(ir::make<ir::Select>(condition, load(1), load(2)));
  });
}

}  // namespace vtac::passes::legalize

// legalize-ops for the elementwise binary operators: R.add, subtract, multiply, divide, maximum
// and minimum become topi's broadcast computes (TVM's legalize_ops/binary.py with
// topi/broadcast.h): block `T_add` (`T_subtract`, ...) over the result's shape with iterators
// ax0, ax1, ...; each operand is indexed by the result's iterators aligned at the last
// dimension, with 0 where it broadcasts (its size is 1 and the other's is not). A scalar
// R.const operand is folded into the expression (the second first, as TVM tries it), so the
// prim_func takes only the other tensor.
#include "Legalize.h"

#include <cassert>

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

llvm::Expected<LegalizedOperator> legalizeBinary(const relax::Call &call) {
  static const std::vector<std::pair<llvm::StringRef, ir::NodeKind>> kinds = {
      {"add", ir::NodeKind::Add},         {"subtract", ir::NodeKind::Sub}, {"multiply", ir::NodeKind::Mul},
      {"divide", ir::NodeKind::Div},      {"maximum", ir::NodeKind::Max},  {"minimum", ir::NodeKind::Min}};
  auto kind = std::find_if(kinds.begin(), kinds.end(), [&](const auto &k) { return k.first == call.callee; });
  assert(kind != kinds.end() && "every elementwise binary operator has a TIR operation");
  // TVM folds the second operand when it is a scalar constant, else tries the first.
  Expr folded[2] = {nullptr, scalarConstant(call.args[1])};
  if (!folded[1]) folded[0] = scalarConstant(call.args[0]);

  ComputeBuilder builder;
  ir::BufferRef buffers[2];
  std::vector<Expr> shapes[2];
  for (size_t i = 0; i < 2; ++i) {
    if (folded[i]) continue;
    llvm::Expected<ir::BufferRef> buffer = builder.input(call.args[i]);
    if (!buffer) return buffer.takeError();
    buffers[i] = *buffer;
    shapes[i] = buffers[i]->shape;
  }
  auto operand = [&](size_t i, const ComputeBuilder::Indices &axes) -> Expr {
    if (folded[i]) return folded[i];
    return ir::bufferLoad(buffers[i], broadcastIndices(axes, shapes[i], shapes[1 - i]));
  };
  return builder.compute(call.callee, "T_" + call.callee, "ax", call.outSinfo, [&](const ComputeBuilder::Indices &axes) {
    return ir::binary(kind->second, operand(0, axes), operand(1, axes));
  });
}

}  // namespace vtac::passes::legalize

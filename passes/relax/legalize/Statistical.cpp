// legalize-ops for R.sum, R.max, R.min and R.mean: topi's reductions (TVM's
// legalize_ops/statistical.py, topi/reduction.h). One block named after the operand plus "_red"
// (`x_red`) over the result's dimensions (iterators ax0, ax1, ...; a kept dimension is one of
// them, of size 1) then the reduced ones (iterators k<dimension>: k1, k2), starting from 0
// (sum), the type's lowest value (max) or highest (min) and combining with +, T.max or T.min.
// R.mean sums into an intermediate `x_red` and divides in block `T_divide`: a multiplication by
// the reciprocal of the constant element count (as TVM's simplifier leaves a division by a
// constant), else a division by the count cast to the element type.
#include "Legalize.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/ExtremeValue.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::DataType;
using ir::Expr;

llvm::Expected<LegalizedOperator> legalizeStatistical(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const ir::BufferRef &x = *data;
  DataType dtype = x->dtype;
  bool mean = call.callee == "mean";
  if (mean && !dtype.isFloat())
    return ir::diagnosticError(call.args[0].loc, "legalize-ops: R.mean of " + dtype.str() + " is not supported yet "
                                                 "(float tensors only)");

  // The reader checked the axes against the operand's rank.
  std::vector<bool> reduced = *relax::reducedDimensions(call.axes, int(x->rank()));
  ComputeBuilder::Reduction reduction;
  Expr count;  // mean: the number of elements reduced
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (!reduced[d]) continue;
    reduction.axes.emplace_back(x->shape[d], "k" + std::to_string(d));
    const auto *known = count ? count.as<ir::IntImm>() : nullptr, *size = x->shape[d].as<ir::IntImm>();
    count = !count          ? x->shape[d]
            : known && size ? ir::make<ir::IntImm>(count->dtype, known->value * size->value)
                            : ir::binary(ir::NodeKind::Mul, count, x->shape[d]);
  }
  reduction.init = call.callee == "max" ? ir::extremeValue(dtype, false)
                   : call.callee == "min" ? ir::extremeValue(dtype, true)
                                          : zeroOf(dtype);
  reduction.combine = call.callee == "max" ? ir::NodeKind::Max
                      : call.callee == "min" ? ir::NodeKind::Min
                                             : ir::NodeKind::Add;
  // The operand's index: a reduction iterator where reduced, else the result's iterator (the
  // same position when dimensions are kept, the next unreduced one when they are dropped).
  auto operand = [&](const ComputeBuilder::Indices &ax, const ComputeBuilder::Indices &ks) {
    std::vector<Expr> indices;
    size_t k = 0, kept = 0;
    for (size_t d = 0; d < reduced.size(); ++d) {
      if (reduced[d]) indices.push_back(ks[k++]);
      else indices.push_back(ax[call.keepdims ? d : kept]);
      kept += !reduced[d];
    }
    return ir::bufferLoad(x, indices);
  };
  std::string block = x->name + "_red";
  if (!mean) return builder.reduce(call.callee, block, "ax", call.outSinfo, reduction, operand);

  llvm::Expected<ir::BufferRef> sum = builder.reduceStage(block, "ax", call.outSinfo, reduction, operand);
  if (!sum) return sum.takeError();
  Expr divisor = count ? count : ir::intImm(1, DataType::int64());
  return builder.compute("mean", "T_divide", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) -> Expr {
    Expr total = ir::bufferLoad(*sum, ax);
    if (const auto *constant = divisor.as<ir::IntImm>())
      return ir::binary(ir::NodeKind::Mul, total, ir::floatImm(1.0 / double(constant->value), dtype));
    return ir::binary(ir::NodeKind::Div, total, ir::make<ir::Cast>(dtype, divisor));
  });
}

}  // namespace vtac::passes::legalize

// legalize-ops for R.matmul: the te compute of TVM's legalize_ops/linear_algebra.py, a sum
// over k in block `matmul` with iterators i0, i1, ... and k. A rank-1 operand is a row (left)
// or column (right) whose unit dimension is not indexed; batch dimensions are indexed by the
// result's iterators, with 0 for an operand whose size there is 1 unless both sizes are the
// same constant; with an out_dtype other than the operands', both are cast to it first.
#include "Legalize.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

namespace {

Expr castTo(ir::DataType dtype, Expr value) {
  if (dtype.isVoid() || value->dtype == dtype) return value;
  return ir::make<ir::Cast>(dtype, std::move(value));
}

}  // namespace

llvm::Expected<LegalizedOperator> legalizeLinearAlgebra(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> a = builder.input(call.args[0]);
  if (!a) return a.takeError();
  llvm::Expected<ir::BufferRef> b = builder.input(call.args[1]);
  if (!b) return b.takeError();
  const std::vector<Expr> &aShape = (*a)->shape, &bShape = (*b)->shape;
  bool prepended = aShape.size() == 1, appended = bShape.size() == 1;
  size_t aRank = aShape.size() + prepended, bRank = bShape.size() + appended;
  bool aLarger = aRank > bRank;
  size_t offset = aLarger ? aRank - bRank : bRank - aRank;
  size_t batch = std::max(aRank, bRank) - 2;
  return builder.sum(
      "matmul", "matmul", "i", call.outSinfo, aShape.back(),
      [&](const ComputeBuilder::Indices &i, const Expr &k) {
        std::vector<Expr> aIndices, bIndices;
        for (size_t d = 0; d < offset; ++d) (aLarger ? aIndices : bIndices).push_back(i[d]);
        for (size_t d = offset; d < batch; ++d) {
          const Expr &aDim = aShape[aLarger ? d : d - offset], &bDim = bShape[aLarger ? d - offset : d];
          // TVM compares the sizes with `==`, which folds to a constant only for two constants.
          bool equalConstants = aDim.isa<ir::IntImm>() && relax::sizesProvablyEqual(aDim, bDim);
          Expr zero = ir::make<ir::IntImm>(i[d]->dtype, 0);
          aIndices.push_back(!equalConstants && relax::isConstantSize(aDim, 1) ? zero : i[d]);
          bIndices.push_back(!equalConstants && relax::isConstantSize(bDim, 1) ? zero : i[d]);
        }
        if (!prepended) aIndices.push_back(i[i.size() - 2 + appended]);
        aIndices.push_back(k);
        bIndices.push_back(k);
        if (!appended) bIndices.push_back(i.back());
        return ir::binary(ir::NodeKind::Mul, castTo(call.outDtype, ir::bufferLoad(*a, aIndices)),
                          castTo(call.outDtype, ir::bufferLoad(*b, bIndices)));
      });
}

}  // namespace vtac::passes::legalize

// legalize-ops for the index operators (TVM's legalize_ops/index.py):
// - R.take: topi.take with mode="fast", block `T_take` over the result's shape (iterators ax0,
//   ax1, ...), the tensor read with the axis' index taken from the indices at the iterators
//   that replaced it, `x[ax0, indices[ax1], ax2]`; a scalar index written at the call
//   (R.prim_value(0), R.prim_value(n - 1)) is folded into the read. Like TVM's fast mode, the
//   indices are not clamped: one out of range reads outside the tensor (both engines stop
//   there). axis=None (a 1-D tensor) is taken as axis 0 (TVM's topi.take flattens the tensor
//   first, the same elements).
// - R.strided_slice: topi.strided_slice of constant bounds, block `T_strided_slice_with_axes`,
//   the operand read at `ax * stride + begin` along each sliced axis.
#include "Legalize.h"

#include <cstdlib>

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

namespace {

// topi.strided_slice (static bounds): block `T_strided_slice_with_axes`, the operand read at
// `ax * stride + begin` along each sliced axis (begin canonical: counted from the start and
// clamped), in the forms TVM's simplifier leaves: `ax + 1`, `ax * 2 + 1`, `8 - ax * 3`.
llvm::Expected<LegalizedOperator> legalizeStridedSlice(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const auto &attrs = std::get<relax::StridedSliceAttrs>(call.attrs);
  int64_t rank = int64_t((*data)->rank());
  // The reader checked the axes and the sliced sizes (constant).
  std::vector<std::pair<int64_t, int64_t>> slices(size_t(rank), {0, 1});  // begin, stride per dimension
  for (size_t i = 0; i < call.axes->size(); ++i) {
    int64_t axis = (*call.axes)[i] < 0 ? (*call.axes)[i] + rank : (*call.axes)[i];
    slices[size_t(axis)] = {relax::stridedSliceBounds(attrs, i, (*data)->shape[size_t(axis)])->begin, attrs.strides[i]};
  }
  return builder.compute("strided_slice", "T_strided_slice_with_axes", "ax", call.outSinfo,
                         [&](const ComputeBuilder::Indices &ax) {
                           std::vector<Expr> indices;
                           for (size_t d = 0; d < ax.size(); ++d) {
                             auto [begin, stride] = slices[d];
                             auto constant = [&](int64_t value) { return ir::make<ir::IntImm>(ax[d]->dtype, value); };
                             Expr scaled = stride == 1 || stride == -1 ? ax[d] : ir::binary(ir::NodeKind::Mul, ax[d], constant(std::abs(stride)));
                             if (stride < 0) indices.push_back(ir::binary(ir::NodeKind::Sub, constant(begin), scaled));
                             else indices.push_back(begin ? ir::binary(ir::NodeKind::Add, scaled, constant(begin)) : scaled);
                           }
                           return ir::bufferLoad(*data, indices);
                         });
}

}  // namespace

llvm::Expected<LegalizedOperator> legalizeIndex(const relax::Call &call) {
  if (call.callee == "strided_slice") return legalizeStridedSlice(call);
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

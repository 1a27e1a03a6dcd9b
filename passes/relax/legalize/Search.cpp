// legalize-ops for R.where (TVM's legalize_ops/search.py, topi.where): block `T_where` over the
// result's shape (iterators ax0, ax1, ...), each operand indexed as topi's broadcast indexes it
// against the result's shape, `T.Select(T.int64(0) < T.Cast("int64", condition[..]), x1[..],
// x2[..])` as TVM's expected output (test_transform_legalize_ops_search_statistical.py) has it.
// R.argmax and R.argmin (topi::CommReduceIdx): a tuple reduction of (index, value) pairs over
// the reduced dimensions (iterators k<dimension>; the index raveled over them, see ravel) in block
// `<x>_red_temp`, starting from (-1, the lowest / highest value) and keeping the greater
// (smaller) value, the earlier index among equal ones; then block `<x>_red` copies the indices.
#include "Legalize.h"

#include <algorithm>

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/ExtremeValue.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::DataType;
using ir::Expr;

namespace {

// topi's RavelIndex of the reduction iterators in the reduced sizes, as TVM's expected outputs
// have it: `((k0 * b + k1) * c + k2) * d + k3` when a size is symbolic, each iterator times its
// constant stride when none is (`k0 * 60 + k1 * 20 + k2 * 5 + k3`).
Expr ravel(const std::vector<Expr> &ks, const std::vector<Expr> &sizes) {
  bool constant = std::all_of(sizes.begin(), sizes.end(), [](const Expr &size) { return size.isa<ir::IntImm>(); });
  if (!constant) {
    Expr index = ks[0];
    for (size_t i = 1; i < ks.size(); ++i)
      index = ir::binary(ir::NodeKind::Add, ir::binary(ir::NodeKind::Mul, index, sizes[i]), ks[i]);
    return index;
  }
  Expr index;
  int64_t stride = 1;
  std::vector<Expr> terms(ks.size());
  for (size_t i = ks.size(); i-- > 0;) {
    terms[i] = stride == 1 ? ks[i] : ir::binary(ir::NodeKind::Mul, ks[i], ir::make<ir::IntImm>(ks[i]->dtype, stride));
    stride *= sizes[i].as<ir::IntImm>()->value;
  }
  for (const Expr &term : terms) index = index ? ir::binary(ir::NodeKind::Add, index, term) : term;
  return index;
}

llvm::Expected<LegalizedOperator> legalizeArgReduce(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const ir::BufferRef &x = *data;
  if (x->rank() == 0)
    return ir::diagnosticError(call.args[0].loc, "legalize-ops: R." + call.callee + " of a 0-d tensor is not "
                                                 "supported (topi cannot reduce it)");
  bool largest = call.callee == "argmax";
  // The reader checked the axis against the operand's rank.
  std::vector<bool> reduced = *relax::reducedDimensions(call.axes, int(x->rank()));
  ComputeBuilder::TupleReduction pairs;
  std::vector<Expr> reducedSizes;
  for (size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d]) {
      pairs.axes.emplace_back(x->shape[d], "k" + std::to_string(d));
      reducedSizes.push_back(x->shape[d]);
    }
  pairs.dtypes = {DataType::int64(), x->dtype};
  pairs.inits = {ir::intImm(-1, DataType::int64()), ir::extremeValue(x->dtype, !largest)};
  pairs.combine = [&](const ComputeBuilder::Indices &acc, const ComputeBuilder::Indices &next) {
    Expr better = ir::binary(largest ? ir::NodeKind::GT : ir::NodeKind::LT, acc[1], next[1]);
    Expr tie = ir::binary(ir::NodeKind::And, ir::binary(ir::NodeKind::EQ, acc[1], next[1]),
                          ir::binary(ir::NodeKind::LT, acc[0], next[0]));
    Expr keepIndex = ir::binary(ir::NodeKind::Or, better, tie);
    return ComputeBuilder::Indices{ir::make<ir::Select>(keepIndex, acc[0], next[0]),
                                   ir::make<ir::Select>(better, acc[1], next[1])};
  };
  std::vector<Expr> shape = builder.shapeOf(call.outSinfo);
  std::vector<ir::BufferRef> temps =
      builder.tupleReduceStage(x->name + "_red_temp", "ax", shape, pairs, [&](const ComputeBuilder::Indices &ax,
                                                                              const ComputeBuilder::Indices &ks) {
        std::vector<Expr> indices;
        size_t a = 0, k = 0;
        for (size_t d = 0; d < reduced.size(); ++d)
          indices.push_back(reduced[d] ? ks[k++] : call.keepdims ? ax[d] : ax[a++]);
        return ComputeBuilder::Indices{ravel(ks, reducedSizes), ir::bufferLoad(x, indices)};
      });
  return builder.compute(call.callee, x->name + "_red", "ax", call.outSinfo,
                         [&](const ComputeBuilder::Indices &ax) { return ir::bufferLoad(temps[0], ax); });
}

}  // namespace

llvm::Expected<LegalizedOperator> legalizeSearch(const relax::Call &call) {
  if (call.callee == "argmax" || call.callee == "argmin") return legalizeArgReduce(call);
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

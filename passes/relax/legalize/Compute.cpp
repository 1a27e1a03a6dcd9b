// ComputeBuilder: te.compute + te.create_prim_func for legalize-ops (see Legalize.h).
#include "Legalize.h"

#include <algorithm>

#include <llvm/ADT/StringExtras.h>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/RegionInference.h"
#include "vtac/ir/Stmt.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::DataType;
using ir::Expr;

ir::Expr zeroOf(DataType dtype) { return dtype.isFloat() ? ir::floatImm(0, dtype) : ir::intImm(0, dtype); }

ir::Expr unaryIntrinsic(const std::string &name, Expr x) {
  DataType dtype = x->dtype;
  return ir::make<ir::Call>(dtype, name, std::vector<Expr>{std::move(x)});
}

std::vector<Expr> broadcastIndices(const std::vector<Expr> &axes, const std::vector<Expr> &mine,
                                   const std::vector<Expr> &other) {
  std::vector<Expr> indices;
  for (size_t i = 0; i < mine.size(); ++i) {
    size_t axis = axes.size() - mine.size() + i;
    const Expr *theirs = axis + other.size() >= axes.size() ? &other[axis + other.size() - axes.size()] : nullptr;
    bool broadcast = relax::isConstantSize(mine[i], 1) && theirs && !relax::sizesProvablyEqual(mine[i], *theirs);
    indices.push_back(broadcast ? ir::make<ir::IntImm>(axes[axis]->dtype, 0) : axes[axis]);
  }
  return indices;
}

ir::Expr scalarConstant(const relax::Arg &arg) {
  return arg.constant && arg.constant->scalar ? arg.constant->scalar : nullptr;
}

std::vector<Expr> ComputeBuilder::shapeOf(const relax::TensorStructInfo &sinfo) {
  std::vector<Expr> shape;
  for (const Expr &dim : *sinfo.shape) {
    // Constants, symbolic sizes, or compound sizes (n * 2) with each size replaced.
    ir::preOrderVisit(dim, [&](const ir::Node &node) {
      if (const auto *var = node.as<ir::Var>(); var && !sizes_.count(var))
        sizes_.emplace(var, ir::makeVar(var->name, var->dtype));
    });
    shape.push_back(ir::substitute(dim, sizes_));
  }
  return shape;
}

llvm::Expected<ir::BufferRef> ComputeBuilder::input(const relax::Arg &arg) {
  relax::StructInfo sinfo = arg.sinfo();
  if (!sinfo.isTensor() || !sinfo.tensor.shape || sinfo.tensor.dtype.isVoid())
    return ir::diagnosticError(arg.loc, "legalize-ops needs the shape and element type of each argument; this one is " +
                                            relax::printStructInfo(sinfo));
  std::string name = arg.var ? arg.var->name : std::string(1, char('A' + inputs_.size() % 26));
  ir::BufferRef buffer = ir::makeBuffer(name, sinfo.tensor.dtype, shapeOf(sinfo.tensor));
  args_.push_back(arg);
  inputs_.push_back(buffer);
  return buffer;
}

llvm::Expected<LegalizedOperator> ComputeBuilder::compute(std::string nameHint, const std::string &block,
                                                          const AxisNames &axisNames, const relax::TensorStructInfo &out,
                                                          std::function<Expr(const Indices &)> value,
                                                          ir::AttrMap annotations) {
  return build(std::move(nameHint), block, axisNames, out, nullptr,
               [&](const Indices &indices, const Indices &) { return value(indices); }, std::move(annotations));
}

llvm::Expected<LegalizedOperator> ComputeBuilder::sum(std::string nameHint, const std::string &block,
                                                      const AxisNames &axisNames, const relax::TensorStructInfo &out,
                                                      Expr extent, std::function<Expr(const Indices &, const Expr &)> value) {
  Reduction reduction{{{std::move(extent), "k"}}, zeroOf(out.dtype), ir::NodeKind::Add};
  return build(std::move(nameHint), block, axisNames, out, &reduction,
               [&](const Indices &indices, const Indices &k) { return value(indices, k.front()); }, {});
}

llvm::Expected<LegalizedOperator> ComputeBuilder::reduce(std::string nameHint, const std::string &block,
                                                         const AxisNames &axisNames, const relax::TensorStructInfo &out,
                                                         const Reduction &reduction,
                                                         std::function<Expr(const Indices &, const Indices &)> value,
                                                         ir::AttrMap annotations) {
  return build(std::move(nameHint), block, axisNames, out, &reduction, value, std::move(annotations));
}

// The result's shape and element type, or an error at its struct info.
static llvm::Error requireKnown(const relax::TensorStructInfo &out) {
  if (out.shape && !out.dtype.isVoid()) return llvm::Error::success();
  return ir::diagnosticError(out.loc, "legalize-ops needs the shape and element type of the result; it is " +
                                          relax::printStructInfo(out));
}

llvm::Expected<ir::BufferRef> ComputeBuilder::reduceStage(const std::string &block, const AxisNames &axisNames,
                                                          const relax::TensorStructInfo &out, const Reduction &reduction,
                                                          std::function<Expr(const Indices &, const Indices &)> value) {
  if (llvm::Error error = requireKnown(out)) return error;
  return reduceStage(block, axisNames, out.dtype, shapeOf(out), reduction, value);
}

ir::BufferRef ComputeBuilder::reduceStage(const std::string &block, const AxisNames &axisNames, DataType dtype,
                                          std::vector<Expr> shape, const Reduction &reduction,
                                          const std::function<Expr(const Indices &, const Indices &)> &value) {
  ir::BufferRef buffer = ir::makeBuffer(block, dtype, std::move(shape));
  intermediates_.push_back(buffer);
  stages_.push_back(stage(buffer, axisNames, &reduction, value));
  return buffer;
}

ir::BufferRef ComputeBuilder::computeStage(const std::string &block, const AxisNames &axisNames, DataType dtype,
                                           std::vector<Expr> shape, const std::function<Expr(const Indices &)> &value) {
  ir::BufferRef buffer = ir::makeBuffer(block, dtype, std::move(shape));
  intermediates_.push_back(buffer);
  stages_.push_back(stage(buffer, axisNames, nullptr, [&](const Indices &indices, const Indices &) { return value(indices); }));
  return buffer;
}

ir::BufferRef ComputeBuilder::pad(const ir::BufferRef &data, const std::vector<int64_t> &before,
                                  const std::vector<int64_t> &after, Expr padValue, bool bothBounds,
                                  const std::string &block, const AxisNames &axisNames) {
  std::vector<Expr> shape;
  for (size_t d = 0; d < data->shape.size(); ++d)
    shape.push_back(ir::simplify(ir::addExpr(data->shape[d], ir::make<ir::IntImm>(data->shape[d]->dtype, before[d] + after[d]))));
  return computeStage(block, axisNames, data->dtype, shape, [&](const Indices &ax) {
    std::vector<Expr> indices;
    Expr inside;  // the conjunction, left to right, as tvm.tir.all builds it
    auto require = [&](Expr condition) { inside = inside ? ir::binary(ir::NodeKind::And, inside, condition) : condition; };
    for (size_t d = 0; d < ax.size(); ++d) {
      if (!before[d] && !after[d]) {
        indices.push_back(ax[d]);
        continue;
      }
      auto constant = [&](int64_t value) { return ir::make<ir::IntImm>(ax[d]->dtype, value); };
      indices.push_back(ir::subExpr(ax[d], constant(before[d])));
      if (before[d] || bothBounds) require(ir::binary(ir::NodeKind::LE, constant(before[d]), ax[d]));
      if (after[d] || bothBounds)
        require(ir::binary(ir::NodeKind::LT, ax[d], ir::simplify(ir::addExpr(data->shape[d], constant(before[d])))));
    }
    Expr load = ir::bufferLoad(data, indices);
    if (!inside) return load;
    return Expr(ir::make<ir::Call>(load->dtype, "tir.if_then_else", std::vector<Expr>{inside, load, padValue}));
  });
}

ir::Stmt ComputeBuilder::loopNest(const std::string &block, const std::vector<Expr> &spatial,
                                  const AxisNames &axisNames,
                                  const std::vector<std::pair<Expr, std::string>> &reduceAxes,
                                  const std::function<BlockStatements(const Indices &, const Indices &)> &statements,
                                  ir::AttrMap annotations) {
  std::vector<Expr> extents = spatial;
  for (const auto &axis : reduceAxes) extents.push_back(axis.first);
  std::vector<ir::VarRef> loops;
  std::vector<ir::IterVarRef> iterators;
  Indices axes, ks;
  for (size_t i = 0; i < extents.size(); ++i) {
    bool reducing = i >= spatial.size();
    DataType dtype = extents[i]->dtype;
    loops.push_back(ir::makeVar("i" + std::to_string(i), dtype));
    ir::VarRef axis = ir::makeVar(reducing ? reduceAxes[i - spatial.size()].second : axisNames(i), dtype);
    iterators.push_back(ir::make<ir::IterVar>(axis, ir::rangeFromExtent(extents[i]),
                                              reducing ? ir::IterType::CommReduce : ir::IterType::DataPar));
    (reducing ? ks : axes).push_back(axis);
  }
  BlockStatements made = statements(axes, ks);
  // A block of no iterators (a 0-d result computed elementwise) gets te.create_prim_func's
  // dummy one, `vi = T.axis.spatial(1, 0)`.
  std::vector<Expr> bindings(loops.begin(), loops.end());
  if (iterators.empty()) {
    DataType dtype = DataType::int64();
    iterators.push_back(ir::make<ir::IterVar>(ir::makeVar("vi", dtype), ir::rangeFromExtent(ir::intImm(1, dtype)),
                                              ir::IterType::DataPar));
    bindings.push_back(ir::intImm(0, dtype));
  }
  auto unannotated = ir::make<ir::Block>(block, iterators, std::vector<ir::BufferRegion>{},
                                         std::vector<ir::BufferRegion>{}, made.body, made.init);
  ir::BlockAccessRegions regions = ir::inferAccessRegions(*unannotated);
  auto annotated = ir::make<ir::Block>(block, iterators, regions.reads, regions.writes, made.body, made.init,
                                       std::vector<ir::BufferRef>{}, std::vector<ir::MatchBufferRegion>{},
                                       std::move(annotations));
  ir::Stmt body = ir::make<ir::BlockRealize>(bindings, nullptr, annotated);
  for (size_t i = extents.size(); i-- > 0;)
    body = ir::make<ir::For>(loops[i], ir::make<ir::IntImm>(extents[i]->dtype, 0), extents[i], ir::ForKind::Serial, body);
  return body;
}

ir::Stmt ComputeBuilder::stage(const ir::BufferRef &output, const AxisNames &axisNames, const Reduction *reduction,
                               const std::function<Expr(const Indices &, const Indices &)> &value,
                               ir::AttrMap annotations) {
  std::vector<std::pair<Expr, std::string>> reduceAxes;
  if (reduction) reduceAxes = reduction->axes;
  auto statements = [&](const Indices &axes, const Indices &ks) {
    Expr computed = value(axes, ks);
    ir::Stmt init;
    if (reduction) {
      init = ir::make<ir::BufferStore>(output, reduction->init, axes);
      computed = ir::binary(reduction->combine, ir::bufferLoad(output, axes), computed);
    }
    return BlockStatements{ir::make<ir::BufferStore>(output, computed, axes), init};
  };
  return loopNest(output->name, output->shape, axisNames, reduceAxes, statements, std::move(annotations));
}

std::vector<ir::BufferRef> ComputeBuilder::tupleReduceStage(const std::string &block, const AxisNames &axisNames,
                                                            std::vector<Expr> shape, const TupleReduction &reduction,
                                                            const std::function<Indices(const Indices &, const Indices &)> &values) {
  std::vector<ir::BufferRef> buffers;
  for (size_t j = 0; j < reduction.dtypes.size(); ++j) {
    buffers.push_back(ir::makeBuffer(block + "_v" + std::to_string(j), reduction.dtypes[j], shape));
    intermediates_.push_back(buffers.back());
  }
  auto statements = [&](const Indices &axes, const Indices &ks) {
    Indices accumulated;
    std::vector<ir::Stmt> inits, stores;
    std::vector<ir::VarRef> bound;
    for (size_t j = 0; j < buffers.size(); ++j) {
      accumulated.push_back(ir::bufferLoad(buffers[j], axes));
      inits.push_back(ir::make<ir::BufferStore>(buffers[j], reduction.inits[j], axes));
      bound.push_back(ir::makeVar("v_" + buffers[j]->name, reduction.dtypes[j]));
      stores.push_back(ir::make<ir::BufferStore>(buffers[j], bound.back(), axes));
    }
    Indices combined = reduction.combine(accumulated, values(axes, ks));
    ir::Stmt body = ir::seq(stores);
    for (size_t j = buffers.size(); j-- > 0;) body = ir::make<ir::LetStmt>(bound[j], combined[j], body);
    return BlockStatements{body, ir::seq(inits)};
  };
  stages_.push_back(loopNest(block, shape, axisNames, reduction.axes, statements, {}));
  return buffers;
}

llvm::Expected<LegalizedOperator> ComputeBuilder::build(std::string nameHint, const std::string &block,
                                                        const AxisNames &axisNames, const relax::TensorStructInfo &out,
                                                        const Reduction *reduction,
                                                        const std::function<Expr(const Indices &, const Indices &)> &value,
                                                        ir::AttrMap annotations) {
  if (llvm::Error error = requireKnown(out)) return error;
  ir::BufferRef output = ir::makeBuffer(block, out.dtype, shapeOf(out));
  stages_.push_back(stage(output, axisNames, reduction, value, std::move(annotations)));
  return finish(std::move(nameHint), {output}, out.loc);
}

llvm::Expected<LegalizedOperator> ComputeBuilder::computeEach(std::string nameHint, const std::vector<std::string> &blocks,
                                                              const AxisNames &axisNames,
                                                              const std::vector<relax::TensorStructInfo> &outs,
                                                              const std::function<Expr(size_t, const Indices &)> &value) {
  std::vector<ir::BufferRef> outputs;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (llvm::Error error = requireKnown(outs[i])) return error;
    outputs.push_back(ir::makeBuffer(blocks[i], outs[i].dtype, shapeOf(outs[i])));
    stages_.push_back(stage(outputs.back(), axisNames, nullptr,
                            [&](const Indices &indices, const Indices &) { return value(i, indices); }));
  }
  return finish(std::move(nameHint), outputs, outs.front().loc);
}

llvm::Expected<LegalizedOperator> ComputeBuilder::finishWithOutputs(std::string nameHint,
                                                                    const std::vector<ir::BufferRef> &outputs,
                                                                    ir::SourceLoc resultLoc) {
  for (const ir::BufferRef &output : outputs)
    intermediates_.erase(std::remove(intermediates_.begin(), intermediates_.end(), output), intermediates_.end());
  return finish(std::move(nameHint), outputs, resultLoc);
}

llvm::Expected<LegalizedOperator> ComputeBuilder::finish(std::string nameHint, const std::vector<ir::BufferRef> &outputs,
                                                         ir::SourceLoc resultLoc) {
  auto root = ir::make<ir::Block>("root", std::vector<ir::IterVarRef>{}, std::vector<ir::BufferRegion>{},
                                  std::vector<ir::BufferRegion>{}, ir::seq(stages_), nullptr, intermediates_);
  ir::Stmt body = ir::make<ir::BlockRealize>(std::vector<Expr>{}, nullptr, root);

  std::vector<ir::BufferRef> buffers = inputs_;
  buffers.insert(buffers.end(), outputs.begin(), outputs.end());
  // A size the prim_func can learn only from a dimension that is that size alone (TVM passes
  // the others as tir_vars, which vtac's R.call_tir does not take): refused, not guessed.
  std::vector<std::string> hidden;
  for (const auto &[relaxSize, size] : sizes_) {
    bool given = std::any_of(buffers.begin(), buffers.end(), [&, &size = size](const ir::BufferRef &buffer) {
      return std::any_of(buffer->shape.begin(), buffer->shape.end(), [&](const Expr &dim) { return dim == size; });
    });
    if (!given) hidden.push_back("'" + relaxSize->name + "'");
  }
  if (!hidden.empty()) {
    std::sort(hidden.begin(), hidden.end());
    return ir::diagnosticError(resultLoc, "legalize-ops cannot pass the size" + std::string(hidden.size() > 1 ? "s " : " ") +
                                            llvm::join(hidden, ", ") + " to the prim_func: no argument or result has " +
                                            (hidden.size() > 1 ? "them" : "it") +
                                            " as a dimension of its own (R.call_tir's tir_vars are not supported)");
  }
  std::vector<ir::VarRef> params;
  std::vector<std::pair<ir::VarRef, ir::BufferRef>> bufferMap;
  for (const ir::BufferRef &buffer : buffers) {
    ir::VarRef handle = ir::make<ir::Var>(buffer->name, DataType::handle());
    params.push_back(handle);
    bufferMap.emplace_back(handle, buffer);
  }
  ir::AttrMap attrs;
  attrs.set("tir.noalias", true);
  auto *func = new ir::PrimFunc(params, bufferMap, body, attrs);
  func->isPrivate = true;
  return LegalizedOperator{ir::PrimFuncRef(func), std::move(nameHint), args_, nullptr};
}

}  // namespace vtac::passes::legalize

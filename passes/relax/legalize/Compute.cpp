// ComputeBuilder: te.compute + te.create_prim_func for legalize-ops (see Legalize.h).
#include "Legalize.h"

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
                                                          const std::string &axisPrefix, const relax::TensorStructInfo &out,
                                                          std::function<Expr(const Indices &)> value) {
  return build(std::move(nameHint), block, axisPrefix, out, nullptr,
               [&](const Indices &indices, const Expr &) { return value(indices); });
}

llvm::Expected<LegalizedOperator> ComputeBuilder::sum(std::string nameHint, const std::string &block,
                                                      const std::string &axisPrefix, const relax::TensorStructInfo &out,
                                                      Expr extent, std::function<Expr(const Indices &, const Expr &)> value) {
  return build(std::move(nameHint), block, axisPrefix, out, std::move(extent), value);
}

llvm::Expected<LegalizedOperator> ComputeBuilder::build(std::string nameHint, const std::string &block,
                                                        const std::string &axisPrefix, const relax::TensorStructInfo &out,
                                                        Expr reduceExtent,
                                                        const std::function<Expr(const Indices &, const Expr &)> &value) {
  if (!out.shape || out.dtype.isVoid())
    return ir::diagnosticError(out.loc, "legalize-ops needs the shape and element type of the result; it is " +
                                            relax::printStructInfo(out));
  std::vector<Expr> shape = shapeOf(out);
  ir::BufferRef output = ir::makeBuffer(block, out.dtype, shape);

  // Loops i0, i1, ... (then the reduction's) bound to the block's iterators.
  std::vector<Expr> extents = shape;
  if (reduceExtent) extents.push_back(reduceExtent);
  std::vector<ir::VarRef> loops;
  std::vector<ir::IterVarRef> iterators;
  Indices axes;
  for (size_t i = 0; i < extents.size(); ++i) {
    bool reduction = reduceExtent && i + 1 == extents.size();
    DataType dtype = extents[i]->dtype;
    loops.push_back(ir::makeVar("i" + std::to_string(i), dtype));
    ir::VarRef axis = ir::makeVar(reduction ? "k" : axisPrefix + std::to_string(i), dtype);
    iterators.push_back(ir::make<ir::IterVar>(axis, ir::rangeFromExtent(extents[i]),
                                              reduction ? ir::IterType::CommReduce : ir::IterType::DataPar));
    if (!reduction) axes.push_back(axis);
  }
  Expr k = reduceExtent ? Expr(iterators.back()->var) : Expr();
  Expr computed = value(axes, k);
  ir::Stmt init;
  if (reduceExtent) {
    init = ir::make<ir::BufferStore>(output, zeroOf(out.dtype), axes);
    computed = ir::binary(ir::NodeKind::Add, ir::bufferLoad(output, axes), computed);
  }
  ir::Stmt store = ir::make<ir::BufferStore>(output, computed, axes);
  auto unannotated = ir::make<ir::Block>(block, iterators, std::vector<ir::BufferRegion>{},
                                         std::vector<ir::BufferRegion>{}, store, init);
  ir::BlockAccessRegions regions = ir::inferAccessRegions(*unannotated);
  auto annotated = ir::make<ir::Block>(block, iterators, regions.reads, regions.writes, store, init);
  ir::Stmt body = ir::make<ir::BlockRealize>(std::vector<Expr>(loops.begin(), loops.end()), nullptr, annotated);
  for (size_t i = extents.size(); i-- > 0;)
    body = ir::make<ir::For>(loops[i], ir::make<ir::IntImm>(extents[i]->dtype, 0), extents[i], ir::ForKind::Serial, body);
  auto root = ir::make<ir::Block>("root", std::vector<ir::IterVarRef>{}, std::vector<ir::BufferRegion>{},
                                  std::vector<ir::BufferRegion>{}, body);
  body = ir::make<ir::BlockRealize>(std::vector<Expr>{}, nullptr, root);

  std::vector<ir::VarRef> params;
  std::vector<std::pair<ir::VarRef, ir::BufferRef>> bufferMap;
  std::vector<ir::BufferRef> buffers = inputs_;
  buffers.push_back(output);
  for (const ir::BufferRef &buffer : buffers) {
    ir::VarRef handle = ir::make<ir::Var>(buffer->name, DataType::handle());
    params.push_back(handle);
    bufferMap.emplace_back(handle, buffer);
  }
  ir::AttrMap attrs;
  attrs.set("tir.noalias", true);
  auto *func = new ir::PrimFunc(params, bufferMap, body, attrs);
  func->isPrivate = true;
  return LegalizedOperator{ir::PrimFuncRef(func), std::move(nameHint), args_};
}

}  // namespace vtac::passes::legalize

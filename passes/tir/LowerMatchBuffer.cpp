#include "tir/LowerMatchBuffer.h"

#include <unordered_map>

#include "tir/FlatIndex.h"
#include "tir/PassSupport.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes {
namespace {

// `value` is provably a multiple of `factor`: linear with every coefficient and the constant
// divisible by it.
bool provablyMultipleOf(const ir::Expr &value, int64_t factor) {
  std::vector<ir::VarRef> vars;
  ir::preOrderVisit(value, [&](const ir::Node &node) {
    if (const auto *var = node.as<ir::Var>()) vars.push_back(ir::VarRef(var));
  });
  auto equation = ir::detectLinearEquation(value, vars);
  if (!equation) return false;
  auto base = ir::asConstInt(equation->base);
  if (!base || *base % factor != 0) return false;
  for (int64_t coeff : equation->coeffs)
    if (coeff % factor != 0) return false;
  return true;
}

class MatchBufferLowerer : public ErrorRecordingMutator {
public:
  ir::Expr visitVar(const ir::Var &op) override {
    auto it = bindings_.find(&op);
    return it == bindings_.end() ? ir::Expr(&op) : it->second;
  }

  ir::Stmt visitBlock(const ir::Block &op) override {
    for (const ir::MatchBufferRegion &match : op.matchBuffers) bind(match, op);
    ir::Stmt visited = StmtExprMutator::visitBlock(op);
    const auto &block = *visited.as<ir::Block>();
    std::vector<ir::BufferRegion> reads = block.reads, writes = block.writes;
    bool redirected = false;
    for (auto *regions : {&reads, &writes})
      for (ir::BufferRegion &region : *regions) redirected |= redirect(region);
    if (!redirected && block.matchBuffers.empty()) return visited;
    ir::Block *copy = ir::copyNode(block);
    copy->matchBuffers.clear();
    copy->reads = std::move(reads);
    copy->writes = std::move(writes);
    return ir::Stmt(copy);
  }

  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    ir::Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto &load = *visited.as<ir::BufferLoad>();
    auto it = matches_.find(load.buffer.get());
    if (it == matches_.end()) return visited;
    return ir::make<ir::BufferLoad>(it->second.buffer, sourceIndices(it->second, load.indices), load.loc());
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto &store = *visited.as<ir::BufferStore>();
    auto it = matches_.find(store.buffer.get());
    if (it == matches_.end()) return visited;
    return ir::make<ir::BufferStore>(it->second.buffer, store.value, sourceIndices(it->second, store.indices),
                                     store.loc());
  }

private:
  // Indices into the source: leading dimensions the view drops are the region's (unit) starts.
  static std::vector<ir::Expr> sourceIndices(const ir::BufferRegion &source, const std::vector<ir::Expr> &indices) {
    size_t dropped = source.region.size() - indices.size();
    std::vector<ir::Expr> result;
    for (size_t i = 0; i < source.region.size(); ++i)
      result.push_back(i < dropped ? source.region[i].min : source.region[i].min + indices[i - dropped]);
    return result;
  }

  bool redirect(ir::BufferRegion &region) const {
    auto it = matches_.find(region.buffer.get());
    if (it == matches_.end()) return false;
    const ir::BufferRegion &source = it->second;
    size_t dropped = source.region.size() - region.region.size();
    std::vector<ir::Range> ranges;
    for (size_t i = 0; i < source.region.size(); ++i) {
      if (i < dropped) {
        ranges.push_back({source.region[i].min, ir::intImm(1, source.region[i].min->dtype)});
        continue;
      }
      const ir::Range &inner = region.region[i - dropped];
      ranges.push_back({source.region[i].min + inner.min, inner.extent});
    }
    region = {source.buffer, std::move(ranges)};
    return true;
  }

  // Binds `part` of the view (a variable, or an expression that must then equal `value`).
  void bindPart(const ir::Expr &part, ir::Expr value, const std::string &what, const ir::Block &block) {
    value = ir::substitute(value, bindings_);
    if (const auto *var = part.as<ir::Var>()) {
      auto [it, inserted] = bindings_.emplace(var, value);
      if (inserted) return;
      if (!ir::structuralEqual(ir::simplify(it->second), ir::simplify(value)))
        fail(block, "the buffer match constraint for " + what + " is unmet: " + ir::printExpr(it->second) +
                        " == " + ir::printExpr(value));
      return;
    }
    if (!ir::structuralEqual(ir::simplify(part), ir::simplify(value)))
      fail(block, "the buffer match constraint for " + what + " is unmet: " + ir::printExpr(part) + " == " +
                      ir::printExpr(value));
  }

  void bind(const ir::MatchBufferRegion &match, const ir::Block &block) {
    const ir::Buffer &view = *match.buffer;
    ir::BufferRegion source = match.source;
    for (ir::Range &range : source.region) range = {visitExpr(range.min), visitExpr(range.extent)};
    redirect(source);
    const ir::Buffer &target = *source.buffer;
    const std::string name = "match_buffer '" + view.name + "'";
    if (view.scope() != target.scope())
      return fail(block, name + " has scope '" + view.scope() + "' but its source '" + target.name + "' has '" +
                             target.scope() + "'");
    if (view.dtype != target.dtype)
      return fail(block, name + " has dtype " + view.dtype.str() + " but its source '" + target.name + "' has " +
                             target.dtype.str());
    if (source.region.size() < view.rank())
      return fail(block, name + " has more dimensions than its source region");
    matches_[match.buffer.get()] = source;
    bindings_[view.data.get()] = ir::Expr(target.data);

    std::vector<ir::Expr> starts;
    for (const ir::Range &range : source.region) starts.push_back(range.min);
    ir::Expr offset = flatIndex(target, starts);
    if (view.offsetFactor > 1 && !provablyMultipleOf(offset, view.offsetFactor))
      return fail(block, "the source elem_offset " + ir::printExpr(offset) + " of " + name +
                             " is not provably a multiple of its offset_factor " + std::to_string(view.offsetFactor));
    if (view.elemOffset) bindPart(view.elemOffset, offset, view.name + ".elem_offset", block);

    size_t dropped = source.region.size() - view.rank();
    std::vector<ir::Expr> targetStrides = stridesOf(target);
    for (size_t i = 0; i < view.strides.size() && i < view.rank(); ++i)
      bindPart(view.strides[i], targetStrides[i + dropped], view.name + ".strides[" + std::to_string(i) + "]", block);
    for (size_t i = 0; i < view.rank(); ++i)
      bindPart(view.shape[i], source.region[i + dropped].extent, view.name + ".shape[" + std::to_string(i) + "]",
               block);
  }

  ir::VarMap bindings_;
  std::unordered_map<const ir::Buffer *, ir::BufferRegion> matches_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> lowerMatchBuffer(const ir::PrimFuncRef &func, PassContext &) {
  MatchBufferLowerer lowerer;
  return mutateBody(func, lowerer);
}

}  // namespace vtac::passes

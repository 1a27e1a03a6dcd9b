#include "tir/LowerMatchBuffer.h"

#include <unordered_map>

#include "tir/FlatIndex.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/MatchBufferIndices.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/PassSupport.h"

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

class MatchBufferLowerer : public FirstErrorMutator {
public:
  ir::Expr visitVar(const ir::Var &op) override {
    auto implicit = implicitOffsets_.find(&op);
    if (implicit != implicitOffsets_.end() && !ir::isZero(implicit->second.offset))
      fail(*implicit->second.block, "the data of match_buffer '" + implicit->second.view +
                                        "' is used directly, but the view has no elem_offset to carry its start " +
                                        ir::printExpr(implicit->second.offset));
    auto it = bindings_.find(&op);
    return it == bindings_.end() ? ir::Expr(&op) : it->second;
  }

  // A view without an elem_offset variable: its access pointers start at its region.
  ir::Expr visitCall(const ir::Call &op) override {
    const auto *data = op.op == "tir.tvm_access_ptr" && op.args.size() == 5 ? op.args[1].as<ir::Var>() : nullptr;
    auto implicit = data ? implicitOffsets_.find(data) : implicitOffsets_.end();
    if (implicit == implicitOffsets_.end()) return StmtExprMutator::visitCall(op);
    std::vector<ir::Expr> args = op.args;
    args[1] = bindings_.at(data);
    args[2] = ir::simplify(implicit->second.offset + visitExpr(op.args[2]));
    args[3] = visitExpr(op.args[3]);
    return ir::make<ir::Call>(op.dtype, op.op, std::move(args), op.loc());
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
    return ir::make<ir::BufferLoad>(it->second.buffer, ir::matchBufferSourceIndices(it->second, load.indices), load.loc());
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto &store = *visited.as<ir::BufferStore>();
    auto it = matches_.find(store.buffer.get());
    if (it == matches_.end()) return visited;
    return ir::make<ir::BufferStore>(it->second.buffer, store.value, ir::matchBufferSourceIndices(it->second, store.indices),
                                     store.loc());
  }

private:
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
    if (view.elemOffset)
      bindPart(view.elemOffset, offset, view.name + ".elem_offset", block);
    else
      implicitOffsets_[view.data.get()] = {offset, &block, view.name};

    size_t dropped = source.region.size() - view.rank();
    std::vector<ir::Expr> targetStrides = stridesOf(target);
    for (size_t i = 0; i < view.strides.size() && i < view.rank(); ++i)
      bindPart(view.strides[i], targetStrides[i + dropped], view.name + ".strides[" + std::to_string(i) + "]", block);
    for (size_t i = 0; i < view.rank(); ++i)
      bindPart(view.shape[i], source.region[i + dropped].extent, view.name + ".shape[" + std::to_string(i) + "]",
               block);
  }

  struct ImplicitOffset {
    ir::Expr offset;
    const ir::Block *block;
    std::string view;
  };

  ir::VarMap bindings_;
  std::unordered_map<const ir::Var *, ImplicitOffset> implicitOffsets_;
  std::unordered_map<const ir::Buffer *, ir::BufferRegion> matches_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> lowerMatchBuffer(const ir::PrimFuncRef &func, PassContext &) {
  MatchBufferLowerer lowerer;
  return mutateBody(func, lowerer);
}

}  // namespace vtac::passes

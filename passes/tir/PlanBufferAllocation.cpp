#include "tir/PlanBufferAllocation.h"

#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "vtac/ir/Mutator.h"
#include "vtac/ir/RegionInference.h"
#include "vtac/ir/StorageScope.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

// A loop or block that can hold an allocation; the root scope has no statement.
struct Scope {
  const Scope *parent;
  const ir::StmtNode *stmt;
  int depth;
};

const Scope *lowestCommonAncestor(const Scope *a, const Scope *b) {
  if (!a) return b;
  if (!b) return a;
  while (a->parent && b->parent && a != b) {
    if (a->depth == b->depth) {
      a = a->parent;
      b = b->parent;
    } else if (a->depth < b->depth) {
      b = b->parent;
    } else {
      a = a->parent;
    }
  }
  return b->parent ? a : b;
}

// For every buffer: the innermost loop or block that encloses all its accesses (TVM's
// DetectBufferAccessLCA), and the blocks' allocations in pre-order.
class AccessLcaDetector : public ir::StmtExprVisitor {
public:
  explicit AccessLcaDetector(const ir::PrimFunc &func) {
    scopes_.push_back({nullptr, nullptr, 0});
    ancestors_.push_back(&scopes_.back());
    for (const auto &[param, buffer] : func.bufferMap) bufferOfData_.emplace(buffer->data.get(), buffer.get());
    visitStmt(func.body);
    // Global memory is shared by all thread blocks: allocate it outside every blockIdx launch.
    for (auto &[buffer, lca] : lca_)
      if (ir::storageRank(buffer->scope()) == 0)
        for (const Scope *launch : blockIdxScopes_) lca = lowestCommonAncestor(lca, launch);
  }

  std::unordered_map<const ir::Buffer *, const Scope *> lca_;
  std::vector<ir::BufferRef> allocationOrder_;

  void visitFor(const ir::For &op) override {
    const Scope *scope = push(&op);
    if (op.threadBinding && ir::threadRank(op.threadBinding->threadTag) == 0) blockIdxScopes_.push_back(scope);
    loopScope_[op.loopVar.get()] = scope;
    StmtExprVisitor::visitFor(op);
    loopScope_.erase(op.loopVar.get());
    ancestors_.pop_back();
  }

  void visitBlockRealize(const ir::BlockRealize &op) override {
    const ir::Block &block = *op.block;
    for (const ir::BufferRef &buffer : block.allocBuffers) {
      bufferOfData_.emplace(buffer->data.get(), buffer.get());
      allocationOrder_.push_back(buffer);
    }
    push(&block);
    placeAboveOpaqueIterLoops(op);
    placeAboveReductionLoops(op);
    for (const ir::MatchBufferRegion &match : block.matchBuffers) {
      update(match.source.buffer.get(), ancestors_.back());
      matchTargets_.insert(match.buffer.get());
    }
    StmtExprVisitor::visitBlockRealize(op);
    ancestors_.pop_back();
  }

  void visitAttrStmt(const ir::AttrStmt &op) override {
    const auto *iter = op.node.as<ir::IterVar>();
    if (op.key == "thread_extent" && iter && ir::threadRank(iter->threadTag) == 0)
      blockIdxScopes_.push_back(ancestors_.back());
    StmtExprVisitor::visitAttrStmt(op);
  }

  void visitBufferLoad(const ir::BufferLoad &op) override {
    update(op.buffer.get(), ancestors_.back());
    StmtExprVisitor::visitBufferLoad(op);
  }

  void visitBufferStore(const ir::BufferStore &op) override {
    update(op.buffer.get(), ancestors_.back());
    StmtExprVisitor::visitBufferStore(op);
  }

  // A data pointer used directly (B.data, access_ptr) is an access to its buffer.
  void visitVar(const ir::Var &op) override {
    auto it = bufferOfData_.find(&op);
    if (it != bufferOfData_.end()) update(it->second, ancestors_.back());
  }

private:
  const Scope *push(const ir::StmtNode *stmt) {
    scopes_.push_back({ancestors_.back(), stmt, int(ancestors_.size())});
    ancestors_.push_back(&scopes_.back());
    return ancestors_.back();
  }

  // A block iterating opaquely (neither spatial nor reduction) carries dependences across the
  // loops its bindings use: what it accesses through such an axis must live above those loops.
  void placeAboveOpaqueIterLoops(const ir::BlockRealize &realize) {
    const ir::Block &block = *realize.block;
    std::unordered_map<const ir::Var *, const Scope *> outermost;
    for (size_t i = 0; i < realize.iterValues.size() && i < block.iterVars.size(); ++i) {
      const ir::IterVar &iter = *block.iterVars[i];
      if (iter.iterType == ir::IterType::DataPar || iter.iterType == ir::IterType::CommReduce) continue;
      ir::preOrderVisit(realize.iterValues[i], [&](const ir::Node &node) {
        auto it = node.isa<ir::Var>() ? loopScope_.find(node.as<ir::Var>()) : loopScope_.end();
        if (it == loopScope_.end()) return;
        const Scope *&scope = outermost[iter.var.get()];
        if (!scope || it->second->parent->depth < scope->depth) scope = it->second->parent;
      });
    }
    if (outermost.empty()) return;
    auto place = [&](const ir::BufferRegion &region) {
      const Scope *scope = ancestors_.back();
      for (const ir::Range &range : region.region)
        for (const ir::Expr &bound : {range.min, range.extent})
          ir::preOrderVisit(bound, [&](const ir::Node &node) {
            auto it = node.isa<ir::Var>() ? outermost.find(node.as<ir::Var>()) : outermost.end();
            if (it != outermost.end() && it->second->depth < scope->depth) scope = it->second;
          });
      update(region.buffer.get(), scope);
    };
    for (const ir::BufferRegion &region : block.reads) place(region);
    for (const ir::BufferRegion &region : block.writes) place(region);
  }

  // A reduction block's results accumulate across the loops its reduction iterators are bound
  // to: what it writes lives above the outermost of them, even a buffer no later block reads
  // (argmax's running maximum), which would otherwise be allocated afresh each iteration.
  // Thread-bound loops are left to the cross-thread reduction's lowering.
  void placeAboveReductionLoops(const ir::BlockRealize &realize) {
    const ir::Block &block = *realize.block;
    const Scope *above = nullptr;
    for (size_t i = 0; i < realize.iterValues.size() && i < block.iterVars.size(); ++i) {
      if (block.iterVars[i]->iterType != ir::IterType::CommReduce) continue;
      ir::preOrderVisit(realize.iterValues[i], [&](const ir::Node &node) {
        auto it = node.isa<ir::Var>() ? loopScope_.find(node.as<ir::Var>()) : loopScope_.end();
        if (it == loopScope_.end() || static_cast<const ir::For *>(it->second->stmt)->threadBinding) return;
        if (!above || it->second->parent->depth < above->depth) above = it->second->parent;
      });
    }
    if (!above) return;
    for (const ir::BufferRegion &region : block.writes) update(region.buffer.get(), above);
  }

  void update(const ir::Buffer *buffer, const Scope *scope) {
    bufferOfData_.emplace(buffer->data.get(), buffer);
    if (matchTargets_.count(buffer)) return;
    const Scope *&lca = lca_[buffer];
    lca = lowestCommonAncestor(lca, scope);
  }

  std::deque<Scope> scopes_;  // stable addresses
  std::vector<const Scope *> ancestors_;
  std::vector<const Scope *> blockIdxScopes_;
  std::unordered_map<const ir::Var *, const Scope *> loopScope_;
  std::unordered_map<const ir::Var *, const ir::Buffer *> bufferOfData_;
  std::unordered_set<const ir::Buffer *> matchTargets_;
};

class AllocationPlacer : public FirstErrorMutator {
public:
  explicit AllocationPlacer(const ir::PrimFunc &func) {
    AccessLcaDetector detector(func);
    for (const auto &[param, buffer] : func.bufferMap) live_.emplace(buffer->data.get(), buffer);
    for (const ir::BufferRef &buffer : detector.allocationOrder_) {
      auto it = detector.lca_.find(buffer.get());
      if (it == detector.lca_.end()) continue;  // never accessed: dropped
      allocationsAt_[it->second->stmt].push_back(buffer);
      live_.emplace(buffer->data.get(), buffer);
    }
  }

  ir::Stmt visitFor(const ir::For &op) override {
    auto it = allocationsAt_.find(&op);
    if (it == allocationsAt_.end()) return StmtExprMutator::visitFor(op);
    ir::Stmt visited = StmtExprMutator::visitFor(op);
    for (const ir::BufferRef &buffer : it->second) live_.erase(buffer->data.get());
    ir::For *loop = ir::copyNode(*visited.as<ir::For>());
    auto block = ir::make<ir::Block>("", std::vector<ir::IterVarRef>{}, std::vector<ir::BufferRegion>{},
                                     std::vector<ir::BufferRegion>{}, loop->body, nullptr, it->second,
                                     std::vector<ir::MatchBufferRegion>{}, ir::AttrMap{}, op.loc());
    std::vector<ir::BufferRef> known;
    for (const auto &[data, buffer] : live_) known.push_back(buffer);
    ir::BlockAccessRegions regions = ir::inferAccessRegions(*block, known);
    ir::Block *withRegions = ir::copyNode(*block);
    withRegions->reads = liveRegions(regions.reads);
    withRegions->writes = liveRegions(regions.writes);
    loop->body = ir::make<ir::BlockRealize>(std::vector<ir::Expr>{}, nullptr, ir::BlockRef(withRegions), op.loc());
    return ir::Stmt(loop);
  }

  ir::Stmt visitBlock(const ir::Block &op) override {
    if (op.init) fail(op, "block '" + op.name + "' still has T.init(); run lower-init-block first");
    auto it = allocationsAt_.find(&op);
    std::vector<ir::BufferRef> allocations = it == allocationsAt_.end() ? std::vector<ir::BufferRef>{} : it->second;
    // The block's views exist for the blocks inside it, whose regions may name them.
    std::vector<const ir::Var *> views;
    for (const ir::MatchBufferRegion &match : op.matchBuffers)
      if (live_.emplace(match.buffer->data.get(), match.buffer).second) views.push_back(match.buffer->data.get());
    ir::Stmt visited = StmtExprMutator::visitBlock(op);
    for (const ir::Var *view : views) live_.erase(view);
    for (const ir::BufferRef &buffer : allocations) live_.erase(buffer->data.get());
    const auto &block = *visited.as<ir::Block>();
    std::vector<ir::BufferRegion> reads = liveRegions(block.reads), writes = liveRegions(block.writes);
    if (sameBuffers(allocations, block.allocBuffers) && reads.size() == block.reads.size() &&
        writes.size() == block.writes.size())
      return visited;
    ir::Block *copy = ir::copyNode(block);
    copy->allocBuffers = std::move(allocations);
    copy->reads = std::move(reads);
    copy->writes = std::move(writes);
    return ir::Stmt(copy);
  }

private:
  static bool sameBuffers(const std::vector<ir::BufferRef> &a, const std::vector<ir::BufferRef> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

  // The regions of buffers that exist outside the block being rebuilt.
  std::vector<ir::BufferRegion> liveRegions(const std::vector<ir::BufferRegion> &regions) const {
    std::vector<ir::BufferRegion> result;
    for (const ir::BufferRegion &region : regions)
      if (live_.count(region.buffer->data.get())) result.push_back(region);
    return result;
  }

  std::unordered_map<const ir::StmtNode *, std::vector<ir::BufferRef>> allocationsAt_;
  std::unordered_map<const ir::Var *, ir::BufferRef> live_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> planBufferAllocation(const ir::PrimFuncRef &func, PassContext &) {
  if (isFromLegacyTeSchedule(*func)) return func;
  AllocationPlacer placer(*func);
  return mutateBody(func, placer);
}

}  // namespace vtac::passes

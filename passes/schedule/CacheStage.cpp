// Cache stages shared by cache_read and cache_write (TVM's cache_read_write.cc, for a stage
// placed in the scope block).
#include "CacheStage.h"

#include "BufferUtils.h"
#include "LoopUtils.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

// The region of `buffer` the block at `path` writes, relaxed over the loops of its scope.
std::vector<Range> writtenRegion(const StmtPath &path, const Buffer *buffer) {
  const auto &realize = *path.back().as<BlockRealize>();
  VarMap bindings;
  for (size_t i = 0; i < realize.iterValues.size(); ++i)
    bindings[realize.block->iterVars[i]->var.get()] = realize.iterValues[i];
  std::map<const Var *, Range> loops;
  for (const For *loop : loopsInScope(path)) loops[loop->loopVar.get()] = Range{loop->min, loop->extent};
  std::vector<Range> region;
  for (const BufferRegion &write : realize.block->writes) {
    if (write.buffer.get() != buffer) continue;
    for (size_t d = 0; d < write.region.size(); ++d) {
      Range range{substitute(write.region[d].min, bindings), write.region[d].extent};
      Interval relaxed = relaxRange(range, loops);
      region.push_back(relaxed.extent ? Range{relaxed.min, intImm(*relaxed.extent, buffer->shape[d]->dtype)}
                                      : Range{intImm(0, buffer->shape[d]->dtype), buffer->shape[d]});
    }
    break;
  }
  return region;
}

BufferRef makeCacheBuffer(const BufferRef &original, const std::string &scope, const std::vector<Range> &region) {
  auto *copy = copyNode(*withScope(original, scope, original->name + "_" + scope));
  copy->shape.clear();
  for (const Range &range : region) copy->shape.push_back(range.extent);
  return BufferRef(copy);
}

StmtPath scopeOf(const StmtPath &blockPath) {
  for (size_t i = blockPath.size() - 1; i-- > 0;)
    if (blockPath[i]->isa<Block>()) return StmtPath(blockPath.begin(), blockPath.begin() + i + 1);
  return {};
}

Stmt makeCacheStage(const CacheStage &stage, const std::string &blockName) {
  std::vector<VarRef> loopVars;
  std::vector<IterVarRef> iterVars;
  std::vector<Expr> cacheIndices, originalIndices, bindings;
  std::vector<Range> cacheRegion, originalRegion;
  for (size_t i = 0; i < stage.region.size(); ++i) {
    const Range &range = stage.region[i];
    DataType dtype = range.extent->dtype;
    loopVars.push_back(makeVar("ax" + std::to_string(i), dtype));
    VarRef v = makeVar("v" + std::to_string(i), dtype);
    iterVars.push_back(make<IterVar>(v, Range{intImm(0, dtype), range.extent}, IterType::DataPar));
    bindings.push_back(loopVars.back());
    cacheIndices.push_back(v);
    originalIndices.push_back(addExpr(range.min, v));
    cacheRegion.push_back(Range{cacheIndices.back(), intImm(1, dtype)});
    originalRegion.push_back(Range{originalIndices.back(), intImm(1, dtype)});
  }
  const BufferRef &source = stage.isRead ? stage.original : stage.cache;
  const BufferRef &target = stage.isRead ? stage.cache : stage.original;
  const auto &sourceIndices = stage.isRead ? originalIndices : cacheIndices;
  const auto &targetIndices = stage.isRead ? cacheIndices : originalIndices;
  Stmt body = make<BufferStore>(target, bufferLoad(source, sourceIndices), targetIndices);
  BufferRegion read{source, stage.isRead ? originalRegion : cacheRegion};
  BufferRegion write{target, stage.isRead ? cacheRegion : originalRegion};
  auto block = make<Block>(blockName, iterVars, std::vector<BufferRegion>{read}, std::vector<BufferRegion>{write}, body);
  Stmt stmt = make<BlockRealize>(bindings, nullptr, block);
  for (size_t i = loopVars.size(); i-- > 0;)
    stmt = make<For>(loopVars[i], intImm(0, loopVars[i]->dtype), stage.region[i].extent, ForKind::Serial, stmt);
  return stmt;
}

namespace {

class CacheAccessRewriter : public StmtExprMutator {
public:
  CacheAccessRewriter(const CacheStage &stage, const std::set<std::string> &blocks) : stage_(stage), blocks_(blocks) {}

  Expr visitBufferLoad(const BufferLoad &op) override {
    Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto *load = visited.as<BufferLoad>();
    if (!inside_ || load->buffer != stage_.original) return visited;
    return make<BufferLoad>(stage_.cache, shifted(load->indices), load->loc());
  }
  Stmt visitBufferStore(const BufferStore &op) override {
    Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto *store = visited.as<BufferStore>();
    if (!inside_ || store->buffer != stage_.original) return visited;
    return make<BufferStore>(stage_.cache, store->value, shifted(store->indices), store->loc());
  }
  Stmt visitBlock(const Block &op) override {
    bool outer = inside_;
    inside_ = outer || blocks_.count(op.name);
    Stmt visited = StmtExprMutator::visitBlock(op);
    bool rewrite = inside_;
    inside_ = outer;
    if (!rewrite) return visited;
    auto *copy = copyNode(*visited.as<Block>());
    for (auto *regions : {&copy->reads, &copy->writes})
      for (BufferRegion &region : *regions) shiftRegion(region);
    for (MatchBufferRegion &match : copy->matchBuffers) shiftRegion(match.source);
    return Stmt(copy);
  }

private:
  std::vector<Expr> shifted(const std::vector<Expr> &indices) const {
    std::vector<Expr> out;
    for (size_t i = 0; i < indices.size(); ++i)
      out.push_back(isZero(stage_.region[i].min) ? indices[i] : simplify(subExpr(indices[i], stage_.region[i].min)));
    return out;
  }
  void shiftRegion(BufferRegion &region) const {
    if (region.buffer != stage_.original) return;
    region.buffer = stage_.cache;
    for (size_t i = 0; i < region.region.size(); ++i)
      if (!isZero(stage_.region[i].min))
        region.region[i].min = simplify(subExpr(region.region[i].min, stage_.region[i].min));
  }

  const CacheStage &stage_;
  const std::set<std::string> &blocks_;
  bool inside_ = false;
};

}  // namespace

size_t firstPositionHolding(const Block &scope, const std::set<std::string> &blocks) {
  std::vector<Stmt> stmts = statementsOf(scope.body);
  for (size_t i = 0; i < stmts.size(); ++i)
    if (holdsBlockNamed(stmts[i], blocks)) return i;
  return stmts.size();
}

void installCacheStage(Schedule &sch, const CacheStage &stage, const std::set<std::string> &blocks, size_t position,
                       const Stmt &stageStmt) {
  const Block &scope = *stage.scopePath.back().as<Block>();
  Stmt rewritten = CacheAccessRewriter(stage, blocks).visitStmt(scope.body);
  std::vector<Stmt> stmts = statementsOf(rewritten);
  stmts.insert(stmts.begin() + std::min(position, stmts.size()), stageStmt);
  Block *copy = copyNode(scope);
  copy->body = seq(std::move(stmts));
  copy->allocBuffers.push_back(stage.cache);
  sch.replace(stage.func, stage.scopePath, Stmt(copy));
}

std::set<std::string> blocksTouching(const Stmt &root, const Buffer *buffer, bool writers) {
  std::set<std::string> names;
  for (const StmtPath &path : blocksAccessing(root, buffer, writers)) names.insert(path.back().as<BlockRealize>()->block->name);
  return names;
}

}  // namespace vtac::passes::schedule

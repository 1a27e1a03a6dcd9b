// Cache stages shared by cache_read and cache_write (TVM's cache_read_write.cc, for a stage
// placed in the scope block).
#include "CacheStage.h"

#include "BlockTree.h"
#include "BufferUtils.h"
#include "LoopUtils.h"
#include "RegionRelax.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// A bound the block predicate puts on an expression: expr <= bound (upper) or expr >= bound.
struct PredicateBound {
  Expr expr;
  int64_t bound;
  bool upper;
};

// The bounds of the conjuncts of `predicate` that compare an expression with a constant.
void collectPredicateBounds(const Expr &predicate, std::vector<PredicateBound> &bounds) {
  const auto *binary = predicate.as<BinaryExpr>();
  if (!binary) return;
  if (binary->kind() == NodeKind::And) {
    collectPredicateBounds(binary->a, bounds);
    collectPredicateBounds(binary->b, bounds);
    return;
  }
  // a < b as a <= b - 1 and b >= a + 1; the other comparisons likewise.
  int64_t strict = binary->kind() == NodeKind::LT || binary->kind() == NodeKind::GT ? 1 : 0;
  bool less = binary->kind() == NodeKind::LT || binary->kind() == NodeKind::LE;
  if (!less && binary->kind() != NodeKind::GT && binary->kind() != NodeKind::GE) return;
  if (std::optional<int64_t> b = asConstInt(binary->b)) bounds.push_back({binary->a, less ? *b - strict : *b + strict, less});
  if (std::optional<int64_t> a = asConstInt(binary->a)) bounds.push_back({binary->b, less ? *a + strict : *a - strict, !less});
}

// TVM's EstimateRegionUpperBound with the block predicate, for the predicates that bound a
// region's min itself (up to a constant: `ax1 < 12` for the min ax1, `i0 * 16 + i1 < 127` for
// i1 + i0 * 16): the constant interval `relaxed`, of a region with `extent`, shrunk to them.
Interval narrowByPredicate(const Interval &relaxed, const Expr &min, int64_t extent,
                           const std::vector<PredicateBound> &bounds) {
  std::optional<int64_t> lo = asConstInt(relaxed.min);
  if (!lo || !relaxed.extent) return relaxed;
  int64_t first = *lo, lastMin = *lo + *relaxed.extent - extent;
  for (const PredicateBound &bound : bounds) {
    std::optional<int64_t> offset = asConstInt(simplify(subExpr(min, bound.expr)));
    if (!offset) continue;
    if (bound.upper) lastMin = std::min(lastMin, bound.bound + *offset);
    else first = std::max(first, bound.bound + *offset);
  }
  if (lastMin < first) return relaxed;
  return {intImm(first, relaxed.min->dtype), lastMin - first + extent};
}

}  // namespace

std::vector<Range> writtenRegion(const StmtPath &path, const Buffer *buffer, size_t relaxFrom) {
  const auto &realize = *path.back().as<BlockRealize>();
  VarMap bindings;
  for (size_t i = 0; i < realize.iterValues.size(); ++i)
    bindings[realize.block->iterVars[i]->var.get()] = realize.iterValues[i];
  std::map<const Var *, Range> loops;
  std::set<const StmtNode *> relaxable;
  for (size_t i = relaxFrom + 1; i < path.size(); ++i) relaxable.insert(path[i].get());
  for (const For *loop : loopsInScope(path))
    if (relaxable.count(loop)) loops[loop->loopVar.get()] = Range{loop->min, loop->extent};
  std::vector<PredicateBound> bounds;
  if (realize.predicate) collectPredicateBounds(realize.predicate, bounds);
  std::vector<Range> region;
  for (const BufferRegion &write : realize.block->writes) {
    if (write.buffer.get() != buffer) continue;
    for (size_t d = 0; d < write.region.size(); ++d) {
      Range range{substitute(write.region[d].min, bindings), write.region[d].extent};
      Interval relaxed = relaxRange(range, loops);
      if (std::optional<int64_t> extent = asConstInt(range.extent))
        relaxed = narrowByPredicate(relaxed, range.min, *extent, bounds);
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

Stmt makeCacheStage(const CacheStage &stage, const std::string &blockName, SourceLoc loc) {
  std::vector<VarRef> loopVars;
  std::vector<IterVarRef> iterVars;
  std::vector<Expr> cacheIndices, originalIndices, bindings;
  std::vector<Range> cacheRegion, originalRegion;
  for (size_t i = 0; i < stage.region.size(); ++i) {
    const Range &range = stage.region[i];
    DataType dtype = range.extent->dtype;
    loopVars.push_back(makeVar("ax" + std::to_string(i), dtype));
    VarRef v = makeVar("v" + std::to_string(i), dtype);
    Expr domain = stage.fullRegion ? stage.original->shape[i] : range.extent;
    iterVars.push_back(make<IterVar>(v, Range{intImm(0, dtype), domain}, IterType::DataPar));
    bindings.push_back(stage.fullRegion ? addExpr(range.min, loopVars.back()) : Expr(loopVars.back()));
    cacheIndices.push_back(v);
    originalIndices.push_back(stage.fullRegion ? Expr(v) : addExpr(range.min, v));
    cacheRegion.push_back(Range{cacheIndices.back(), intImm(1, dtype)});
    originalRegion.push_back(Range{originalIndices.back(), intImm(1, dtype)});
  }
  const BufferRef &source = stage.isRead ? stage.original : stage.cache;
  const BufferRef &target = stage.isRead ? stage.cache : stage.original;
  const auto &sourceIndices = stage.isRead ? originalIndices : cacheIndices;
  const auto &targetIndices = stage.isRead ? cacheIndices : originalIndices;
  Stmt body = make<BufferStore>(target, bufferLoad(source, sourceIndices, loc), targetIndices, loc);
  BufferRegion read{source, stage.isRead ? originalRegion : cacheRegion};
  BufferRegion write{target, stage.isRead ? cacheRegion : originalRegion};
  auto block = make<Block>(blockName, iterVars, std::vector<BufferRegion>{read}, std::vector<BufferRegion>{write}, body,
                           nullptr, std::vector<BufferRef>{}, std::vector<MatchBufferRegion>{}, AttrMap{}, loc);
  Stmt stmt = make<BlockRealize>(bindings, nullptr, block, loc);
  for (size_t i = loopVars.size(); i-- > 0;)
    stmt = make<For>(loopVars[i], intImm(0, loopVars[i]->dtype), stage.region[i].extent, ForKind::Serial, stmt,
                     nullptr, AttrMap{}, loc);
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
  // An opaque access through the buffer's pointer (`A.data`) moves to the cache too, as in TVM.
  Expr visitVar(const Var &op) override {
    return inside_ && &op == stage_.original->data.get() ? Expr(stage_.cache->data) : Expr(&op);
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
    if (stage_.fullRegion) return indices;
    std::vector<Expr> out;
    for (size_t i = 0; i < indices.size(); ++i)
      out.push_back(isZero(stage_.region[i].min) ? indices[i] : simplify(subExpr(indices[i], stage_.region[i].min)));
    return out;
  }
  void shiftRegion(BufferRegion &region) const {
    if (region.buffer != stage_.original) return;
    region.buffer = stage_.cache;
    if (stage_.fullRegion) return;
    for (size_t i = 0; i < region.region.size(); ++i)
      if (!isZero(stage_.region[i].min))
        region.region[i].min = simplify(subExpr(region.region[i].min, stage_.region[i].min));
  }

  const CacheStage &stage_;
  const std::set<std::string> &blocks_;
  bool inside_ = false;
};

}  // namespace

namespace {

// The statements under a body's T.allocate_const / T.decl_buffer wrappers, where a cache stage
// goes so that the declared buffers stay visible to it (TVM's InsertCacheStage).
Stmt unwrapDeclarations(const Stmt &body) {
  if (const auto *alloc = body.as<Allocate>(); alloc && alloc->constantData) return unwrapDeclarations(alloc->body);
  if (const auto *decl = body.as<DeclBuffer>()) return unwrapDeclarations(decl->body);
  return body;
}

// `body` with `stage` inserted before its statement `position`, below its declarations.
Stmt insertStage(const Stmt &body, size_t position, const Stmt &stage) {
  if (const auto *alloc = body.as<Allocate>(); alloc && alloc->constantData) {
    Allocate *copy = copyNode(*alloc);
    copy->body = insertStage(alloc->body, position, stage);
    return Stmt(copy);
  }
  if (const auto *decl = body.as<DeclBuffer>()) {
    DeclBuffer *copy = copyNode(*decl);
    copy->body = insertStage(decl->body, position, stage);
    return Stmt(copy);
  }
  std::vector<Stmt> stmts = statementsOf(body);
  stmts.insert(stmts.begin() + std::min(position, stmts.size()), stage);
  return seq(std::move(stmts));
}

}  // namespace

void installCacheStage(Schedule &sch, const CacheStage &stage, const std::set<std::string> &blocks,
                       const CacheLocation &location, const Stmt &stageStmt) {
  const Stmt &target = location.path.back();
  if (const auto *loop = target.as<For>()) {
    For *copy = copyNode(*loop);
    copy->body = insertStage(loop->body, location.position, stageStmt);
    sch.replace(stage.func, location.path, Stmt(copy));
  } else {
    Block *copy = copyNode(*target.as<Block>());
    copy->body = insertStage(copy->body, location.position, stageStmt);
    sch.replace(stage.func, location.path, Stmt(copy));
  }

  // The scope block is the same node unless the stage went straight into it.
  const auto &scopeName = stage.scopePath.back().as<Block>()->name;
  StmtPath scopePath{blockNamed(cast<PrimFunc>(sch.module().lookup(stage.func))->body, scopeName)};
  const Block &scope = *scopePath.back().as<Block>();
  Block *copy = copyNode(scope);
  copy->body = CacheAccessRewriter(stage, blocks).visitStmt(scope.body);
  copy->allocBuffers.push_back(stage.cache);
  sch.replace(stage.func, scopePath, Stmt(copy));
}

CacheLocation cacheLocation(const StmtPath &scopePath, const std::string &writer, const std::set<std::string> &related) {
  const Block &scope = *scopePath.back().as<Block>();
  if (related.empty()) return {scopePath, statementsOf(unwrapDeclarations(scope.body)).size()};
  // The writer's subtree and the first related block after it share a sequence: the innermost
  // such sequence, whose owner is the loop (or the scope) the stage goes into.
  struct Detector {
    const std::string &writer;
    const std::set<std::string> &related;
    bool visitedWriter = false, visitedRelated = false;
    std::optional<CacheLocation> found{};
    StmtPath path{};

    // Walks `body`, the body of path.back(); a sequence there may hold the location.
    void visitBody(const Stmt &body) {
      const auto *sequence = body.as<SeqStmt>();
      if (!sequence) return visit(body);
      bool outerWriter = visitedWriter;
      visitedWriter = false;
      for (size_t i = 0; i < sequence->stmts.size() && !found; ++i) {
        visit(sequence->stmts[i]);
        if (found) break;
        if (visitedWriter && visitedRelated) {
          found = CacheLocation{path, i};
          break;
        }
        if (visitedRelated) break;
      }
      visitedWriter = visitedWriter || outerWriter;
    }
    void visit(const Stmt &stmt) {
      if (const auto *realize = stmt.as<BlockRealize>()) {
        visitedWriter |= realize->block->name == writer;
        visitedRelated |= related.count(realize->block->name) > 0;
      } else if (const auto *loop = stmt.as<For>()) {
        path.push_back(stmt);
        visitBody(loop->body);
        path.pop_back();
      } else {
        for (const Stmt &child : statementsOf(stmt))
          if (child != stmt) visit(child);
      }
    }
  } detector{writer, related};
  detector.path = scopePath;
  detector.visitBody(unwrapDeclarations(scope.body));
  if (detector.found) return *detector.found;
  return {scopePath, 0};
}

void placeCacheStage(CacheStage &stage, const StmtPath &writerPath, const CacheLocation &location,
                     const std::string &storageScope) {
  stage.fullRegion = location.path.back()->isa<For>();
  size_t relaxFrom = size_t(std::find(writerPath.begin(), writerPath.end(), location.path.back()) - writerPath.begin());
  stage.region = writtenRegion(writerPath, stage.original.get(), relaxFrom);
  stage.cache = makeCacheBuffer(stage.original, storageScope, stage.fullRegion ? wholeRegion(*stage.original) : stage.region);
}

std::set<std::string> blocksTouching(const Stmt &root, const Buffer *buffer, bool writers) {
  std::set<std::string> names;
  for (const StmtPath &path : blocksAccessing(root, buffer, writers)) names.insert(path.back().as<BlockRealize>()->block->name);
  return names;
}

llvm::Expected<CacheTarget> cacheTarget(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &index,
                                        bool isWrite, const Located<std::string> &storageScope,
                                        const std::string &primitive) {
  if (std::string why = whyNotStorageScope(primitive, storageScope.value); !why.empty())
    return diagnosticError(storageScope.at, why);
  llvm::Expected<StmtPath> path = sch.findBlock(block.value, block.at);
  if (!path) return path.takeError();
  llvm::Expected<BufferRef> buffer =
      accessedBuffer(*path->back().as<BlockRealize>()->block, index.value, isWrite, index.at);
  if (!buffer) return buffer.takeError();
  CacheTarget target{*path, {}};
  target.stage.func = block.value.func;
  target.stage.scopePath = scopeOf(*path);
  target.stage.original = *buffer;
  target.stage.isRead = !isWrite;
  return target;
}

std::set<std::string> blockNames(const std::vector<BlockRV> &blocks) {
  std::set<std::string> names;
  for (const BlockRV &block : blocks) names.insert(block.name);
  return names;
}

}  // namespace vtac::passes::schedule

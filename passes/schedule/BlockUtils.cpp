// Block removal, region re-inference and relaxation shared by compute_inline, compute_at,
// reverse_compute_at, cache_read and cache_write.
#include "BlockUtils.h"

#include "BufferUtils.h"
#include "LoopUtils.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/RegionInference.h"
#include "vtac/ir/StorageScope.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::passes::schedule {

using namespace ir;

size_t leafSubtreeIndex(const StmtPath &blockPath) {
  size_t top = blockPath.size() - 1;
  while (top > 0) {
    const auto *loop = blockPath[top - 1].as<For>();
    if (!loop || loop->body != blockPath[top]) break;
    --top;
  }
  return top;
}

std::string whyNotRemovableLeaf(const StmtPath &blockPath) {
  size_t top = leafSubtreeIndex(blockPath);
  if (top > 0 && blockPath[top - 1]->isa<SeqStmt>()) return "";
  return "the block '" + blockPath.back().as<BlockRealize>()->block->name +
         "' is the only statement of its scope and cannot be removed";
}

llvm::Error removeLeafBlock(Schedule &sch, const std::string &func, const StmtPath &blockPath, SourceLoc at) {
  if (std::string why = whyNotRemovableLeaf(blockPath); !why.empty()) return diagnosticError(at, why);
  size_t top = leafSubtreeIndex(blockPath);
  const auto *parentSeq = blockPath[top - 1].as<SeqStmt>();
  std::vector<Stmt> rest;
  for (const Stmt &stmt : parentSeq->stmts)
    if (stmt != blockPath[top]) rest.push_back(stmt);
  StmtPath seqPath(blockPath.begin(), blockPath.begin() + top);
  sch.replace(func, seqPath, seq(std::move(rest)));
  return llvm::Error::success();
}

StmtPath scopeOf(const StmtPath &blockPath) {
  for (size_t i = blockPath.size() - 1; i-- > 0;)
    if (blockPath[i]->isa<Block>()) return StmtPath(blockPath.begin(), blockPath.begin() + i + 1);
  return {};
}

std::vector<StmtPath> childBlockPaths(const Stmt &root) {
  class Collector : public StmtExprVisitor {
  public:
    void visitExpr(const Expr &) override {}
    void visitStmt(const Stmt &s) override {
      path_.push_back(s);
      if (s->isa<BlockRealize>()) found.push_back(path_);
      else StmtExprVisitor::visitStmt(s);
      path_.pop_back();
    }
    std::vector<StmtPath> found;

  private:
    StmtPath path_;
  } collector;
  collector.visitStmt(root);
  return std::move(collector.found);
}

llvm::Expected<std::vector<BlockRV>> dependentBlocks(const Schedule &sch, const BlockRV &rv, SourceLoc at,
                                                     bool producers) {
  llvm::Expected<StmtPath> path = sch.findBlock(rv, at);
  if (!path) return path.takeError();
  StmtPath scope = scopeOf(*path);
  if (scope.empty()) return std::vector<BlockRV>{};
  const Block &self = *path->back().as<BlockRealize>()->block;
  std::vector<BlockRV> result;
  bool before = true;
  for (const StmtPath &child : childBlockPaths(scope.back().as<Block>()->body)) {
    const Block &other = *child.back().as<BlockRealize>()->block;
    if (&other == &self) {
      before = false;
      continue;
    }
    if (before != producers) continue;
    const Block &writer = producers ? other : self, &accessor = producers ? self : other;
    bool depends = std::any_of(writer.writes.begin(), writer.writes.end(), [&](const BufferRegion &write) {
      return accessesBuffer(accessor, write.buffer.get(), false) || accessesBuffer(accessor, write.buffer.get(), true);
    });
    if (depends) result.push_back(BlockRV{rv.func, other.name});
  }
  return result;
}

bool sameExprs(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Expr &x, const Expr &y) { return structuralEqual(x, y); });
}

const BufferStore *singleStoreBody(const Block &block, bool underGuard) {
  if (block.writes.size() != 1 || !block.allocBuffers.empty()) return nullptr;
  const auto *guard = underGuard ? block.body.as<IfThenElse>() : nullptr;
  if (guard) return guard->elseCase ? nullptr : guard->thenCase.as<BufferStore>();
  return block.body.as<BufferStore>();
}

bool indexedByDistinctDataParIters(const Block &block, const std::vector<Expr> &indices) {
  std::set<const Var *> seen;
  for (const Expr &index : indices) {
    const auto *var = index.as<Var>();
    bool isDataPar = std::any_of(block.iterVars.begin(), block.iterVars.end(), [&](const IterVarRef &iv) {
      return iv->var.get() == var && iv->iterType == IterType::DataPar;
    });
    if (!var || !isDataPar || !seen.insert(var).second) return false;
  }
  return true;
}

std::string whyBufferIsAccessedOpaquely(const PrimFunc &func, const Buffer *buffer) {
  bool opaque = false;
  std::string matcher;
  preOrderVisit(func.body, [&](const Node &node) {
    const auto *var = node.as<Var>();
    opaque |= var && var == buffer->data.get();
    // A view of the buffer would outlive the inlined buffer (TVM's CheckMatchBufferRegion).
    if (const auto *block = node.as<Block>())
      for (const MatchBufferRegion &match : block->matchBuffers)
        if (match.source.buffer.get() == buffer && matcher.empty()) matcher = block->name;
  });
  if (opaque) return "writes '" + buffer->name + "', whose data pointer is used directly";
  if (!matcher.empty()) return "writes '" + buffer->name + "', a region of which the block '" + matcher + "' matches";
  return "";
}

std::string whyOutputBlock(const Block &block, const Block &scope) {
  for (const BufferRegion &write : block.writes)
    if (std::find(scope.allocBuffers.begin(), scope.allocBuffers.end(), write.buffer) == scope.allocBuffers.end())
      return "is an output block (it writes '" + write.buffer->name + "', which its scope block '" + scope.name +
             "' does not allocate)";
  return "";
}

std::vector<Stmt> statementsOf(const Stmt &body) {
  if (const auto *sequence = body.as<SeqStmt>()) return sequence->stmts;
  return {body};
}

bool holdsBlockNamed(const Stmt &stmt, const std::set<std::string> &blocks) {
  bool found = false;
  preOrderVisit(stmt, [&](const Node &node) {
    if (const auto *block = node.as<Block>()) found |= blocks.count(block->name) > 0;
  });
  return found;
}

std::vector<BufferRef> functionBuffers(const PrimFunc &func) {
  std::vector<BufferRef> buffers;
  for (const auto &[param, buffer] : func.bufferMap) buffers.push_back(buffer);
  preOrderVisit(func.body, [&](const Node &node) {
    if (const auto *block = node.as<Block>())
      buffers.insert(buffers.end(), block->allocBuffers.begin(), block->allocBuffers.end());
  });
  return buffers;
}

namespace {

class RegionReinferrer : public StmtExprMutator {
public:
  RegionReinferrer(const std::set<std::string> &names, const std::vector<BufferRef> &known)
      : names_(names), known_(known) {}
  Expr visitExpr(const Expr &e) override { return e; }
  Stmt visitBlock(const Block &op) override {
    Stmt visited = StmtExprMutator::visitBlock(op);
    if (!names_.count(op.name)) return visited;
    auto *copy = copyNode(*visited.as<Block>());
    BlockAccessRegions regions = inferAccessRegions(*copy, known_);
    copy->reads = std::move(regions.reads);
    copy->writes = std::move(regions.writes);
    return Stmt(copy);
  }

private:
  const std::set<std::string> &names_;
  const std::vector<BufferRef> &known_;
};

}  // namespace

Stmt reinferRegions(const Stmt &root, const std::set<std::string> &names, const std::vector<BufferRef> &knownBuffers) {
  return RegionReinferrer(names, knownBuffers).visitStmt(root);
}

namespace {

std::optional<std::pair<Expr, Expr>> bounds(const Expr &e, const std::map<const Var *, Range> &relaxed);

// bounds() of sums, constant multiples, and floordiv/floormod by a constant of expressions it
// bounds, by interval arithmetic (TVM's EvalSet): `(i * 8 + k) // 16` over k in [0, 8) is
// `i // 2`, as (i * 8 + 7) // 16 simplifies to it.
std::optional<std::pair<Expr, Expr>> quasiAffineBounds(const Expr &e, const std::map<const Var *, Range> &relaxed) {
  const auto *binary = e.as<BinaryExpr>();
  if (!binary) return std::nullopt;
  std::optional<std::pair<Expr, Expr>> a = bounds(binary->a, relaxed);
  if (!a) return std::nullopt;
  arith::Analyzer analyzer;
  auto simplified = [&](const Expr &lo, const Expr &hi) {
    return std::make_optional(std::make_pair(analyzer.simplify(lo), analyzer.simplify(hi)));
  };
  std::optional<int64_t> constant = asConstInt(binary->b);
  switch (binary->kind()) {
  case NodeKind::Add:
  case NodeKind::Sub: {
    std::optional<std::pair<Expr, Expr>> b = bounds(binary->b, relaxed);
    if (!b) return std::nullopt;
    if (binary->kind() == NodeKind::Add) return simplified(addExpr(a->first, b->first), addExpr(a->second, b->second));
    return simplified(subExpr(a->first, b->second), subExpr(a->second, b->first));
  }
  case NodeKind::Mul:
    if (!constant) return std::nullopt;
    if (*constant >= 0) return simplified(mulExpr(a->first, binary->b), mulExpr(a->second, binary->b));
    return simplified(mulExpr(a->second, binary->b), mulExpr(a->first, binary->b));
  case NodeKind::FloorDiv:
    if (!constant || *constant <= 0) return std::nullopt;
    return simplified(floorDivExpr(a->first, binary->b), floorDivExpr(a->second, binary->b));
  case NodeKind::FloorMod:
    if (!constant || *constant <= 0) return std::nullopt;
    if (analyzer.canProveEqual(floorDivExpr(a->first, binary->b), floorDivExpr(a->second, binary->b)))
      return simplified(floorModExpr(a->first, binary->b), floorModExpr(a->second, binary->b));
    return std::make_pair(intImm(0, e->dtype), intImm(*constant - 1, e->dtype));
  default:
    return std::nullopt;
  }
}

// [lo, hi] of `e` over the relaxed variables; nullopt unless e is quasi-affine in them.
std::optional<std::pair<Expr, Expr>> bounds(const Expr &e, const std::map<const Var *, Range> &relaxed) {
  std::vector<VarRef> vars;
  preOrderVisit(e, [&](const Node &node) {
    const auto *var = node.as<Var>();
    if (var && relaxed.count(var) && std::none_of(vars.begin(), vars.end(), [&](const VarRef &v) { return v.get() == var; }))
      vars.push_back(VarRef(var));
  });
  if (vars.empty()) return std::make_pair(e, e);
  std::optional<LinearEquation> linear = detectLinearEquation(e, vars);
  if (!linear) return quasiAffineBounds(e, relaxed);
  Expr lo = linear->base, hi = linear->base;
  for (size_t i = 0; i < vars.size(); ++i) {
    const Range &range = relaxed.at(vars[i].get());
    std::optional<int64_t> min = asConstInt(range.min), extent = asConstInt(range.extent);
    if (!min || !extent) return std::nullopt;
    int64_t a = linear->coeffs[i] * *min, b = linear->coeffs[i] * (*min + *extent - 1);
    lo = addExpr(lo, intImm(std::min(a, b), e->dtype));
    hi = addExpr(hi, intImm(std::max(a, b), e->dtype));
  }
  return std::make_pair(simplify(lo), simplify(hi));
}

}  // namespace

Interval relaxRange(const Range &range, const std::map<const Var *, Range> &relaxed, arith::Analyzer &outer) {
  std::optional<std::pair<Expr, Expr>> lo = bounds(range.min, relaxed);
  Expr last = simplify(subExpr(addExpr(range.min, range.extent), intImm(1, range.min->dtype)));
  std::optional<std::pair<Expr, Expr>> hi = bounds(last, relaxed);
  if (!lo || !hi) return {range.min, std::nullopt};
  std::optional<int64_t> span = asConstInt(outer.simplify(subExpr(hi->second, lo->first)));
  if (!span) return {lo->first, std::nullopt};
  return {lo->first, *span + 1};
}

Interval relaxRange(const Range &range, const std::map<const Var *, Range> &relaxed) {
  arith::Analyzer nothingKnown;
  return relaxRange(range, relaxed, nothingKnown);
}

Interval uniteIntervals(const Interval &a, const Interval &b) {
  if (!a.extent || !b.extent) return {a.min, std::nullopt};
  std::optional<int64_t> delta = asConstInt(simplify(subExpr(b.min, a.min)));
  if (!delta) return {a.min, std::nullopt};
  int64_t lo = std::min<int64_t>(0, *delta), hi = std::max(*a.extent, *delta + *b.extent);
  return {lo == 0 ? a.min : b.min, hi - lo};
}

std::string whyNotStorageScope(const std::string &primitive, const std::string &scope) {
  if (isStorageScope(scope)) return "";
  return primitive + ": '" + scope + "' is not a storage scope (" + std::string(kStorageScopes) + ")";
}

namespace {

// How many writers of `buffer` TVM's dominance check counts under a loop: it merges the scopes
// of the loop's child blocks (the first that has writers of the buffer wins), so only blocks
// nested inside those children are counted, never the children themselves.
size_t writersUnderLoop(const Stmt &loop, const Buffer *buffer) {
  for (const StmtPath &child : childBlockPaths(loop)) {
    size_t writers = blocksAccessing(child.back().as<BlockRealize>()->block->body, buffer, true).size();
    if (writers) return writers;
  }
  return 0;
}

// TVM's compact-dataflow dominance under a loop: the first buffer the block writes that more than
// one block nested under the loop writes.
std::string whyNotDominantUnderLoop(const Stmt &loop, const Block &block) {
  for (const BufferRegion &write : block.writes)
    if (writersUnderLoop(loop, write.buffer.get()) > 1)
      return "more than one block nested under the loop writes '" + write.buffer->name + "'";
  return "";
}

// TVM's IsDominantBlock in the block's scope: the first buffer it writes that another child
// block of the scope writes too.
std::string whyNotDominant(const StmtPath &blockPath) {
  for (const BufferRegion &write : blockPath.back().as<BlockRealize>()->block->writes)
    if (blocksAccessing(scopeOf(blockPath).back(), write.buffer.get(), true).size() != 1)
      return "it is not the only writer of '" + write.buffer->name + "' in its scope";
  return "";
}

// The first buffer the block reads that it also writes, or null.
const Buffer *firstReadOutput(const Block &block) {
  for (const BufferRegion &read : block.reads)
    if (accessesBuffer(block, read.buffer.get(), true)) return read.buffer.get();
  return nullptr;
}

}  // namespace

std::string whyNotCompleteBlock(const StmtPath &blockPath) {
  const Block &block = *blockPath.back().as<BlockRealize>()->block;
  for (const IterVarRef &iv : block.iterVars)
    if (iv->iterType != IterType::DataPar) return "its iterator '" + iv->var->name + "' is not spatial";
  if (std::string why = whyNotDominant(blockPath); !why.empty()) return why;
  if (const Buffer *readOutput = firstReadOutput(block)) return "it reads '" + readOutput->name + "', which it writes";
  return "";
}

std::string whyNotCompleteOrReduction(const StmtPath &blockPath, const Stmt *loop) {
  const BlockRealize &realize = *blockPath.back().as<BlockRealize>();
  const Block &block = *realize.block;
  if (std::string why = loop ? whyNotDominantUnderLoop(*loop, block) : whyNotDominant(blockPath); !why.empty())
    return why;
  bool spatial = std::all_of(block.iterVars.begin(), block.iterVars.end(),
                             [](const IterVarRef &iv) { return iv->iterType == IterType::DataPar; });
  if (spatial) {
    const Buffer *readOutput = firstReadOutput(block);
    if (!readOutput) return "";
    // Reading its output, it can still be a reduction block (with no reduction iterators).
    if (!block.init) return "it reads '" + readOutput->name + "', which it writes, without a T.init";
  } else if (!block.init) {
    return "it has non-spatial iterators but no T.init (neither a complete nor a reduction block)";
  }
  for (size_t i = 0; i < block.iterVars.size(); ++i) {
    IterType type = block.iterVars[i]->iterType;
    if (type != IterType::DataPar && type != IterType::CommReduce)
      return "its iterator '" + block.iterVars[i]->var->name + "' is neither spatial nor a reduction";
  }
  std::string notAffine = whyNotAffineBinding(realize, loopsInScope(blockPath));
  if (!notAffine.empty()) return notAffine + " is not affine in the loops of its scope";
  std::string problem;
  for (const Stmt &part : {block.init, block.body})
    preOrderVisit(part, [&](const Node &node) {
      const auto *store = node.as<BufferStore>();
      if (!store || !problem.empty()) return;
      for (const Expr &index : store->indices)
        for (const IterVarRef &iv : block.iterVars)
          if (iv->iterType == IterType::CommReduce && usesVar(index, iv->var.get()))
            problem = "it writes '" + store->buffer->name + "' at an index that uses its reduction iterator '" +
                      iv->var->name + "'";
    });
  return problem;
}

Stmt blockNamed(const Stmt &root, const std::string &name) {
  Stmt found;
  preOrderVisit(root, [&](const Node &node) {
    if (const auto *block = node.as<Block>(); block && block->name == name) found = Stmt(block);
  });
  return found;
}

}  // namespace vtac::passes::schedule

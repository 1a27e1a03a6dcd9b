#include "LayoutPadding.h"

#include "BlockTree.h"

#include <map>
#include <optional>
#include <unordered_map>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// A store of the old buffer and the loops its indices depend on (outermost to innermost,
// every loop between the first and the last one used).
struct WriteSite {
  const BufferStore *store = nullptr;
  const BlockRealize *realize = nullptr;  // the innermost block around the store
  std::vector<const For *> loops;
  bool rowMajor = false;
};

// Finds the stores of the old buffer and whether each traverses its shape row-major.
class WriteSiteFinder : public StmtExprVisitor {
public:
  explicit WriteSiteFinder(const Buffer *old) : old_(old) {}
  std::vector<WriteSite> sites;

  void visitFor(const For &op) override {
    depth_[op.loopVar.get()] = {loops_.size(), loops_.size()};
    loops_.push_back(&op);
    StmtExprVisitor::visitFor(op);
    loops_.pop_back();
    depth_.erase(op.loopVar.get());
  }
  void visitLetStmt(const LetStmt &op) override {
    bind(op.var.get(), op.value);
    StmtExprVisitor::visitLetStmt(op);
  }
  void visitBlockRealize(const BlockRealize &op) override {
    for (size_t i = 0; i < op.iterValues.size(); ++i) bind(op.block->iterVars[i]->var.get(), op.iterValues[i]);
    const BlockRealize *outer = realize_;
    realize_ = &op;
    StmtExprVisitor::visitBlockRealize(op);
    realize_ = outer;
  }
  void visitBufferStore(const BufferStore &op) override {
    if (op.buffer.get() != old_) return;
    WriteSite site{&op, realize_, {}, false};
    std::optional<std::pair<size_t, size_t>> range;
    for (const Expr &index : op.indices) unite(range, loopRange(index));
    if (range) site.loops.assign(loops_.begin() + long(range->first), loops_.begin() + long(range->second) + 1);
    site.rowMajor = traversesRowMajor(site);
    sites.push_back(site);
  }

private:
  using DepthRange = std::optional<std::pair<size_t, size_t>>;
  static void unite(DepthRange &into, const DepthRange &other) {
    if (!other) return;
    into = into ? std::make_pair(std::min(into->first, other->first), std::max(into->second, other->second)) : *other;
  }
  DepthRange loopRange(const Expr &e) const {
    DepthRange range;
    preOrderVisit(e, [&](const Node &node) {
      if (const auto *var = node.as<Var>())
        if (auto it = depth_.find(var); it != depth_.end()) unite(range, it->second);
    });
    return range;
  }
  void bind(const Var *var, const Expr &value) {
    DepthRange range = loopRange(value);
    if (!range) return;
    depth_[var] = *range;
    bound_[var] = substitute(value, bound_);
  }
  bool traversesRowMajor(const WriteSite &site) const {
    if (site.loops.empty() || site.loops.size() != old_->rank()) return false;
    for (size_t i = 0; i < site.loops.size(); ++i) {
      const For &loop = *site.loops[i];
      Expr index = substitute(site.store->indices[i], bound_);
      if (index.get() != loop.loopVar.get() || !isZero(loop.min) || !structuralEqual(loop.extent, old_->shape[i]) ||
          loop.forKind != ForKind::Serial)
        return false;
    }
    return true;
  }

  const Buffer *old_;
  std::vector<const For *> loops_;
  std::unordered_map<const Var *, std::pair<size_t, size_t>> depth_;
  VarMap bound_;
  const BlockRealize *realize_ = nullptr;
};

// The loops over the new shape around `body`.
Stmt loopsOverNewShape(const PaddedLayout &layout, Stmt body) {
  for (size_t i = layout.axes.size(); i-- > 0;)
    body = make<For>(layout.axes[i], intImm(0, layout.axes[i]->dtype), layout.transformed->shape[i], ForKind::Serial, body);
  return body;
}

// Block iterators `v_<axis>` over the new shape, bound to the axes.
struct NewShapeIters {
  std::vector<IterVarRef> iterVars;
  std::vector<Expr> indices, values;
  VarMap axisToIter;
};
NewShapeIters newShapeIters(const PaddedLayout &layout) {
  NewShapeIters iters;
  for (size_t i = 0; i < layout.axes.size(); ++i) {
    const VarRef &axis = layout.axes[i];
    VarRef v = makeVar("v_" + axis->name, axis->dtype);
    iters.iterVars.push_back(make<IterVar>(v, Range{intImm(0, v->dtype), layout.transformed->shape[i]}, IterType::DataPar));
    iters.indices.push_back(v);
    iters.values.push_back(axis);
    iters.axisToIter[axis.get()] = v;
  }
  return iters;
}

Expr ifThenElse(const Expr &condition, const Expr &then, const Expr &otherwise) {
  return make<Call>(otherwise->dtype, "tir.if_then_else", std::vector<Expr>{condition, then, otherwise});
}

// Rewrites the body of a row-major write site's innermost loop: its loop variables (and the
// block iterators the store is indexed by) become the inverse map over the new axes, and each
// store at the site's indices writes the pad value where the new indices are padding.
class StoreReplacer : public StmtExprMutator {
public:
  StoreReplacer(const WriteSite &site, const PaddedLayout &layout) : site_(site), layout_(layout) {
    for (size_t i = 0; i < site.loops.size(); ++i) remap_[site.loops[i]->loopVar.get()] = layout.inverse[i];
    newIndices_.assign(layout.axes.begin(), layout.axes.end());
    padding_ = layout.padding;
    if (site.realize) redefineBlockIters(*site.realize);
  }
  bool replacedAll() const { return replacedAll_; }

  Expr visitVar(const Var &op) override {
    auto it = remap_.find(&op);
    return it == remap_.end() ? Expr(&op) : it->second;
  }
  Stmt visitBufferStore(const BufferStore &op) override {
    bool atSite = op.buffer.get() == layout_.old && op.indices.size() == site_.store->indices.size();
    for (size_t i = 0; atSite && i < op.indices.size(); ++i) atSite = structuralEqual(op.indices[i], site_.store->indices[i]);
    if (!atSite) {
      replacedAll_ = false;
      return StmtExprMutator::visitBufferStore(op);
    }
    Expr value = ifThenElse(padding_, layout_.padValueAt(newIndices_), visitExpr(op.value));
    return make<BufferStore>(layout_.transformed, value, newIndices_, op.loc());
  }
  Stmt visitBlockRealize(const BlockRealize &op) override {
    Stmt visited = StmtExprMutator::visitBlockRealize(op);
    if (&op != site_.realize || iterVars_.empty()) return visited;
    auto *realize = copyNode(*visited.as<BlockRealize>());
    auto *block = copyNode(*realize->block);
    block->iterVars = iterVars_;
    const std::vector<Expr> &old = realize->iterValues;
    std::vector<Expr> values(old.begin(), old.begin() + long(keptBefore_));
    values.insert(values.end(), layout_.axes.begin(), layout_.axes.end());
    values.insert(values.end(), old.begin() + long(keptBefore_ + site_.store->indices.size()), old.end());
    realize->iterValues = values;
    realize->block = BlockRef(block);
    return Stmt(realize);
  }

private:
  // When the stored indices are consecutive data-parallel iterators of the block, they are
  // replaced by iterators over the new shape (TVM: "v_" + the axis name).
  void redefineBlockIters(const BlockRealize &realize) {
    const Block &block = *realize.block;
    const std::vector<Expr> &indices = site_.store->indices;
    if (indices.empty() || block.iterVars.size() < indices.size()) return;
    size_t start = 0;
    while (start + indices.size() < block.iterVars.size() && indices[0].get() != block.iterVars[start]->var.get()) ++start;
    for (size_t i = 0; i < indices.size(); ++i)
      if (indices[i].get() != block.iterVars[start + i]->var.get() || block.iterVars[start + i]->iterType != IterType::DataPar)
        return;
    NewShapeIters iters = newShapeIters(layout_);
    iterVars_.assign(block.iterVars.begin(), block.iterVars.begin() + long(start));
    iterVars_.insert(iterVars_.end(), iters.iterVars.begin(), iters.iterVars.end());
    iterVars_.insert(iterVars_.end(), block.iterVars.begin() + long(start + indices.size()), block.iterVars.end());
    keptBefore_ = start;
    for (size_t i = 0; i < indices.size(); ++i)
      remap_[block.iterVars[start + i]->var.get()] = substitute(layout_.inverse[i], iters.axisToIter);
    newIndices_ = iters.indices;
    padding_ = substitute(layout_.padding, iters.axisToIter);
  }

  const WriteSite &site_;
  const PaddedLayout &layout_;
  VarMap remap_;
  std::vector<Expr> newIndices_;
  Expr padding_;
  std::vector<IterVarRef> iterVars_;  // empty: the block keeps its iterators
  size_t keptBefore_ = 0;
  bool replacedAll_ = true;
};

// Replaces statements by others and appends one after a given statement, splicing into the
// enclosing sequence.
class StmtSplicer : public StmtExprMutator {
public:
  std::map<const StmtNode *, Stmt> replacements;
  const StmtNode *insertAfter = nullptr;
  Stmt inserted;

  Stmt visitStmt(const Stmt &stmt) override {
    if (auto it = replacements.find(stmt.get()); it != replacements.end()) return it->second;
    Stmt visited = StmtExprMutator::visitStmt(stmt);
    if (stmt.get() == insertAfter) return make<SeqStmt>(std::vector<Stmt>{visited, inserted});
    return visited;
  }
  Stmt visitSeqStmt(const SeqStmt &op) override {
    std::vector<Stmt> stmts;
    bool changed = false;
    for (const Stmt &s : op.stmts) {
      Stmt visited = visitStmt(s);
      changed |= visited != s;
      if (const auto *seq = visited.as<SeqStmt>(); seq && s.get() == insertAfter)
        stmts.insert(stmts.end(), seq->stmts.begin(), seq->stmts.end());
      else
        stmts.push_back(visited);
    }
    return changed ? make<SeqStmt>(stmts, op.loc()) : Stmt(&op);
  }
};

std::string blockNameFor(const PaddedLayout &layout, const char *suffix) {
  return "buffer_" + layout.old->name + suffix;
}

PaddedBody withPrologue(const Stmt &body, const PaddedLayout &layout) {
  NewShapeIters iters = newShapeIters(layout);
  Expr padding = substitute(layout.padding, iters.axisToIter);
  Expr holds = makeBinary(NodeKind::EQ, bufferLoad(layout.transformed, iters.indices), layout.padValueAt(iters.indices));
  Expr assumption = makeBinary(NodeKind::Or, notExpr(padding), holds);
  Stmt evaluate = make<Evaluate>(make<Call>(DataType::boolTy(), "tir.assume", std::vector<Expr>{assumption}));
  std::string name = blockNameFor(layout, "_assumptions");
  auto block = make<Block>(name, iters.iterVars, std::vector<BufferRegion>{}, std::vector<BufferRegion>{}, evaluate);
  Stmt prologue = loopsOverNewShape(layout, make<BlockRealize>(iters.values, nullptr, block));
  // The prologue opens the root block's body (TVM's scope of a parameter).
  auto prepend = [&](const Stmt &to) {
    std::vector<Stmt> stmts{prologue};
    for (const Stmt &s : statementsOf(to)) stmts.push_back(s);
    return make<SeqStmt>(stmts);
  };
  if (const auto *root = body.as<BlockRealize>(); root && root->block->iterVars.empty()) {
    auto *realize = copyNode(*root);
    auto *rootBlock = copyNode(*root->block);
    rootBlock->body = prepend(rootBlock->body);
    realize->block = BlockRef(rootBlock);
    return {Stmt(realize), {name}};
  }
  return {prepend(body), {name}};
}

PaddedBody withEpilogue(const Stmt &body, const PaddedLayout &layout, const WriteSite &last) {
  NewShapeIters iters = newShapeIters(layout);
  Stmt store = make<BufferStore>(layout.transformed, layout.padValueAt(iters.indices), iters.indices);
  std::string name = blockNameFor(layout, "_padding");
  auto block = make<Block>(name, iters.iterVars, std::vector<BufferRegion>{}, std::vector<BufferRegion>{}, store);
  StmtSplicer splicer;
  splicer.inserted = loopsOverNewShape(layout, make<BlockRealize>(iters.values, layout.padding, block));
  splicer.insertAfter = last.loops.empty() ? static_cast<const StmtNode *>(last.realize) : last.loops.front();
  return {splicer.visitStmt(body), {name}};
}

}  // namespace

llvm::Expected<PaddedBody> fillPadding(const Stmt &body, const PaddedLayout &layout, SourceLoc at) {
  WriteSiteFinder finder(layout.old);
  finder.visitStmt(body);
  if (finder.sites.empty()) return withPrologue(body, layout);

  StmtSplicer splicer;
  for (const WriteSite &site : finder.sites) {
    if (!site.rowMajor || splicer.replacements.count(site.loops.front())) continue;
    StoreReplacer replacer(site, layout);
    Stmt inner = replacer.visitStmt(site.loops.back()->body);
    if (replacer.replacedAll()) splicer.replacements[site.loops.front()] = loopsOverNewShape(layout, inner);
  }
  if (!splicer.replacements.empty()) return PaddedBody{splicer.visitStmt(body), {}};
  const WriteSite &last = finder.sites.back();
  if (last.loops.empty() && !last.realize)
    return diagnosticError(at, "transform_layout: '" + layout.old->name + "' is stored outside any block or loop; the padding cannot be filled");
  return withEpilogue(body, layout, last);
}

}  // namespace vtac::passes::schedule

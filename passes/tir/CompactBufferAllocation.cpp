#include "tir/CompactBufferAllocation.h"

#include <unordered_map>
#include <unordered_set>

#include "tir/BufferLayout.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/RegionInference.h"
#include "vtac/ir/SideEffect.h"
#include "vtac/ir/StorageScope.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/PassOptions.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {

std::vector<std::string> compactBufferAllocationOptions() { return {"compact-buffer-allocation.is-strict"}; }

namespace {

struct EnclosingLoop {
  ir::VarRef var;
  ir::Expr min, extent;
  std::string threadTag;  // empty for a plain loop
};

// A compacted buffer: the new (smaller) buffer over the same data, and where its window starts.
struct Compaction {
  ir::BufferRef buffer;
  std::vector<ir::Expr> start;
};

class BufferCompactor : public FirstErrorMutator {
public:
  BufferCompactor(StorageAlignments alignments, bool strict) : alignments_(std::move(alignments)), strict_(strict) {}

  ir::Stmt visitFor(const ir::For &op) override {
    loops_.push_back({op.loopVar, op.min, op.extent, op.threadBinding ? op.threadBinding->threadTag : ""});
    ir::Stmt result = StmtExprMutator::visitFor(op);
    loops_.pop_back();
    return result;
  }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    const auto *iter = op.node.as<ir::IterVar>();
    if (!iter || (op.key != "thread_extent" && op.key != "virtual_thread")) return StmtExprMutator::visitAttrStmt(op);
    ir::Expr min = iter->dom.defined() ? iter->dom.min : ir::intImm(0, op.value->dtype);
    loops_.push_back({iter->var, min, op.value, iter->threadTag});
    ir::Stmt result = StmtExprMutator::visitAttrStmt(op);
    loops_.pop_back();
    return result;
  }

  ir::Stmt visitBlock(const ir::Block &op) override {
    if (!op.iterVars.empty())
      fail(op, "block '" + op.name + "' still has iteration variables; run convert-blocks-to-opaque first");
    std::vector<ir::BufferRef> allocations = op.allocBuffers;
    bool compacted = false;
    for (ir::BufferRef &buffer : allocations) {
      std::optional<Compaction> compaction = compact(op.body, op.matchBuffers, buffer);
      if (!compaction) continue;
      buffer = compaction->buffer;
      compactions_[buffer->data.get()] = std::move(*compaction);
      compacted = true;
    }
    ir::Stmt visited = StmtExprMutator::visitBlock(op);
    const auto &block = *visited.as<ir::Block>();
    std::vector<ir::BufferRegion> reads = block.reads, writes = block.writes;
    std::vector<ir::MatchBufferRegion> matches = block.matchBuffers;
    bool rebased = rebase(reads) | rebase(writes);
    for (ir::MatchBufferRegion &match : matches) rebased |= rebase(match.source);
    if (!compacted && !rebased) return visited;
    ir::Block *copy = ir::copyNode(block);
    copy->allocBuffers = std::move(allocations);
    copy->reads = std::move(reads);
    copy->writes = std::move(writes);
    copy->matchBuffers = std::move(matches);
    return ir::Stmt(copy);
  }

  // After lower-opaque-block an alloc_buffer is an Allocate of a DeclBuffer over its data; TVM
  // compacts that form too, so compacting before or after lowering gives the same program. The
  // view may also be a T.Buffer over the data that the body accesses without declaring it.
  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    const auto *decl = op.body.as<ir::DeclBuffer>();
    ir::BufferRef view = soleView(op);
    if (!view) return StmtExprMutator::visitAllocate(op);
    std::optional<Compaction> compaction = compact(decl ? decl->body : op.body, {}, view);
    if (!compaction) return StmtExprMutator::visitAllocate(op);
    ir::BufferRef buffer = compaction->buffer;
    compactions_[buffer->data.get()] = std::move(*compaction);
    ir::Stmt body = decl ? ir::make<ir::DeclBuffer>(buffer, visitStmt(decl->body), decl->loc()) : visitStmt(op.body);
    return ir::make<ir::Allocate>(op.bufferVar, op.dtype, allocationShape(*buffer), op.condition, body, op.annotations,
                                  op.loc());
  }

  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    ir::Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto &load = *visited.as<ir::BufferLoad>();
    const Compaction *compaction = compactionOf(*load.buffer);
    if (!compaction) return visited;
    return ir::make<ir::BufferLoad>(compaction->buffer, rebase(*compaction, load.indices), load.loc());
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto &store = *visited.as<ir::BufferStore>();
    const Compaction *compaction = compactionOf(*store.buffer);
    if (!compaction) return visited;
    return ir::make<ir::BufferStore>(compaction->buffer, store.value, rebase(*compaction, store.indices), store.loc());
  }

private:
  const Compaction *compactionOf(const ir::Buffer &buffer) const {
    auto it = compactions_.find(buffer.data.get());
    return it == compactions_.end() || it->second.buffer->rank() != buffer.rank() ? nullptr : &it->second;
  }

  // The one buffer over the allocation's memory that its body declares or accesses, when it is
  // exactly the allocation (an alias of another type or shape would be cut off by a smaller
  // allocation); else null.
  static ir::BufferRef soleView(const ir::Allocate &alloc) {
    ir::BufferRef view;
    bool aliased = false;
    auto check = [&](const ir::BufferRef &buffer) {
      if (buffer->data != alloc.bufferVar) return;
      aliased |= view && view.get() != buffer.get();
      view = buffer;
    };
    ir::preOrderVisit(alloc.body, [&](const ir::Node &node) {
      if (const auto *load = node.as<ir::BufferLoad>()) check(load->buffer);
      if (const auto *store = node.as<ir::BufferStore>()) check(store->buffer);
      if (const auto *decl = node.as<ir::DeclBuffer>()) check(decl->buffer);
    });
    if (!view || aliased || view->dtype != alloc.dtype || !view->strides.empty() || alloc.constantData ||
        view->rank() != alloc.extents.size())
      return nullptr;
    for (size_t d = 0; d < view->rank(); ++d)
      if (!ir::structuralEqual(view->shape[d], alloc.extents[d])) return nullptr;
    return view;
  }

  static std::vector<ir::Expr> rebase(const Compaction &compaction, const std::vector<ir::Expr> &indices) {
    std::vector<ir::Expr> result;
    for (size_t i = 0; i < indices.size(); ++i) result.push_back(ir::simplify(indices[i] - compaction.start[i]));
    return result;
  }

  bool rebase(ir::BufferRegion &region) const {
    const Compaction *compaction = compactionOf(*region.buffer);
    if (!compaction || region.buffer == compaction->buffer) return false;
    region.buffer = compaction->buffer;
    for (size_t i = 0; i < region.region.size(); ++i)
      region.region[i].min = ir::simplify(region.region[i].min - compaction->start[i]);
    return true;
  }

  bool rebase(std::vector<ir::BufferRegion> &regions) const {
    bool changed = false;
    for (ir::BufferRegion &region : regions) changed |= rebase(region);
    return changed;
  }

  // The loops outside the allocation that `buffer` is shared across (TVM's NeedRelaxThread).
  bool sharedAcross(const EnclosingLoop &loop, const ir::Buffer &buffer) const {
    int rank = loop.threadTag.empty() ? -1 : ir::threadRank(loop.threadTag);
    int storage = ir::storageRank(buffer.scope());
    if (storage == 2) return loop.threadTag == "threadIdx.x";  // warp memory: across the lanes only
    return rank >= 0 && storage <= rank;
  }

  // Bounds of an expression linear in the enclosing loops' variables, each loop at its first or
  // last iteration; symbolic where a loop's range or the constant part is.
  std::optional<std::pair<ir::Expr, ir::Expr>> bounds(const ir::Expr &e) const {
    std::vector<ir::VarRef> vars;
    for (const EnclosingLoop &loop : loops_) vars.push_back(loop.var);
    auto equation = ir::detectLinearEquation(e, vars);
    if (!equation) return constantBounds(e);
    ir::Expr lo = equation->base, hi = equation->base;
    for (size_t i = 0; i < vars.size(); ++i) {
      int64_t c = equation->coeffs[i];
      if (c == 0) continue;
      auto extent = ir::asConstInt(loops_[i].extent);
      if (extent && *extent < 1) return std::nullopt;  // never runs: no last iteration
      ir::Expr first = loops_[i].min * c, last = (loops_[i].min + loops_[i].extent - 1) * c;
      lo = lo + (c > 0 ? first : last);
      hi = hi + (c > 0 ? last : first);
    }
    return std::make_pair(ir::simplify(lo), ir::simplify(hi));
  }

  // Constant bounds of an expression not linear in the loops (`bx // 18 * 128`), from the ranges
  // of the loops with constant bounds; nullopt where they give none.
  std::optional<std::pair<ir::Expr, ir::Expr>> constantBounds(const ir::Expr &e) const {
    ir::arith::Analyzer analyzer;
    for (const EnclosingLoop &loop : loops_)
      if (ir::asConstInt(loop.min) && ir::asConstInt(loop.extent)) analyzer.bind(loop.var, ir::Range{loop.min, loop.extent});
    ir::arith::IntBound bound = analyzer.constIntBound(e);
    if (bound.min == ir::arith::IntBound::kNegInf || bound.max == ir::arith::IntBound::kPosInf) return std::nullopt;
    return std::make_pair(ir::intImm(bound.min, e->dtype), ir::intImm(bound.max, e->dtype));
  }

  // `a <= b`, proven by their difference folding to a constant.
  static bool provenAtMost(const ir::Expr &a, const ir::Expr &b) {
    auto gap = ir::asConstInt(ir::simplify(b - a));
    return gap && *gap >= 0;
  }

  // A window start that reads memory (a sparse row's `A_indptr[i] + k`) has one value in the
  // whole scope when nothing there may write what it reads: no store into those buffers, and
  // their data not handed to anything (a call may write through it).
  static bool fixedIn(const ir::Expr &start, const ir::Stmt &scope) {
    if (ir::sideEffect(start) == ir::SideEffect::Opaque) return false;
    std::unordered_set<const ir::Var *> read;
    ir::preOrderVisit(start, [&](const ir::Node &node) {
      if (const auto *load = node.as<ir::BufferLoad>()) read.insert(load->buffer->data.get());
    });
    bool written = false;
    ir::preOrderVisit(scope, [&](const ir::Node &node) {
      if (const auto *store = node.as<ir::BufferStore>()) written |= read.count(store->buffer->data.get()) != 0;
      if (const auto *var = node.as<ir::Var>()) written |= read.count(var) != 0;
    });
    return !written;
  }

  bool mentionsLoopVar(const ir::Expr &e) const {
    bool found = false;
    ir::preOrderVisit(e, [&](const ir::Node &node) {
      for (const EnclosingLoop &loop : loops_) found |= loop.var.get() == &node;
    });
    return found;
  }

  // The window of `buffer` that the accesses in `scope` (a block's body with its match_buffers,
  // or an allocation's) touch, with the strides its storage alignments ask for; or nullopt to
  // keep the buffer as it is.
  std::optional<Compaction> compact(const ir::Stmt &scope, const std::vector<ir::MatchBufferRegion> &matchBuffers,
                                    const ir::BufferRef &buffer) const {
    // Accesses seen from inside the allocation, with the loops it is shared across re-entered. An
    // enclosing loop of extent 1 is its start there (TVM's analyzer knows its range), so that
    // `u * 16 + t * 8` and `t * 8` compare as the same window.
    ir::VarMap unitLoops;
    for (const EnclosingLoop &loop : loops_)
      if (ir::isOne(loop.extent) && !sharedAcross(loop, *buffer)) unitLoops[loop.var.get()] = loop.min;
    ir::Stmt body = unitLoops.empty() ? scope : ir::substitute(scope, unitLoops);
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
      if (sharedAcross(*it, *buffer))
        body = ir::make<ir::For>(it->var, it->min, it->extent, ir::ForKind::Serial, body);
    auto probe = ir::make<ir::Block>("", std::vector<ir::IterVarRef>{}, std::vector<ir::BufferRegion>{},
                                     std::vector<ir::BufferRegion>{}, body, nullptr, std::vector<ir::BufferRef>{},
                                     matchBuffers);
    ir::RegionInferenceOptions options{/*enterOpaqueBlocks=*/true, /*narrowByConditions=*/true, {}};
    for (const EnclosingLoop &loop : loops_)
      if (!sharedAcross(loop, *buffer)) options.outerRanges.emplace_back(loop.var, ir::Range{loop.min, loop.extent});
    ir::BlockAccessRegions regions = ir::inferAccessRegions(*probe, {buffer}, options);
    std::optional<std::vector<ir::Range>> window;
    for (const auto *list : {&regions.reads, &regions.writes})
      for (const ir::BufferRegion &region : *list)
        if (region.buffer == buffer) window = window ? unite(*window, region.region) : region.region;
    if (window && window->size() != buffer->rank()) window.reset();
    auto aligned = alignments_.find(buffer->data.get());
    if (!window && aligned == alignments_.end()) return std::nullopt;
    Compaction compaction;
    std::vector<ir::Expr> shape;
    bool smaller = false;
    for (size_t d = 0; d < buffer->rank(); ++d) {
      ir::Range range = fitInside(window ? (*window)[d] : ir::Range{}, buffer->shape[d], scope);
      smaller |= !ir::isZero(range.min) || !ir::structuralEqual(range.extent, buffer->shape[d]);
      compaction.start.push_back(range.min);
      shape.push_back(range.extent);
    }
    std::vector<ir::Expr> strides;
    if (aligned != alignments_.end()) strides = alignedStrides(aligned->second, shape);
    if (!smaller && strides.empty()) return std::nullopt;
    ir::Buffer *copy = ir::copyNode(*buffer);
    copy->shape = std::move(shape);
    copy->strides = std::move(strides);
    compaction.buffer = ir::BufferRef(copy);
    return compaction;
  }

  // Per dimension, the smallest range covering both; a dimension whose bounds do not differ by
  // a constant becomes unknown (an absent range).
  static std::vector<ir::Range> unite(const std::vector<ir::Range> &a, const std::vector<ir::Range> &b) {
    std::vector<ir::Range> result;
    for (size_t d = 0; d < a.size() && d < b.size(); ++d) {
      if (!a[d].defined() || !b[d].defined()) {
        result.push_back({});
        continue;
      }
      auto lowGap = ir::asConstInt(ir::simplify(a[d].min - b[d].min));
      auto highGap = ir::asConstInt(ir::simplify((a[d].min + a[d].extent) - (b[d].min + b[d].extent)));
      if (!lowGap || !highGap) {
        result.push_back({});
        continue;
      }
      ir::Expr min = *lowGap <= 0 ? a[d].min : b[d].min;
      ir::Expr end = *highGap >= 0 ? a[d].min + a[d].extent : b[d].min + b[d].extent;
      result.push_back({min, ir::simplify(end - min)});
    }
    return result;
  }

  // The window if it provably lies in [0, extent) (or, not strict, wherever it lies) with a size
  // independent of the loops outside (a loop-dependent size is replaced by its constant upper
  // bound); else the whole.
  ir::Range fitInside(const ir::Range &window, const ir::Expr &dimExtent, const ir::Stmt &scope) const {
    ir::Range whole{ir::intImm(0, dimExtent->dtype), dimExtent};
    if (!window.defined()) return whole;
    ir::Expr size = window.extent;
    if (mentionsLoopVar(size)) {
      auto sizeBounds = bounds(size);
      auto largest = sizeBounds ? ir::asConstInt(sizeBounds->second) : std::nullopt;
      if (!largest) return whole;
      size = ir::intImm(*largest, size->dtype);
    }
    ir::Expr zero = ir::intImm(0, dimExtent->dtype);
    auto start = bounds(window.min);
    auto end = bounds(ir::simplify(window.min + size));
    bool endsInside = ir::structuralEqual(ir::simplify(window.min + size), dimExtent) ||
                      (end && provenAtMost(end->second, dimExtent));
    bool startsInside = start && provenAtMost(zero, start->first);
    if (!strict_ || (startsInside && endsInside)) return {window.min, size};
    // A window that may start below 0 (a padded tile's) or end past the dimension but is no
    // larger than it keeps its size, and starts at max(0, start) where it may start below 0: a
    // valid program accesses neither below 0 nor past the end, so its accesses still fit (TVM's
    // clamp). The start must be fixed in the scope: bounded by the loops outside, or reading
    // only memory that the scope does not write.
    if ((start || fixedIn(window.min, scope)) && provenAtMost(size, dimExtent))
      return {startsInside ? window.min : ir::simplify(ir::makeBinary(ir::NodeKind::Max, zero, window.min)), size};
    return whole;
  }

  std::vector<EnclosingLoop> loops_;
  std::unordered_map<const ir::Var *, Compaction> compactions_;
  StorageAlignments alignments_;
  bool strict_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> compactBufferAllocation(const ir::PrimFuncRef &func, PassContext &context) {
  if (isFromLegacyTeSchedule(*func)) return func;
  llvm::Expected<int64_t> strict = integerOption(context, "compact-buffer-allocation.is-strict", 1);
  if (!strict) return strict.takeError();
  BufferCompactor compactor(collectStorageAlignments(func->body), *strict != 0);
  return mutateBody(func, compactor);
}

}  // namespace vtac::passes

// Block read/write region inference: every access becomes an interval [lo, hi] per dimension
// of linear forms; loop variables of loops inside the block are replaced by their bounds,
// accesses to the same buffer are unioned when their bounds differ by constants, and whatever
// cannot be bounded covers the whole dimension.
#include "vtac/ir/RegionInference.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "LinearForm.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::ir {
namespace {

using detail::LinearForm;
using detail::toLinearForm;

LinearForm linear(const Expr &e) {
  if (auto form = toLinearForm(e)) return *form;
  LinearForm opaque;  // non-integer index: an atom of its own
  opaque.addTerm(e, 1);
  return opaque;
}

LinearForm difference(const LinearForm &a, const LinearForm &b) {
  LinearForm d = a;
  d.add(b, -1);
  return d;
}

// One dimension of an access: inclusive bounds, and the expression to print as the region's
// start (the index as written for an unrelaxed access).
struct Interval {
  LinearForm lo, hi;
  Expr minExpr;
  bool whole = false;
};

struct AccessEntry {
  BufferRef buffer;
  std::vector<Interval> dims;
};

Interval wholeDimension() {
  Interval i;
  i.whole = true;
  return i;
}

Interval unite(const Interval &a, const Interval &b) {
  if (a.whole || b.whole) return wholeDimension();
  LinearForm dLo = difference(a.lo, b.lo), dHi = difference(a.hi, b.hi);
  if (!dLo.isConstant() || !dHi.isConstant()) return wholeDimension();
  Interval out;
  bool aLower = dLo.constant <= 0;
  out.lo = aLower ? a.lo : b.lo;
  out.minExpr = aLower ? a.minExpr : b.minExpr;
  out.hi = dHi.constant >= 0 ? a.hi : b.hi;
  return out;
}

class RegionCollector : public StmtExprVisitor {
public:
  RegionCollector(const Block &block, const std::vector<BufferRef> &knownBuffers, RegionInferenceOptions options)
      : options_(options) {
    if (options.narrowByConditions) {
      analyzer_.emplace();
      for (const auto &[var, range] : options.outerRanges) analyzer_->bind(var, range);
    }
    for (const BufferRef &b : knownBuffers) dataVars_.emplace(b->data.get(), b);
    for (const BufferRef &b : block.allocBuffers) allocated_.insert(b.get());
    for (const MatchBufferRegion &m : block.matchBuffers) matched_.emplace(m.buffer.get(), &m);
  }

  BlockAccessRegions collect(const Block &block) {
    visitStmt(block.body);
    if (block.init) visitStmt(block.init);
    BlockAccessRegions result;
    std::unordered_set<const Buffer *> written;
    for (const AccessEntry &w : writes_) written.insert(w.buffer.get());
    for (const AccessEntry &r : reads_)
      if (!block.init || !written.count(r.buffer.get())) result.reads.push_back(toRegion(r));
    for (const AccessEntry &w : writes_) result.writes.push_back(toRegion(w));
    return result;
  }

  void visitFor(const For &op) override {
    visitExpr(op.min);
    visitExpr(op.extent);
    visitLoop(op.loopVar, op.min, op.extent, op.body);
  }

  // A thread launched inside the block (lowered TIR's form of a thread-bound loop) ranges over
  // its extent like a loop, in compaction's view, so that either form gives the same window.
  void visitAttrStmt(const AttrStmt &op) override {
    const auto *iter = op.node.as<IterVar>();
    if (!options_.narrowByConditions || !iter || (op.key != "thread_extent" && op.key != "virtual_thread"))
      return StmtExprVisitor::visitAttrStmt(op);
    visitExpr(op.value);
    visitLoop(iter->var, iter->dom.defined() ? iter->dom.min : intImm(0, op.value->dtype), op.value, op.body);
  }

  void visitLetStmt(const LetStmt &op) override {
    visitExpr(op.value);
    lets_[op.var.get()] = substitute(op.value, lets_);
    visitStmt(op.body);
    lets_.erase(op.var.get());
  }

  void visitBufferLoad(const BufferLoad &op) override {
    recordPointAccess(op.buffer, op.indices, reads_);
    StmtExprVisitor::visitBufferLoad(op);
  }

  void visitBufferStore(const BufferStore &op) override {
    visitExpr(op.value);
    recordPointAccess(op.buffer, op.indices, writes_);
    visitExprs(op.indices);
  }

  void visitVar(const Var &op) override {
    auto it = dataVars_.find(&op);
    if (it == dataVars_.end()) return;
    recordWhole(it->second, reads_);
    recordWhole(it->second, writes_);
  }

  void visitCall(const Call &op) override {
    // tvm_access_ptr(type, data, offset, extent, rw_mask): whole-buffer access per mask bits.
    if (op.op == "tir.tvm_access_ptr" && op.args.size() == 5) {
      const auto *data = op.args[1].as<Var>();
      auto mask = asConstInt(op.args[4]);
      auto it = data ? dataVars_.find(data) : dataVars_.end();
      if (it != dataVars_.end() && mask) {
        if (*mask & 1) recordWhole(it->second, reads_);
        if (*mask & 2) recordWhole(it->second, writes_);
        visitExpr(op.args[2]);
        visitExpr(op.args[3]);
        return;
      }
    }
    if (op.op == "tir.if_then_else" && op.args.size() == 3) {
      visitExpr(op.args[0]);
      underCondition(op.args[0], true, [&] { visitExpr(op.args[1]); });
      underCondition(op.args[0], false, [&] { visitExpr(op.args[2]); });
      return;
    }
    StmtExprVisitor::visitCall(op);
  }

  void visitIfThenElse(const IfThenElse &op) override {
    visitExpr(op.condition);
    underCondition(op.condition, true, [&] { visitStmt(op.thenCase); });
    if (op.elseCase) underCondition(op.condition, false, [&] { visitStmt(op.elseCase); });
  }

  void visitBlockRealize(const BlockRealize &op) override {
    visitExprs(op.iterValues);
    if (op.predicate) visitExpr(op.predicate);
    const Block &inner = *op.block;
    if (options_.enterOpaqueBlocks && inner.iterVars.empty()) {
      for (const BufferRef &b : inner.allocBuffers) allocated_.insert(b.get());
      for (const MatchBufferRegion &m : inner.matchBuffers) matched_.emplace(m.buffer.get(), &m);
      Expr predicate = op.predicate ? op.predicate : boolImm(true);
      underCondition(predicate, true, [&] {
        if (inner.init) visitStmt(inner.init);
        visitStmt(inner.body);
      });
      return;
    }
    VarMap bindings = lets_;
    for (size_t i = 0; i < inner.iterVars.size() && i < op.iterValues.size(); ++i)
      bindings[inner.iterVars[i]->var.get()] = op.iterValues[i];
    for (const BufferRegion &r : inner.reads) recordRegion(r, bindings, reads_);
    for (const BufferRegion &r : inner.writes) recordRegion(r, bindings, writes_);
  }

private:
  void visitLoop(const VarRef &var, const Expr &min, const Expr &extent, const Stmt &body) {
    LinearForm lo = relaxIfPossible(linear(min), false), hi = lo;
    hi.add(linear(extent), 1);
    hi.constant -= 1;
    hi = relaxIfPossible(hi, true);
    loopBounds_[var.get()] = {lo, hi};
    if (analyzer_ && lo.isConstant() && hi.isConstant())
      analyzer_->bind(var, Range{intImm(lo.constant, var->dtype), intImm(hi.constant - lo.constant + 1, var->dtype)});
    visitStmt(body);
    loopBounds_.erase(var.get());
  }

  // Runs `visit` with the loop bounds narrowed by `condition` holding (or not), when the
  // options ask for it: the analyzer derives the narrowed bounds of constant-bound loops.
  template <class Visit> void underCondition(const Expr &condition, bool holds, Visit visit) {
    if (!analyzer_) return visit();
    auto saved = loopBounds_;
    // Simplified first, so that a negated `or` becomes conjuncts the scope narrows by.
    Expr fact = analyzer_->rewriteSimplify(holds ? condition : make<Not>(condition));
    arith::Analyzer::ConstraintScope scope(*analyzer_, fact);
    size_t savedFacts = facts_.size();
    for (const Expr &conjunct : arith::conjuncts(fact, arith::LikelyConjunct::LookThrough)) addLinearFacts(conjunct);
    for (auto &[var, bounds] : loopBounds_) {
      if (!bounds.first.isConstant() || !bounds.second.isConstant()) continue;
      arith::IntBound narrowed = analyzer_->constIntBound(VarRef(var));
      int64_t lo = std::max(bounds.first.constant, narrowed.min), hi = std::min(bounds.second.constant, narrowed.max);
      if (lo > hi) continue;  // an empty range keeps the bounds: the branch is dead anyway
      bounds.first.constant = lo;
      bounds.second.constant = hi;
    }
    visit();
    loopBounds_ = std::move(saved);
    facts_.resize(savedFacts);
  }

  // A comparison of integer expressions linear in the loop variables, as the forms that are >= 0
  // when it holds (`j * 8 + k < 60` is `59 - j * 8 - k >= 0`); others add nothing.
  void addLinearFacts(const Expr &comparison) {
    const auto *cmp = comparison.as<BinaryExpr>();
    if (!cmp || !BinaryExpr::isComparison(cmp->kind()) || !cmp->a->dtype.isInt() || cmp->a->dtype.lanes() != 1) return;
    auto a = toLinearForm(cmp->a), b = toLinearForm(cmp->b);
    if (!a || !b) return;
    LinearForm aMinusB = withPinnedLoops(difference(*a, *b)), bMinusA = withPinnedLoops(difference(*b, *a));
    for (const detail::LinearTerm &t : aMinusB.terms) {
      const auto *v = t.atom.as<Var>();
      if (t.coeff != 0 && (!v || !loopBounds_.count(v))) return;
    }
    switch (cmp->kind()) {
    case NodeKind::LT: bMinusA.constant -= 1; facts_.push_back(bMinusA); break;
    case NodeKind::LE: facts_.push_back(bMinusA); break;
    case NodeKind::GT: aMinusB.constant -= 1; facts_.push_back(aMinusB); break;
    case NodeKind::GE: facts_.push_back(aMinusB); break;
    case NodeKind::EQ: facts_.push_back(aMinusB); facts_.push_back(bMinusA); break;
    default: break;
    }
  }

  // The value of a loop variable whose range is one constant (a loop of extent 1), which the
  // analyzer may already have put in place of the variable in a simplified condition.
  std::optional<int64_t> pinnedValue(const Var *var) const {
    auto it = loopBounds_.find(var);
    if (it == loopBounds_.end() || !it->second.first.isConstant() || !it->second.second.isConstant() ||
        it->second.first.constant != it->second.second.constant)
      return std::nullopt;
    return it->second.first.constant;
  }

  // `form` with the pinned loop variables replaced by their values.
  LinearForm withPinnedLoops(const LinearForm &form) const {
    LinearForm out;
    out.constant = form.constant;
    for (const detail::LinearTerm &t : form.terms) {
      const auto *v = t.atom.as<Var>();
      auto value = v ? pinnedValue(v) : std::nullopt;
      if (value) out.constant += t.coeff * *value;
      else out.addTerm(t.atom, t.coeff);
    }
    return out;
  }

  // Narrows [lo, hi], the bounds of `loopPart` (a sum of loop variables times constants) over the
  // loops' ranges, by the facts in force whose loop part is a multiple of it: with `f + c >= 0`
  // and loopPart = s * f, loopPart >= -s * c for s > 0 and <= -s * c for s < 0. Only where every
  // value involved stays far from the int32 limits, so that no comparison could have wrapped.
  void narrowByFacts(const LinearForm &loopPart, int64_t &lo, int64_t &hi) const {
    constexpr int64_t kSafe = int64_t(1) << 30;
    if (lo < -kSafe || hi > kSafe) return;
    for (const LinearForm &fact : facts_) {
      std::optional<int64_t> scale;
      size_t matched = 0, nonZero = 0;
      for (const detail::LinearTerm &t : fact.terms) {
        if (t.coeff == 0) continue;
        ++nonZero;
        int64_t c = loopPart.coeffOf(t.atom);
        if (c == 0 || c % t.coeff != 0 || (scale && *scale != c / t.coeff)) break;
        scale = c / t.coeff;
        ++matched;
      }
      size_t loopTerms = 0;
      for (const detail::LinearTerm &t : loopPart.terms) loopTerms += t.coeff != 0;
      if (!scale || matched != nonZero || matched != loopTerms || fact.constant < -kSafe || fact.constant > kSafe ||
          *scale < -kSafe || *scale > kSafe)
        continue;
      int64_t limit = -*scale * fact.constant;
      if (*scale > 0) lo = std::max(lo, limit);
      else hi = std::min(hi, limit);
    }
  }

  bool mentionsLoopVar(const Expr &e) const {
    bool found = false;
    preOrderVisit(e, [&](const Node &n) {
      if (const auto *v = n.as<Var>()) found |= loopBounds_.count(v) != 0;
    });
    return found;
  }

  // Replaces loop variables by the bound (lower or upper) that keeps `form` a lower or upper
  // bound; nullopt when a loop variable sits inside a non-linear atom. Loop bounds are stored
  // already relaxed against the loops outside them, so one substitution suffices.
  std::optional<LinearForm> relax(const LinearForm &form, bool upper) const {
    auto both = bounds(form);
    if (!both) return std::nullopt;
    return upper ? both->second : both->first;
  }

  // Inclusive bounds of `form` over the loops' ranges. With narrowByConditions (compaction's
  // view, TVM's interval sets), the loop variables' part is narrowed by the conditions in force
  // and an atom floordiv / floormod by a positive constant is bounded through its dividend's
  // bounds; any other atom holding a loop variable gives nullopt.
  std::optional<std::pair<LinearForm, LinearForm>> bounds(const LinearForm &original) const {
    LinearForm form = withPinnedLoops(original);
    LinearForm lo, hi, loopPart;
    lo.constant = hi.constant = form.constant;
    for (const detail::LinearTerm &t : form.terms) {
      if (t.coeff == 0) continue;
      const auto *v = t.atom.as<Var>();
      auto it = v ? loopBounds_.find(v) : loopBounds_.end();
      if (it != loopBounds_.end()) {
        loopPart.addTerm(t.atom, t.coeff);
        continue;
      }
      if (v || !mentionsLoopVar(t.atom)) {
        lo.addTerm(t.atom, t.coeff);
        hi.addTerm(t.atom, t.coeff);
        continue;
      }
      auto atom = analyzer_ ? divisionBounds(t.atom) : std::nullopt;
      if (!atom) return std::nullopt;
      lo.add(t.coeff > 0 ? atom->first : atom->second, t.coeff);
      hi.add(t.coeff > 0 ? atom->second : atom->first, t.coeff);
    }
    LinearForm loopLo, loopHi;
    for (const detail::LinearTerm &t : loopPart.terms) {
      const auto &range = loopBounds_.at(t.atom.as<Var>());
      loopLo.add(t.coeff > 0 ? range.first : range.second, t.coeff);
      loopHi.add(t.coeff > 0 ? range.second : range.first, t.coeff);
    }
    if (analyzer_ && !loopPart.terms.empty() && loopLo.isConstant() && loopHi.isConstant())
      narrowByFacts(loopPart, loopLo.constant, loopHi.constant);
    lo.add(loopLo, 1);
    hi.add(loopHi, 1);
    return std::make_pair(lo, hi);
  }

  // Bounds of floordiv(x, c) / floormod(x, c) for a constant c > 0 from x's bounds [lo, hi]:
  // [lo // c, hi // c]; [lo - q * c, hi - q * c] where lo // c and hi // c are the same q, else
  // [0, c - 1].
  std::optional<std::pair<LinearForm, LinearForm>> divisionBounds(const Expr &atom) const {
    const auto *division = atom.as<BinaryExpr>();
    if (!division || (division->kind() != NodeKind::FloorDiv && division->kind() != NodeKind::FloorMod)) return std::nullopt;
    auto divisor = asConstInt(division->b);
    auto dividend = toLinearForm(division->a);
    if (!divisor || *divisor <= 0 || !dividend) return std::nullopt;
    auto range = bounds(*dividend);
    if (!range) return std::nullopt;
    DataType t = atom->dtype;
    Expr lo = detail::fromLinearForm(range->first, t), hi = detail::fromLinearForm(range->second, t);
    Expr c = intImm(*divisor, t);
    Expr loQuotient = analyzer_->simplify(floorDivExpr(lo, c)), hiQuotient = analyzer_->simplify(floorDivExpr(hi, c));
    if (division->kind() == NodeKind::FloorDiv) return std::make_pair(linear(loQuotient), linear(hiQuotient));
    LinearForm sameQuotient = difference(linear(loQuotient), linear(hiQuotient));
    if (!sameQuotient.isConstant() || sameQuotient.constant != 0) {
      LinearForm zero, last;
      last.constant = *divisor - 1;
      return std::make_pair(zero, last);
    }
    return std::make_pair(linear(analyzer_->simplify(lo - loQuotient * c)),
                          linear(analyzer_->simplify(hi - loQuotient * c)));
  }

  LinearForm relaxIfPossible(const LinearForm &form, bool upper) const {
    if (auto r = relax(form, upper)) return *r;
    return form;
  }

  Interval intervalOf(const Expr &index) {
    Expr e = substitute(index, lets_);
    LinearForm form = linear(e);
    bool hasLoopVar = false;
    for (const detail::LinearTerm &t : form.terms) {
      const auto *v = t.atom.as<Var>();
      hasLoopVar |= t.coeff != 0 && (v ? loopBounds_.count(v) != 0 : mentionsLoopVar(t.atom));
    }
    Interval out;
    if (!hasLoopVar) {
      out.lo = out.hi = form;
      out.minExpr = e;
      return out;
    }
    auto lo = relax(form, false), hi = relax(form, true);
    if (!lo || !hi) return wholeDimension();
    out.lo = *lo;
    out.hi = *hi;
    out.minExpr = detail::fromLinearForm(out.lo, e->dtype);
    return out;
  }

  // Records an access of `buffer`, or of the source of the view `buffer` is: the view's
  // dimensions are the source region's last ones, offset by their starts (as TVM's region
  // detector maps them); a view that does not line up so stands for its whole source region.
  void recordAccess(const BufferRef &buffer, std::vector<Interval> dims, std::vector<AccessEntry> &list) {
    if (allocated_.count(buffer.get())) return;
    auto it = matched_.find(buffer.get());
    if (it == matched_.end()) return record(buffer, std::move(dims), list);
    const BufferRegion &source = it->second->source;
    if (auto mapped = intoSource(*buffer, source, dims)) return recordAccess(source.buffer, std::move(*mapped), list);
    recordRegion(source, lets_, list);
  }

  std::optional<std::vector<Interval>> intoSource(const Buffer &view, const BufferRegion &source,
                                                  const std::vector<Interval> &dims) {
    if (source.region.size() != source.buffer->rank() || dims.size() > source.region.size()) return std::nullopt;
    size_t leading = source.region.size() - dims.size();
    std::vector<Interval> out;
    for (size_t d = 0; d < source.region.size(); ++d) {
      const Range &r = source.region[d];
      if (d < leading) {
        out.push_back(intervalOfRange(r, lets_));
        continue;
      }
      const Interval &v = dims[d - leading];
      LinearForm sameExtent = difference(linear(view.shape[d - leading]), linear(substitute(r.extent, lets_)));
      if (v.whole || !sameExtent.isConstant() || sameExtent.constant != 0) return std::nullopt;
      Interval start = intervalOf(r.min);
      if (start.whole) return std::nullopt;
      Interval i;
      i.lo = start.lo;
      i.lo.add(v.lo, 1);
      i.hi = start.hi;
      i.hi.add(v.hi, 1);
      i.minExpr = detail::fromLinearForm(i.lo, r.min->dtype);
      out.push_back(std::move(i));
    }
    return out;
  }

  void record(const BufferRef &buffer, std::vector<Interval> dims, std::vector<AccessEntry> &list) {
    dataVars_.emplace(buffer->data.get(), buffer);
    for (AccessEntry &entry : list) {
      if (entry.buffer != buffer) continue;
      for (size_t d = 0; d < dims.size() && d < entry.dims.size(); ++d) entry.dims[d] = unite(entry.dims[d], dims[d]);
      return;
    }
    list.push_back({buffer, std::move(dims)});
  }

  void recordWhole(const BufferRef &buffer, std::vector<AccessEntry> &list) {
    recordAccess(buffer, std::vector<Interval>(buffer->rank(), wholeDimension()), list);
  }

  void recordPointAccess(const BufferRef &buffer, const std::vector<Expr> &indices, std::vector<AccessEntry> &list) {
    if (indices.size() != buffer->rank()) return recordWhole(buffer, list);
    std::vector<Interval> dims;
    dims.reserve(indices.size());
    for (const Expr &index : indices) dims.push_back(intervalOf(index));
    recordAccess(buffer, std::move(dims), list);
  }

  void recordRegion(const BufferRegion &region, const VarMap &bindings, std::vector<AccessEntry> &list) {
    if (allocated_.count(region.buffer.get())) return;
    if (region.region.size() != region.buffer->rank()) return recordWhole(region.buffer, list);
    std::vector<Interval> dims;
    for (const Range &r : region.region) dims.push_back(intervalOfRange(r, bindings));
    recordAccess(region.buffer, std::move(dims), list);
  }

  Interval intervalOfRange(const Range &r, const VarMap &bindings) {
    Expr min = substitute(r.min, bindings);
    if (isOne(r.extent)) return intervalOf(min);
    LinearForm lo = linear(min), hi = lo;
    hi.add(linear(substitute(r.extent, bindings)), 1);
    hi.constant -= 1;
    auto rlo = relax(lo, false), rhi = relax(hi, true);
    if (!rlo || !rhi) return wholeDimension();
    Interval i;
    LinearForm shift = difference(*rlo, lo);
    bool relaxed = !shift.isConstant() || shift.constant != 0;
    i.lo = *rlo;
    i.hi = *rhi;
    i.minExpr = relaxed ? detail::fromLinearForm(*rlo, min->dtype) : min;
    return i;
  }

  BufferRegion toRegion(const AccessEntry &entry) const {
    BufferRegion region{entry.buffer, {}};
    for (size_t d = 0; d < entry.dims.size(); ++d) {
      const Interval &i = entry.dims[d];
      const Expr &dimExtent = entry.buffer->shape[d];
      if (i.whole) {
        region.region.push_back(Range{intImm(0, dimExtent->dtype), dimExtent});
        continue;
      }
      LinearForm extent = difference(i.hi, i.lo);
      extent.constant += 1;
      DataType t = i.minExpr->dtype;
      region.region.push_back(Range{i.minExpr, detail::fromLinearForm(extent, t)});
    }
    return region;
  }

  RegionInferenceOptions options_;
  mutable std::optional<arith::Analyzer> analyzer_;  // only when narrowing by conditions
  std::unordered_map<const Var *, std::pair<LinearForm, LinearForm>> loopBounds_;
  std::vector<LinearForm> facts_;  // forms >= 0 under the conditions in force (narrowByConditions)
  std::unordered_map<const Var *, BufferRef> dataVars_;
  std::unordered_set<const Buffer *> allocated_;
  std::unordered_map<const Buffer *, const MatchBufferRegion *> matched_;
  VarMap lets_;
  std::vector<AccessEntry> reads_, writes_;
};

}  // namespace

BlockAccessRegions inferAccessRegions(const Block &block, const std::vector<BufferRef> &knownBuffers,
                                      RegionInferenceOptions options) {
  return RegionCollector(block, knownBuffers, options).collect(block);
}

}  // namespace vtac::ir

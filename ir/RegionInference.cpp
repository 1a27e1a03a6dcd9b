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
    if (options.narrowByConditions) analyzer_.emplace();
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
    LinearForm lo = relaxIfPossible(linear(op.min), false), hi = lo;
    hi.add(linear(op.extent), 1);
    hi.constant -= 1;
    hi = relaxIfPossible(hi, true);
    loopBounds_[op.loopVar.get()] = {lo, hi};
    if (analyzer_ && lo.isConstant() && hi.isConstant())
      analyzer_->bind(op.loopVar, Range{intImm(lo.constant, op.loopVar->dtype), intImm(hi.constant - lo.constant + 1, op.loopVar->dtype)});
    visitStmt(op.body);
    loopBounds_.erase(op.loopVar.get());
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
  // Runs `visit` with the loop bounds narrowed by `condition` holding (or not), when the
  // options ask for it: the analyzer derives the narrowed bounds of constant-bound loops.
  template <class Visit> void underCondition(const Expr &condition, bool holds, Visit visit) {
    if (!analyzer_) return visit();
    auto saved = loopBounds_;
    // Simplified first, so that a negated `or` becomes conjuncts the scope narrows by.
    Expr fact = analyzer_->rewriteSimplify(holds ? condition : make<Not>(condition));
    arith::Analyzer::ConstraintScope scope(*analyzer_, fact);
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
    LinearForm out;
    out.constant = form.constant;
    for (const detail::LinearTerm &t : form.terms) {
      if (t.coeff == 0) continue;
      const auto *v = t.atom.as<Var>();
      auto it = v ? loopBounds_.find(v) : loopBounds_.end();
      if (it != loopBounds_.end()) {
        bool useHigh = (t.coeff > 0) == upper;
        out.add(useHigh ? it->second.second : it->second.first, t.coeff);
      } else if (!v && mentionsLoopVar(t.atom)) {
        return std::nullopt;
      } else {
        out.addTerm(t.atom, t.coeff);
      }
    }
    return out;
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
  std::optional<arith::Analyzer> analyzer_;  // only when narrowing by conditions
  std::unordered_map<const Var *, std::pair<LinearForm, LinearForm>> loopBounds_;
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

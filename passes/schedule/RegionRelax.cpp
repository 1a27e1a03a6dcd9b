#include "RegionRelax.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/RegionInference.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

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

}  // namespace vtac::passes::schedule

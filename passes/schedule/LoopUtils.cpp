// Loop scopes and binding simplification shared by the loop primitives.
#include "LoopUtils.h"

#include <algorithm>
#include <set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Error checkNestDepth(size_t depth, const char *primitive, ir::SourceLoc at) {
  if (depth <= kMaxNestDepth) return llvm::Error::success();
  return ir::diagnosticError(at, std::string(primitive) + ": the loops would nest " + std::to_string(depth) +
                                     " statements deep, more than the " + std::to_string(kMaxNestDepth) +
                                     " a schedule may");
}

llvm::Error checkPlainLoop(const For &loop, const char *primitive, SourceLoc at) {
  if (!loop.annotations.empty() || loop.threadBinding)
    return diagnosticError(at, std::string(primitive) + ": the loop '" + loop.loopVar->name +
                                   "' has annotations or a thread binding");
  if (!isZero(loop.min))
    return diagnosticError(at, std::string(primitive) + ": the loop '" + loop.loopVar->name + "' does not start at 0");
  return llvm::Error::success();
}

std::vector<const For *> loopsInScope(const StmtPath &path) {
  std::vector<const For *> loops;
  for (const Stmt &stmt : path) {
    if (stmt->isa<Block>()) loops.clear();
    if (const auto *loop = stmt.as<For>()) loops.push_back(loop);
  }
  return loops;
}

namespace {

// simplifyBinding on a binding without splits of loop variables (`//`, `%`).
std::optional<Expr> simplifyAffineBinding(const Expr &binding, const std::map<const Var *, int64_t> &extents) {
  std::vector<VarRef> vars;
  preOrderVisit(binding, [&](const Node &node) {
    const auto *var = node.as<Var>();
    if (var && extents.count(var) &&
        std::none_of(vars.begin(), vars.end(), [&](const VarRef &v) { return v.get() == var; }))
      vars.push_back(VarRef(var));
  });
  std::optional<LinearEquation> linear = detectLinearEquation(binding, vars);
  if (!linear || !asConstInt(linear->base)) return std::nullopt;
  struct Term {
    VarRef var;
    int64_t coeff, extent;
  };
  std::vector<Term> terms;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (linear->coeffs[i] == 0) continue;
    if (linear->coeffs[i] < 0) return std::nullopt;
    terms.push_back({vars[i], linear->coeffs[i], extents.at(vars[i].get())});
  }
  // Outermost (largest coefficient) first; equal coefficients (a unit loop) keep their order.
  std::stable_sort(terms.begin(), terms.end(), [](const Term &a, const Term &b) { return a.coeff > b.coeff; });
  for (size_t i = 1; i < terms.size(); ++i)
    if (terms[i].coeff * terms[i].extent != terms[i - 1].coeff) return std::nullopt;
  Expr sum;
  for (const Term &term : terms) {
    Expr scaled = term.coeff == 1 ? Expr(term.var) : mulExpr(term.var, intImm(term.coeff, term.var->dtype));
    sum = sum ? addExpr(sum, scaled) : scaled;
  }
  if (!sum) return linear->base;
  return isZero(linear->base) ? sum : addExpr(sum, linear->base);
}

bool splitsALoopVariable(const Expr &binding) {
  bool found = false;
  preOrderVisit(binding, [&](const Node &node) {
    found |= node.kind() == NodeKind::FloorDiv || node.kind() == NodeKind::FloorMod;
  });
  return found;
}

}  // namespace

Expr simplifyBinding(const Expr &binding, const std::map<const Var *, int64_t> &extents) {
  if (std::optional<Expr> simplified = simplifyAffineBinding(binding, extents)) return *simplified;
  if (!splitsALoopVariable(binding)) return binding;
  // Pieces of one loop variable that fit back together (`f // 4 * 4 + f % 4` after a split and a
  // fuse) become that variable, as in TVM's iter map, when the result tiles.
  arith::Analyzer analyzer;
  for (const auto &[var, extent] : extents) analyzer.bind(VarRef(var), rangeFromExtent(intImm(extent, var->dtype)));
  return simplifyAffineBinding(analyzer.canonicalSimplify(binding), extents).value_or(binding);
}

namespace {

class BindingSimplifier : public StmtExprMutator {
public:
  BindingSimplifier(const std::vector<const For *> &outerLoops, bool preserveUnitIters)
      : preserveUnitIters_(preserveUnitIters) {
    for (const For *loop : outerLoops) enter(*loop);
  }
  Stmt visitFor(const For &op) override {
    enter(op);
    return StmtExprMutator::visitFor(op);
  }
  Stmt visitBlockRealize(const BlockRealize &op) override {
    Stmt visited = StmtExprMutator::visitBlockRealize(op);
    auto *copy = copyNode(*visited.as<BlockRealize>());
    bool changed = false;
    for (Expr &value : copy->iterValues) {
      Expr simplified = simplifyBinding(substitute(value, unitLoops_), extents_);
      changed |= simplified != value;
      value = simplified;
    }
    if (!changed) {
      delete copy;
      return visited;
    }
    return Stmt(copy);
  }

private:
  void enter(const For &loop) {
    std::optional<int64_t> extent = asConstInt(loop.extent);
    if (!extent || !isZero(loop.min)) return;
    extents_[loop.loopVar.get()] = *extent;
    if (*extent == 1 && !preserveUnitIters_) unitLoops_[loop.loopVar.get()] = intImm(0, loop.loopVar->dtype);
  }
  bool preserveUnitIters_;
  std::map<const Var *, int64_t> extents_;
  VarMap unitLoops_;
};

}  // namespace

Stmt simplifyBindings(const Stmt &root, const std::vector<const For *> &outerLoops, bool preserveUnitIters) {
  return BindingSimplifier(outerLoops, preserveUnitIters).visitStmt(root);
}

namespace {

using LoopDomain = std::map<const Var *, const For *>;

std::vector<VarRef> loopVarsIn(const Expr &e, const LoopDomain &dom) {
  std::vector<VarRef> vars;
  preOrderVisit(e, [&](const Node &node) {
    const auto *var = node.as<Var>();
    if (var && dom.count(var) && std::none_of(vars.begin(), vars.end(), [&](const VarRef &v) { return v.get() == var; }))
      vars.push_back(VarRef(var));
  });
  return vars;
}

// Whether e is a fused iterator of scale 1 over `vars` as TVM's surjective iter map fuses one:
// from the smallest coefficient, which is 1, each next coefficient at most the range the smaller
// terms span together (overlapping terms, `v0 * 2 + v1` with v1 < 4, still reach every value).
// Loops of extent 1 contribute nothing and are left out, as TVM drops unit iterators: `o * 2 + i
// + u` with o and u of extent 1 and i < 2 is the iterator i.
bool isFusedIterator(const Expr &e, const std::vector<VarRef> &vars, const LoopDomain &dom) {
  std::optional<LinearEquation> linear = detectLinearEquation(e, vars);
  if (!linear) return false;
  std::vector<std::pair<int64_t, std::optional<int64_t>>> terms;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (linear->coeffs[i] <= 0) return false;
    std::optional<int64_t> extent = asConstInt(dom.at(vars[i].get())->extent);
    if (extent != 1) terms.push_back({linear->coeffs[i], extent});
  }
  std::sort(terms.begin(), terms.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  std::optional<int64_t> spanned = 1;  // the values the terms so far reach: 0 .. spanned - 1
  for (const auto &[coeff, extent] : terms) {
    if (!spanned || coeff > *spanned) return false;
    spanned = extent ? std::optional<int64_t>(*spanned + coeff * (*extent - 1)) : std::nullopt;
  }
  return true;
}

// Sums, constant multiples and floordiv/floormod of loop variables by a constant or a size
// variable (TVM's iter map splits a loop of extent `n * 32` by n), with the divided operands
// linear in the loops; sub-expressions free of the loops are symbols.
bool isSplitOfFusedIterators(const Expr &e, const LoopDomain &dom) {
  std::vector<VarRef> vars = loopVarsIn(e, dom);
  if (vars.empty() || e->isa<Var>()) return true;
  const auto *binary = e.as<BinaryExpr>();
  if (!binary) return false;
  switch (binary->kind()) {
  case NodeKind::Add:
  case NodeKind::Sub: return isSplitOfFusedIterators(binary->a, dom) && isSplitOfFusedIterators(binary->b, dom);
  case NodeKind::Mul:
    return (binary->a->isa<IntImm>() && isSplitOfFusedIterators(binary->b, dom)) ||
           (binary->b->isa<IntImm>() && isSplitOfFusedIterators(binary->a, dom));
  case NodeKind::FloorDiv:
  case NodeKind::FloorMod:
    return (asConstInt(binary->b).value_or(0) > 0 || (binary->b->isa<Var>() && loopVarsIn(binary->b, dom).empty())) &&
           detectLinearEquation(binary->a, vars).has_value();
  default: return false;
  }
}

bool splitsLoops(const Expr &e, const LoopDomain &dom) {
  bool found = false;
  preOrderVisit(e, [&](const Node &node) {
    const auto *binary = node.as<BinaryExpr>();
    found |= binary && (node.kind() == NodeKind::FloorDiv || node.kind() == NodeKind::FloorMod) &&
             !loopVarsIn(binary->a, dom).empty();
  });
  return found;
}

}  // namespace

std::string whyNotAffineBinding(const BlockRealize &realize, const std::vector<const For *> &loops) {
  if (loops.empty()) return "";
  LoopDomain dom;
  for (const For *loop : loops) dom[loop->loopVar.get()] = loop;
  auto bindingOf = [&](size_t i) {
    return "the binding of '" + realize.block->iterVars[i]->var->name + "' (" + printExpr(realize.iterValues[i]) + ")";
  };
  std::vector<std::vector<VarRef>> bindingVars;
  std::map<const Var *, size_t> fusedIn;
  std::set<const Var *> split;
  for (size_t i = 0; i < realize.iterValues.size(); ++i) {
    const Expr &value = realize.iterValues[i];
    std::vector<VarRef> vars = loopVarsIn(value, dom);
    bindingVars.push_back(vars);
    if (splitsLoops(value, dom)) {
      if (!isSplitOfFusedIterators(value, dom)) return bindingOf(i);
      for (const VarRef &var : vars) split.insert(var.get());
      continue;
    }
    if (!isFusedIterator(value, vars, dom)) return bindingOf(i);
    for (const VarRef &var : vars)
      if (!fusedIn.emplace(var.get(), i).second) return bindingOf(i);
  }
  // Surjective: a loop is either one binding's fused iterator part or split among bindings.
  for (const auto &[var, binding] : fusedIn)
    if (split.count(var)) return bindingOf(binding);
  if (!realize.predicate) return "";
  // TVM's DetectIterMap parses no T.likely conjunct as a bound: such a predicate is not affine.
  for (const Expr &bound : arith::conjuncts(realize.predicate, arith::LikelyConjunct::Keep)) {
    std::vector<VarRef> vars = loopVarsIn(bound, dom);
    if (vars.empty()) continue;
    const auto *compare = bound.as<BinaryExpr>();
    bool inOneBinding = std::any_of(bindingVars.begin(), bindingVars.end(), [&](const std::vector<VarRef> &inBinding) {
      return std::all_of(vars.begin(), vars.end(), [&](const VarRef &var) {
        return std::find(inBinding.begin(), inBinding.end(), var) != inBinding.end();
      });
    });
    if (!compare || (compare->kind() != NodeKind::LT && compare->kind() != NodeKind::LE) ||
        !loopVarsIn(compare->b, dom).empty() || !isFusedIterator(compare->a, vars, dom) || !inOneBinding)
      return "the predicate (" + printExpr(bound) + ")";
  }
  return "";
}

}  // namespace vtac::passes::schedule

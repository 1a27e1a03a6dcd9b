// blockize(target, preserve_unit_iters=True): the loop nest under the loop `target`, which must
// hold exactly one block through a perfect nest of loops, becomes the body of a new outer block
// `<name>_o`. Each binding of the inner block is divided (TVM's SubspaceDivide, for affine
// bindings) into an outer part over the loops above `target` and an inner part over the loops
// from `target` down: binding = outer * E + inner with inner covering [0, E). The outer block
// gets one iterator `<v>_o` per iterator (extent dom / E, bound to the outer part); the inner
// block keeps `<v>_i` for the iterators with E > 1; `v` becomes `v_o * E + v_i` (`v_i` when the
// outer extent is 1, `v_o` when E is 1). The outer block's regions are the inner regions relaxed
// over the inner iterators; a T.init moves to the outer block as a nest of the inner loops its
// data-parallel iterators use, around a block `<name>_init`. Returns the outer block.
#include "Blockize.h"

#include "BlockUtils.h"
#include "LoopUtils.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// The sum of `vars[i] * coeffs[i]` (largest coefficient first) plus `base`.
Expr affineSum(std::vector<std::pair<VarRef, int64_t>> terms, int64_t base, DataType dtype) {
  std::stable_sort(terms.begin(), terms.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
  Expr sum;
  for (const auto &[var, coeff] : terms) {
    if (coeff == 0) continue;
    Expr term = coeff == 1 ? Expr(var) : mulExpr(var, intImm(coeff, dtype));
    sum = sum ? addExpr(sum, term) : term;
  }
  if (!sum) return intImm(base, dtype);
  return base == 0 ? sum : addExpr(sum, intImm(base, dtype));
}

struct Division {
  Expr outer, inner;  // bindings
  int64_t innerExtent = 1;
};

// binding = outer * innerExtent + inner, inner over `innerLoops` covering [0, innerExtent).
std::optional<Division> divide(const Expr &binding, const std::vector<const For *> &innerLoops,
                               const std::vector<const For *> &outerLoops) {
  std::vector<VarRef> innerVars, outerVars;
  for (const For *loop : innerLoops) innerVars.push_back(loop->loopVar);
  for (const For *loop : outerLoops) outerVars.push_back(loop->loopVar);
  std::optional<LinearEquation> inner = detectLinearEquation(binding, innerVars);
  if (!inner) return std::nullopt;
  std::vector<std::pair<VarRef, int64_t>> innerTerms;
  std::vector<int64_t> extents;
  for (size_t i = 0; i < innerVars.size(); ++i) {
    if (inner->coeffs[i] == 0) continue;
    std::optional<int64_t> extent = asConstInt(innerLoops[i]->extent);
    if (!extent || inner->coeffs[i] < 0) return std::nullopt;
    innerTerms.push_back({innerVars[i], inner->coeffs[i]});
    extents.push_back(*extent);
  }
  // The inner terms must tile [0, E) exactly: coefficients 1, e0, e0 * e1, ...
  std::vector<size_t> order(innerTerms.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return innerTerms[a].second < innerTerms[b].second; });
  int64_t span = 1;
  for (size_t i : order) {
    if (innerTerms[i].second != span) return std::nullopt;
    span *= extents[i];
  }
  Division division;
  division.innerExtent = span;
  DataType dtype = binding->dtype;
  division.inner = affineSum(innerTerms, 0, dtype);
  std::optional<LinearEquation> outer = detectLinearEquation(inner->base, outerVars);
  if (!outer) return std::nullopt;
  std::optional<int64_t> constant = asConstInt(outer->base);
  if (!constant || *constant % span != 0) return std::nullopt;
  std::vector<std::pair<VarRef, int64_t>> outerTerms;
  for (size_t i = 0; i < outerVars.size(); ++i) {
    if (outer->coeffs[i] % span != 0) return std::nullopt;
    outerTerms.push_back({outerVars[i], outer->coeffs[i] / span});
  }
  division.outer = affineSum(outerTerms, *constant / span, dtype);
  return division;
}

}  // namespace

llvm::Expected<BlockRV> blockizeLoop(Schedule &sch, const LoopRV &rv, bool preserveUnitIters, SourceLoc at) {
  llvm::Expected<StmtPath> path = sch.findLoop(rv, at);
  if (!path) return path.takeError();
  auto fail = [&](const std::string &why) { return diagnosticError(at, "blockize: " + why); };
  // The perfect nest down to the only block.
  std::vector<const For *> innerLoops;
  Stmt node = path->back();
  while (const auto *loop = node.as<For>()) {
    innerLoops.push_back(loop);
    node = loop->body;
  }
  const auto *realize = node.as<BlockRealize>();
  if (!realize)
    return fail("the loop '" + rv.loopVar->name + "' does not hold exactly one block under a perfect nest of loops");
  const Block &block = *realize->block;
  std::vector<const For *> outerLoops = loopsInScope(*path);
  outerLoops.pop_back();

  std::vector<IterVarRef> outerIters, innerIters;
  std::vector<Expr> outerBindings, innerBindings;
  VarMap substitution;
  for (size_t i = 0; i < block.iterVars.size(); ++i) {
    const IterVar &iv = *block.iterVars[i];
    std::optional<Division> division = divide(realize->iterValues[i], innerLoops, outerLoops);
    std::optional<int64_t> extent = asConstInt(iv.dom.extent);
    if (!division || !extent || *extent % division->innerExtent != 0)
      return fail("the binding of '" + iv.var->name + "' in block '" + block.name +
                  "' cannot be divided at the loop '" + rv.loopVar->name + "'");
    DataType dtype = iv.var->dtype;
    int64_t outerExtent = *extent / division->innerExtent;
    VarRef outerVar = makeVar(iv.var->name + "_o", dtype);
    outerIters.push_back(make<IterVar>(outerVar, rangeFromExtent(intImm(outerExtent, dtype)), iv.iterType));
    outerBindings.push_back(division->outer);
    if (division->innerExtent == 1) {
      substitution[iv.var.get()] = outerExtent == 1 && !preserveUnitIters ? intImm(0, dtype) : Expr(outerVar);
      continue;
    }
    VarRef innerVar = makeVar(iv.var->name + "_i", dtype);
    innerIters.push_back(make<IterVar>(innerVar, rangeFromExtent(intImm(division->innerExtent, dtype)), iv.iterType));
    innerBindings.push_back(division->inner);
    substitution[iv.var.get()] =
        outerExtent == 1 ? Expr(innerVar) : addExpr(mulExpr(outerVar, intImm(division->innerExtent, dtype)), innerVar);
  }
  auto substituted = [&](std::vector<BufferRegion> regions) {
    for (BufferRegion &region : regions)
      for (Range &range : region.region) range = Range{substitute(range.min, substitution), substitute(range.extent, substitution)};
    return regions;
  };
  std::vector<BufferRegion> reads = substituted(block.reads), writes = substituted(block.writes);

  // The inner block: a reduction over outer iterators reads what it writes.
  Block *inner = copyNode(block);
  inner->iterVars = innerIters;
  inner->init = nullptr;
  inner->body = substitute(block.body, substitution);
  inner->reads = reads;
  inner->writes = writes;
  bool outerReduction = std::any_of(outerIters.begin(), outerIters.end(),
                                    [](const IterVarRef &iv) { return iv->iterType == IterType::CommReduce; });
  if (block.init && outerReduction) inner->reads.insert(inner->reads.begin(), writes.begin(), writes.end());
  Stmt innerRealize = make<BlockRealize>(innerBindings, realize->predicate, BlockRef(inner));
  Stmt body = innerRealize;
  for (size_t i = innerLoops.size(); i-- > 0;) {
    For *copy = copyNode(*innerLoops[i]);
    copy->body = body;
    body = Stmt(copy);
  }

  // The init: the inner loops its data-parallel iterators use, around `<name>_init`.
  Stmt init;
  if (block.init) {
    Stmt initBody = substitute(block.init, substitution);
    VarMap initMap;
    std::vector<IterVarRef> initIters;
    std::vector<Expr> initBindings;
    for (size_t i = 0; i < innerIters.size(); ++i) {
      const IterVar &iv = *innerIters[i];
      if (iv.iterType != IterType::DataPar) continue;
      bool used = false;
      preOrderVisit(initBody, [&](const Node &n) { used |= &n == iv.var.get(); });
      if (!used) continue;
      VarRef var = makeVar(iv.var->name + "_init", iv.var->dtype);
      initIters.push_back(make<IterVar>(var, iv.dom, iv.iterType));
      initBindings.push_back(innerBindings[i]);
      initMap[iv.var.get()] = var;
    }
    init = make<BlockRealize>(initBindings, realize->predicate,
                              make<Block>(block.name + "_init", initIters, std::vector<BufferRegion>{}, writes,
                                          initBody));
    for (size_t i = innerLoops.size(); i-- > 0;) {
      const For *loop = innerLoops[i];
      bool used = std::any_of(initBindings.begin(), initBindings.end(),
                              [&](const Expr &b) { return usesVar(b, loop->loopVar.get()); });
      if (!used) continue;
      For *copy = copyNode(*loop);
      copy->loopVar = makeVar(loop->loopVar->name, loop->loopVar->dtype);
      initMap[loop->loopVar.get()] = copy->loopVar;
      copy->body = init;
      init = Stmt(copy);
    }
    init = substitute(init, initMap);
  }

  // The outer block's regions: the inner ones relaxed over the inner iterators.
  std::map<const Var *, Range> innerDomains;
  for (const IterVarRef &iv : innerIters) innerDomains[iv->var.get()] = iv->dom;
  auto relaxed = [&](std::vector<BufferRegion> regions) {
    for (BufferRegion &region : regions)
      for (size_t d = 0; d < region.region.size(); ++d) {
        Interval interval = relaxRange(region.region[d], innerDomains);
        region.region[d] = interval.extent
                               ? Range{interval.min, intImm(*interval.extent, region.region[d].min->dtype)}
                               : Range{intImm(0, region.buffer->shape[d]->dtype), region.buffer->shape[d]};
      }
    return regions;
  };
  std::string name = block.name + "_o";
  auto outer = make<Block>(name, outerIters, relaxed(reads), relaxed(writes), body, init);
  sch.replace(rv.func, *path, make<BlockRealize>(outerBindings, nullptr, outer));
  return BlockRV{rv.func, name};
}

llvm::Expected<std::vector<RV>> applyBlockize(Schedule &sch, StepArgs &args) {
  llvm::Expected<LoopRV> rv = args.loop("target");
  if (!rv) return rv.takeError();
  llvm::Expected<bool> preserveUnitIters = args.boolean("preserve_unit_iters");
  if (!preserveUnitIters) return preserveUnitIters.takeError();
  llvm::Expected<BlockRV> outer = blockizeLoop(sch, *rv, *preserveUnitIters, args.at("target"));
  if (!outer) return outer.takeError();
  return std::vector<RV>{*outer};
}

}  // namespace vtac::passes::schedule

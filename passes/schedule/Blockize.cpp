// blockize(target, preserve_unit_iters=True): the loop nest under the loop `target`, which must
// hold exactly one block through a perfect nest of loops, becomes the body of a new outer block
// `<name>_o`. Each binding of the inner block is divided (TVM's SubspaceDivide, for affine
// bindings) into an outer part over the loops above `target` and an inner part over the loops
// from `target` down: binding = outer * E + inner with inner covering [0, E). The outer block
// gets one iterator `<v>_o` per iterator (extent dom / E, bound to the outer part); the inner
// block keeps `<v>_i` for the iterators with E > 1; `v` becomes `v_o * E + v_i` (`v_i` when the
// outer extent is 1, `v_o` when E is 1). The outer block's regions are the inner regions relaxed
// over the inner iterators; a T.init moves to the outer block as a nest of the inner loops its
// data-parallel iterators use, around a block `<name>_init`. Returns the outer block. The target
// may also be a list of blocks (blockizeBlocks below).
#include "BlockTree.h"
#include "RegionRelax.h"
#include "LoopUtils.h"

#include <variant>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/schedule/Primitives.h"

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

// A block's iterators divided at a loop level: the outer block's iterators and bindings, the
// inner block's, and the block's iterators in terms of them.
struct BlockDivision {
  std::vector<IterVarRef> outerIters, innerIters;
  std::vector<Expr> outerBindings, innerBindings;
  VarMap substitution;
};

// Divides each binding of `realize` into a part over outerLoops and one over innerLoops (see the
// top of the file); the index of the first iterator that cannot be divided on failure.
std::variant<BlockDivision, size_t> divideBlock(const BlockRealize &realize, const std::vector<const For *> &innerLoops,
                                                const std::vector<const For *> &outerLoops, bool preserveUnitIters) {
  const Block &block = *realize.block;
  BlockDivision result;
  // Without preserve_unit_iters a loop of extent 1 is the constant 0 in the bindings, as TVM's
  // iter map sees it (an outer iterator over such a loop is bound to 0, not to the loop).
  VarMap unitLoops;
  if (!preserveUnitIters)
    for (const auto *loops : {&outerLoops, &innerLoops})
      for (const For *loop : *loops)
        if (isOne(loop->extent)) unitLoops[loop->loopVar.get()] = intImm(0, loop->loopVar->dtype);
  auto binding = [&](const Expr &part) { return unitLoops.empty() ? part : simplify(substitute(part, unitLoops)); };
  for (size_t i = 0; i < block.iterVars.size(); ++i) {
    const IterVar &iv = *block.iterVars[i];
    std::optional<Division> division = divide(realize.iterValues[i], innerLoops, outerLoops);
    std::optional<int64_t> extent = asConstInt(iv.dom.extent);
    if (!division || !extent || *extent % division->innerExtent != 0) return i;
    DataType dtype = iv.var->dtype;
    int64_t outerExtent = *extent / division->innerExtent;
    VarRef outerVar = makeVar(iv.var->name + "_o", dtype);
    result.outerIters.push_back(make<IterVar>(outerVar, rangeFromExtent(intImm(outerExtent, dtype)), iv.iterType));
    result.outerBindings.push_back(binding(division->outer));
    if (division->innerExtent == 1) {
      result.substitution[iv.var.get()] = outerExtent == 1 && !preserveUnitIters ? intImm(0, dtype) : Expr(outerVar);
      continue;
    }
    VarRef innerVar = makeVar(iv.var->name + "_i", dtype);
    result.innerIters.push_back(
        make<IterVar>(innerVar, rangeFromExtent(intImm(division->innerExtent, dtype)), iv.iterType));
    result.innerBindings.push_back(binding(division->inner));
    result.substitution[iv.var.get()] =
        outerExtent == 1 ? Expr(innerVar) : addExpr(mulExpr(outerVar, intImm(division->innerExtent, dtype)), innerVar);
  }
  return result;
}

// The block's iterators replaced by their outer/inner expressions, each changed expression
// simplified with the iterators' ranges known, as TVM's blockize substitutes: `(v_o * 8 + v_i) //
// 8` becomes `v_o` and `(v_o * 8 + v_i) % 8` becomes `v_i` for v_i in [0, 8) (and v_o bounded:
// the simplifier divides a sum only where computing it cannot wrap).
class DivisionSubstituter : public StmtExprMutator {
public:
  explicit DivisionSubstituter(const BlockDivision &division) : division_(division) {
    for (const IterVarRef &iter : division.innerIters) analyzer_.bind(iter->var, iter->dom);
    // bounded, not substituted: TVM keeps an outer iterator of extent 1 in the bindings
    for (const IterVarRef &iter : division.outerIters)
      if (auto extent = asConstInt(iter->dom.extent)) analyzer_.updateBound(iter->var, {0, *extent - 1});
  }
  Expr visitExpr(const Expr &expr) override {
    Expr result = StmtExprMutator::visitExpr(expr);
    return result == expr || result->dtype.isHandle() ? result : analyzer_.simplify(result);
  }
  Expr visitVar(const Var &op) override {
    auto it = division_.substitution.find(&op);
    return it == division_.substitution.end() ? Expr(&op) : it->second;
  }

private:
  const BlockDivision &division_;
  arith::Analyzer analyzer_;
};

// The inner block (iterators and bindings of `division`, no init) under copies of innerLoops;
// `reads`/`writes` receive its regions.
Stmt innerNest(const BlockRealize &realize, const BlockDivision &division, const std::vector<const For *> &innerLoops,
               std::vector<BufferRegion> &reads, std::vector<BufferRegion> &writes) {
  const Block &block = *realize.block;
  DivisionSubstituter substituter(division);
  auto substituted = [&](std::vector<BufferRegion> regions) {
    for (BufferRegion &region : regions)
      for (Range &range : region.region)
        range = Range{substituter.visitExpr(range.min), substituter.visitExpr(range.extent)};
    return regions;
  };
  reads = substituted(block.reads);
  writes = substituted(block.writes);
  // A reduction over outer iterators reads what it writes.
  Block *inner = copyNode(block);
  inner->iterVars = division.innerIters;
  inner->init = nullptr;
  inner->body = substituter.visitStmt(block.body);
  inner->reads = reads;
  inner->writes = writes;
  bool outerReduction = std::any_of(division.outerIters.begin(), division.outerIters.end(),
                                    [](const IterVarRef &iv) { return iv->iterType == IterType::CommReduce; });
  if (block.init && outerReduction) inner->reads.insert(inner->reads.begin(), writes.begin(), writes.end());
  Stmt body = make<BlockRealize>(division.innerBindings, realize.predicate, BlockRef(inner));
  for (size_t i = innerLoops.size(); i-- > 0;) {
    For *copy = copyNode(*innerLoops[i]);
    copy->body = body;
    body = Stmt(copy);
  }
  return body;
}

// The regions an outer block covers: the inner ones relaxed over the inner iterators (the whole
// dimension where that is not bounded).
std::vector<Interval> relaxedOverInner(const BufferRegion &region, const std::vector<IterVarRef> &innerIters) {
  std::map<const Var *, Range> innerDomains;
  for (const IterVarRef &iv : innerIters) innerDomains[iv->var.get()] = iv->dom;
  std::vector<Interval> intervals;
  for (const Range &range : region.region) intervals.push_back(relaxRange(range, innerDomains));
  return intervals;
}

// A region of `buffer` from intervals (an unbounded interval is the whole dimension).
BufferRegion regionOf(const BufferRef &buffer, const std::vector<Interval> &intervals) {
  BufferRegion region{buffer, {}};
  for (size_t d = 0; d < intervals.size(); ++d)
    region.region.push_back(intervals[d].extent
                                ? Range{intervals[d].min, intImm(*intervals[d].extent, intervals[d].min->dtype)}
                                : Range{intImm(0, buffer->shape[d]->dtype), buffer->shape[d]});
  return region;
}

// Each buffer's regions relaxed over the inner iterators and united (TVM's UnionRegions), in the
// order the buffers first appear.
std::vector<BufferRegion> unitedRegions(const std::vector<std::pair<BufferRegion, const std::vector<IterVarRef> *>> &regions) {
  std::vector<BufferRef> order;
  std::map<const Buffer *, std::vector<Interval>> united;
  for (const auto &[region, innerIters] : regions) {
    std::vector<Interval> intervals = relaxedOverInner(region, *innerIters);
    auto [it, fresh] = united.try_emplace(region.buffer.get(), intervals);
    if (fresh) {
      order.push_back(region.buffer);
      continue;
    }
    for (size_t d = 0; d < intervals.size(); ++d) it->second[d] = uniteIntervals(it->second[d], intervals[d]);
  }
  std::vector<BufferRegion> result;
  for (const BufferRef &buffer : order) result.push_back(regionOf(buffer, united[buffer.get()]));
  return result;
}

// blockize(loop), as the comment at the top of the file says.
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

  std::variant<BlockDivision, size_t> divided = divideBlock(*realize, innerLoops, outerLoops, preserveUnitIters);
  if (const size_t *failed = std::get_if<size_t>(&divided))
    return fail("the binding of '" + block.iterVars[*failed]->var->name + "' in block '" + block.name +
                "' cannot be divided at the loop '" + rv.loopVar->name + "'");
  const BlockDivision &division = std::get<BlockDivision>(divided);
  std::vector<BufferRegion> reads, writes;
  Stmt body = innerNest(*realize, division, innerLoops, reads, writes);

  // The init: the inner loops its data-parallel iterators use, around `<name>_init`.
  Stmt init;
  if (block.init) {
    Stmt initBody = DivisionSubstituter(division).visitStmt(block.init);
    VarMap initMap;
    std::vector<IterVarRef> initIters;
    std::vector<Expr> initBindings;
    for (size_t i = 0; i < division.innerIters.size(); ++i) {
      const IterVar &iv = *division.innerIters[i];
      if (iv.iterType != IterType::DataPar) continue;
      bool used = false;
      preOrderVisit(initBody, [&](const Node &n) { used |= &n == iv.var.get(); });
      if (!used) continue;
      VarRef var = makeVar(iv.var->name + "_init", iv.var->dtype);
      initIters.push_back(make<IterVar>(var, iv.dom, iv.iterType));
      initBindings.push_back(division.innerBindings[i]);
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

  auto relaxed = [&](const std::vector<BufferRegion> &regions) {
    std::vector<BufferRegion> result;
    for (const BufferRegion &region : regions)
      result.push_back(regionOf(region.buffer, relaxedOverInner(region, division.innerIters)));
    return result;
  };
  std::string name = block.name + "_o";
  auto outer = make<Block>(name, division.outerIters, relaxed(reads), relaxed(writes), body, init);
  sch.replace(rv.func, *path, make<BlockRealize>(division.outerBindings, nullptr, outer));
  return BlockRV{rv.func, name};
}

// blockize([b0, b1, ...]): the statements holding the blocks, consecutive in the body of their
// lowest common loop or block, become the body of one new block `outer_<b0>_<b1>_..._`. Each
// block is divided as above with the loops between that body and the block as the inner loops;
// the blocks share the outer iterators (the first block's; the others' outer parts must equal
// them), and the outer regions are the union of the blocks' relaxed regions. TVM drops a block's
// T.init here; vtac rejects blocks with one instead.
llvm::Expected<BlockRV> blockizeBlocks(Schedule &sch, const std::vector<BlockRV> &rvs, bool preserveUnitIters,
                                       SourceLoc at) {
  auto fail = [&](const std::string &why) { return diagnosticError(at, "blockize: " + why); };
  if (rvs.empty()) return fail("the list of blocks is empty");
  std::vector<StmtPath> paths;
  for (const BlockRV &rv : rvs) {
    if (rv.func != rvs[0].func) return fail("the blocks '" + rvs[0].name + "' and '" + rv.name + "' are in different functions");
    llvm::Expected<StmtPath> path = sch.findBlock(rv, at);
    if (!path) return path.takeError();
    const Block &block = *path->back().as<BlockRealize>()->block;
    if (block.init)
      return fail("the block '" + rv.name + "' has a T.init (blockize its loop instead: blockizing several blocks would drop it)");
    paths.push_back(std::move(*path));
  }
  // The lowest common loop or block strictly above every block's BlockRealize.
  size_t common = paths[0].size() - 1;
  for (const StmtPath &path : paths) {
    size_t n = 0;
    while (n < std::min(common, path.size() - 1) && path[n] == paths[0][n]) ++n;
    common = n;
  }
  size_t lca = common;
  while (lca-- > 0 && !paths[0][lca].as<For>() && !paths[0][lca].as<Block>()) {
  }
  if (lca == size_t(-1)) return fail("the blocks have no common loop or block");
  // The statements of the lca's body that hold the blocks: consecutive, one block each, in order.
  const Stmt &lcaBody = paths[0][lca + 1];
  const auto *seq = lcaBody.as<SeqStmt>();
  size_t elementDepth = seq ? lca + 2 : lca + 1;
  std::vector<Stmt> elements = statementsOf(lcaBody);
  std::vector<size_t> positions;
  for (size_t b = 0; b < paths.size(); ++b) {
    size_t position = std::find(elements.begin(), elements.end(), paths[b][elementDepth]) - elements.begin();
    if (!positions.empty() && position == positions.back())
      return fail("the blocks '" + rvs[b - 1].name + "' and '" + rvs[b].name +
                  "' are in one statement of their common loop or block (each must be in a statement of its own)");
    if (!positions.empty() && position != positions.back() + 1)
      return fail("the block '" + rvs[b].name + "' is not in the statement right after the block '" + rvs[b - 1].name +
                  "' (the blocks must be listed in program order, one statement each, with nothing between)");
    positions.push_back(position);
  }
  for (size_t b = 0; b < paths.size(); ++b)
    for (size_t k = elementDepth; k + 1 < paths[b].size(); ++k)
      if (!paths[b][k].as<For>())
        return fail("the block '" + rvs[b].name + "' is not under a perfect nest of loops in its statement");

  StmtPath lcaPath(paths[0].begin(), paths[0].begin() + lca + 1);
  std::vector<const For *> outerLoops = loopsInScope(lcaPath);
  BlockDivision shared;
  std::vector<Stmt> nests;
  std::vector<std::vector<IterVarRef>> innerIters;
  std::vector<std::vector<BufferRegion>> reads(paths.size()), writes(paths.size());
  std::string name = "outer_";
  for (size_t b = 0; b < paths.size(); ++b) {
    const auto &realize = *paths[b].back().as<BlockRealize>();
    const Block &block = *realize.block;
    std::vector<const For *> innerLoops;
    for (size_t k = elementDepth; k + 1 < paths[b].size(); ++k) innerLoops.push_back(paths[b][k].as<For>());
    std::variant<BlockDivision, size_t> divided = divideBlock(realize, innerLoops, outerLoops, preserveUnitIters);
    if (const size_t *failed = std::get_if<size_t>(&divided))
      return fail("the binding of '" + block.iterVars[*failed]->var->name + "' in block '" + block.name +
                  "' cannot be divided at its statement");
    BlockDivision &division = std::get<BlockDivision>(divided);
    if (b == 0) {
      shared.outerIters = division.outerIters;
      shared.outerBindings = division.outerBindings;
    } else {
      // The later blocks take the first block's outer iterators (their outer parts must agree).
      if (division.outerIters.size() > shared.outerIters.size())
        return fail("the block '" + block.name + "' has more iterators than the block '" + rvs[0].name + "'");
      for (size_t i = 0; i < division.outerIters.size(); ++i) {
        const IterVar &mine = *division.outerIters[i], &first = *shared.outerIters[i];
        if (!structuralEqual(mine.dom.extent, first.dom.extent) ||
            !structuralEqual(division.outerBindings[i], shared.outerBindings[i]))
          return fail("the outer part of '" + block.iterVars[i]->var->name + "' in block '" + block.name +
                      "' differs from that of '" + rvs[0].name + "'");
        VarMap toShared{{mine.var.get(), first.var}};
        division.substitution[block.iterVars[i]->var.get()] =
            substitute(division.substitution[block.iterVars[i]->var.get()], toShared);
      }
    }
    nests.push_back(innerNest(realize, division, innerLoops, reads[b], writes[b]));
    innerIters.push_back(division.innerIters);
    name += block.name + "_";
  }
  std::vector<std::pair<BufferRegion, const std::vector<IterVarRef> *>> allReads, allWrites;
  for (size_t b = 0; b < paths.size(); ++b) {
    for (const BufferRegion &region : reads[b]) allReads.push_back({region, &innerIters[b]});
    for (const BufferRegion &region : writes[b]) allWrites.push_back({region, &innerIters[b]});
  }
  name = sch.freshBlockName(rvs[0].func, name);
  Stmt body = nests.size() == 1 ? nests[0] : make<SeqStmt>(nests);
  Stmt outer = make<BlockRealize>(shared.outerBindings, nullptr,
                                  make<Block>(name, shared.outerIters, unitedRegions(allReads), unitedRegions(allWrites), body));
  std::vector<Stmt> rewritten(elements.begin(), elements.begin() + positions.front());
  rewritten.push_back(outer);
  rewritten.insert(rewritten.end(), elements.begin() + positions.back() + 1, elements.end());
  StmtPath bodyPath(paths[0].begin(), paths[0].begin() + lca + 2);
  sch.replace(rvs[0].func, bodyPath, rewritten.size() == 1 ? rewritten[0] : make<SeqStmt>(rewritten));
  return BlockRV{rvs[0].func, name};
}

}  // namespace

llvm::Expected<BlockRV> blockize(Schedule &sch, const Located<BlockizeTarget> &target, bool preserveUnitIters) {
  if (const auto *blocks = std::get_if<std::vector<BlockRV>>(&target.value))
    return blockizeBlocks(sch, *blocks, preserveUnitIters, target.at);
  return blockizeLoop(sch, std::get<LoopRV>(target.value), preserveUnitIters, target.at);
}

}  // namespace vtac::passes::schedule

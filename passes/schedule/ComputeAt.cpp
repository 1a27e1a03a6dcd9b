// compute_at(block, loop, preserve_unit_loops=False, index=-1) and what reverse_compute_at
// shares with it (ComputeAt.h); the semantics are in Primitives.h.
#include "ComputeAt.h"

#include "AffineInverse.h"
#include "BlockAnalysis.h"
#include "BlockTree.h"
#include "RegionRelax.h"
#include "BufferUtils.h"
#include "CacheStage.h"
#include "LoopUtils.h"
#include "StagePipeline.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/StorageScope.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// The variables relaxed when the block at `dependent` is seen from `loopPath`: the loops between,
// and for a buffer in shared or local storage the thread loops above that share it (TVM's
// LoopDomainOfSRefTreePath; global storage relaxes no thread loop).
std::map<const Var *, Range> relaxedLoops(const StmtPath &dependent, const StmtPath &loopPath, int storage) {
  std::map<const Var *, Range> relaxed;
  for (size_t i = loopPath.size(); i < dependent.size(); ++i)
    if (const auto *loop = dependent[i].as<For>()) relaxed[loop->loopVar.get()] = Range{loop->min, loop->extent};
  if (storage == 0) return relaxed;
  for (size_t i = loopPath.size(); i-- > 0;) {
    if (loopPath[i]->isa<Block>()) break;
    const auto *loop = loopPath[i].as<For>();
    if (loop && loop->threadBinding && storage <= threadRank(loop->threadBinding->threadTag))
      relaxed[loop->loopVar.get()] = Range{loop->min, loop->extent};
  }
  return relaxed;
}

// What a block iterator must cover for the block to provide `required` of one buffer dimension
// it provides at `provided` (TVM's SolveBlockVarDomain): `dom`, and `bound`, the iterator values
// that stay inside a dimension of extent `dimension`.
struct IteratorNeed {
  const Var *var = nullptr;
  Interval dom, bound;
};

std::optional<IteratorNeed> solveIterator(const Range &provided, const Interval &required,
                                          std::optional<int64_t> dimension, arith::Analyzer &analyzer) {
  if (!required.extent) return std::nullopt;
  DataType dtype = provided.min->dtype;
  Expr requiredMax = addExpr(required.min, intImm(*required.extent - 1, dtype));
  auto interval = [&](const Expr &lo, const Expr &hi) -> std::optional<Interval> {
    Expr min = analyzer.simplify(lo);
    std::optional<int64_t> extent = asConstInt(analyzer.simplify(subExpr(addExpr(hi, intImm(1, dtype)), lo)));
    if (!extent) return std::nullopt;
    return Interval{min, *extent};
  };
  // A dimension of symbolic extent gives no bound.
  auto need = [&](const Var *var, std::optional<Interval> dom, std::optional<int64_t> boundMax) -> std::optional<IteratorNeed> {
    if (!dom) return std::nullopt;
    return IteratorNeed{var, *dom, boundMax ? Interval{intImm(0, dtype), *boundMax + 1} : Interval{intImm(0, dtype), std::nullopt}};
  };
  auto scaled = [&](int64_t factor, int64_t plus) -> std::optional<int64_t> {
    if (!dimension) return std::nullopt;
    return factor > 0 ? (*dimension - 1) / factor : (*dimension - 1) * -factor + plus;
  };
  // v * e (any extent): v in [min // e, max // e].
  if (const auto *mul = provided.min.as<BinaryExpr>(); mul && mul->kind() == NodeKind::Mul) {
    const auto *var = mul->a.as<Var>() ? mul->a.as<Var>() : mul->b.as<Var>();
    std::optional<int64_t> factor = asConstInt(mul->a.as<Var>() ? mul->b : mul->a);
    if (!var || !factor || *factor <= 0) return std::nullopt;
    return need(var, interval(floorDivExpr(required.min, intImm(*factor, dtype)), floorDivExpr(requiredMax, intImm(*factor, dtype))),
                scaled(*factor, 0));
  }
  if (!isOne(provided.extent)) return std::nullopt;
  if (const auto *var = provided.min.as<Var>()) return need(var, interval(required.min, requiredMax), scaled(1, 0));
  // v // f (a point): v in [min * f, max * f + f - 1].
  const auto *div = provided.min.as<BinaryExpr>();
  if (!div || div->kind() != NodeKind::FloorDiv || !div->a.as<Var>()) return std::nullopt;
  std::optional<int64_t> factor = asConstInt(div->b);
  if (!factor || *factor <= 0) return std::nullopt;
  return need(div->a.as<Var>(),
              interval(mulExpr(required.min, div->b), addExpr(mulExpr(requiredMax, div->b), intImm(*factor - 1, dtype))),
              scaled(-*factor, *factor - 1));
}

// TVM's UpdateBlockVarDomainAffine: where the block provides one point of the buffer through an
// invertible affine map of all its iterators (`Y[9 - vi, 9 - vj]`, `B[(v1 * 8 + v4) // 16, ...,
// (v1 * 8 + v4) % 16]`), each iterator needs what the map's inverse gives at the lowest and at
// the highest point of the needed region, and stays within the inverse of the buffer's corners.
// False (nothing solved) when the map is not of that form or a range is not constant.
bool solveAffine(const BufferRegion &provided, const std::vector<Interval> &needed, const std::vector<IterVarRef> &iterVars,
                 arith::Analyzer &analyzer, std::vector<IteratorNeed> &needs) {
  std::vector<Expr> outputs, lowest, highest, first, last;
  for (size_t d = 0; d < provided.region.size(); ++d) {
    std::optional<int64_t> dimension = asConstInt(provided.buffer->shape[d]);
    if (!isOne(provided.region[d].extent) || !needed[d].extent || !dimension) return false;
    DataType dtype = provided.region[d].min->dtype;
    // `c - v` (an iterator at scale -1 in TVM's iter map) provides the point p where v is c - p.
    Expr index = provided.region[d].min, mirror;
    const auto *sub = index.as<BinaryExpr>();
    if (sub && sub->kind() == NodeKind::Sub && asConstInt(sub->a) && sub->b.as<Var>()) {
      mirror = sub->a;
      index = sub->b;
    }
    auto at = [&](const Expr &point) { return mirror ? subExpr(mirror, point) : point; };
    outputs.push_back(index);
    lowest.push_back(at(needed[d].min));
    highest.push_back(at(addExpr(needed[d].min, intImm(*needed[d].extent - 1, dtype))));
    first.push_back(at(intImm(0, dtype)));
    last.push_back(at(intImm(std::max<int64_t>(*dimension - 1, 0), dtype)));
  }
  std::vector<AffineInput> inputs;
  for (const IterVarRef &iv : iterVars) {
    std::optional<int64_t> extent = asConstInt(iv->dom.extent);
    if (!isZero(iv->dom.min) || !extent) return false;
    inputs.push_back({iv->var, *extent});
  }
  std::vector<llvm::Expected<AffineMapInverse>> inverses;
  for (const std::vector<Expr> *point : {&lowest, &highest, &first, &last})
    inverses.push_back(inverseAffineMap(outputs, inputs, *point));
  bool invertible = true;
  for (llvm::Expected<AffineMapInverse> &inverse : inverses)
    if (!inverse) {
      llvm::consumeError(inverse.takeError());
      invertible = false;
    } else if (inverse->padding) {
      invertible = false;  // not one-to-one onto the buffer
    }
  if (!invertible) return false;
  // [min(a, b), max(a, b)] of the inverse at two points, when its extent is constant.
  auto between = [&](const AffineMapInverse &a, const AffineMapInverse &b, const Var *var) -> std::optional<Interval> {
    Expr x = analyzer.simplify(a.inverse.at(var)), y = analyzer.simplify(b.inverse.at(var));
    Expr lo = analyzer.simplify(makeBinary(NodeKind::Min, x, y)), hi = analyzer.simplify(makeBinary(NodeKind::Max, x, y));
    std::optional<int64_t> extent = asConstInt(analyzer.simplify(subExpr(addExpr(hi, intImm(1, hi->dtype)), lo)));
    if (!extent) return std::nullopt;
    return Interval{lo, *extent};
  };
  std::vector<IteratorNeed> solved;
  for (const IterVarRef &iv : iterVars) {
    const Var *var = iv->var.get();
    if (!inverses[0]->inverse.count(var)) continue;
    std::optional<Interval> dom = between(*inverses[0], *inverses[1], var), bound = between(*inverses[2], *inverses[3], var);
    if (!dom || !bound) return false;
    solved.push_back(IteratorNeed{var, *dom, *bound});
  }
  needs.insert(needs.end(), solved.begin(), solved.end());
  return true;
}

bool dividesBySymbolicSize(const Expr &e) {
  bool found = false;
  preOrderVisit(e, [&](const Node &node) {
    const auto *binary = node.as<BinaryExpr>();
    found |= binary && (binary->kind() == NodeKind::FloorDiv || binary->kind() == NodeKind::FloorMod) &&
             !asConstInt(binary->b);
  });
  return found;
}

// TVM's BlockVarDomainInfo::Simplify: the needed range, or the bound where that lies inside it or
// their intersection is constant; otherwise the needed range and the bound, which the block then
// checks in its predicate.
struct ClippedRange {
  Interval dom;
  std::optional<Interval> bound;
};

ClippedRange clippedToBound(const Interval &dom, const Interval &bound, arith::Analyzer &analyzer) {
  if (!dom.extent || !bound.extent) return {dom, std::nullopt};
  Expr domMax = addExpr(dom.min, intImm(*dom.extent - 1, dom.min->dtype));
  Expr boundMax = addExpr(bound.min, intImm(*bound.extent - 1, bound.min->dtype));
  Expr lo = analyzer.simplify(makeBinary(NodeKind::Max, dom.min, bound.min));
  Expr hi = analyzer.simplify(makeBinary(NodeKind::Min, domMax, boundMax));
  if (analyzer.canProveEqual(lo, dom.min) && analyzer.canProveEqual(hi, domMax)) return {dom, std::nullopt};
  if (analyzer.canProveEqual(lo, bound.min) && analyzer.canProveEqual(hi, boundMax)) return {bound, std::nullopt};
  std::optional<int64_t> loValue = asConstInt(lo), hiValue = asConstInt(hi);
  if (loValue && hiValue && *hiValue >= *loValue) return {Interval{lo, *hiValue - *loValue + 1}, std::nullopt};
  return {dom, bound};
}

// The bound within the iterator's own domain, which its values never leave (TVM intersects the
// two); a bound of symbolic extent stays as it is.
Interval withinDomain(const Interval &bound, const Range &dom) {
  std::optional<int64_t> boundMin = asConstInt(bound.min), domMin = asConstInt(dom.min), domExtent = asConstInt(dom.extent);
  if (!bound.extent || !boundMin || !domMin || !domExtent) return bound;
  int64_t lo = std::max(*boundMin, *domMin), hi = std::min(*boundMin + *bound.extent, *domMin + *domExtent);
  if (hi <= lo) return bound;
  return Interval{intImm(lo, bound.min->dtype), hi - lo};
}

// What a compute_at or reverse_compute_at at a loop asks, and where its arguments were written.
struct ComputeAtRequest {
  BlockRV block;
  LoopRV loop;
  bool preserveUnitLoops = false;
  int64_t index = -1;
  ir::SourceLoc blockAt, loopAt, indexAt;
};

// TVM's ComputeAtOrReverseComputeAtImpl (see Primitives.h); an illegal request changes nothing.
llvm::Error moveBlockUnderLoop(Schedule &sch, const ComputeAtRequest &request, bool isComputeAt) {
  const char *primitive = isComputeAt ? "compute_at" : "reverse_compute_at";
  const BlockRV &blockRV = request.block;
  const LoopRV &loopRV = request.loop;
  llvm::Expected<StmtPath> blockPath = sch.findBlock(blockRV, request.blockAt);
  if (!blockPath) return blockPath.takeError();
  llvm::Expected<StmtPath> loopPath = sch.findLoop(loopRV, request.loopAt);
  if (!loopPath) return loopPath.takeError();
  auto fail = [&](SourceLoc at, const std::string &why) { return diagnosticError(at, std::string(primitive) + ": " + why); };
  const BlockRealize &realize = *blockPath->back().as<BlockRealize>();
  const Block &block = *realize.block;
  const For &target = *loopPath->back().as<For>();
  // TVM's checks in its order (ComputeAtOrReverseComputeAtImpl), so that a step failing several
  // gets its error: the scope, the block, the loop's place, then compute_at's output block.
  StmtPath scopePath = scopeOf(*blockPath);
  if (std::string why = whyNotStagePipeline(*scopePath.back().as<Block>()); !why.empty()) return fail(request.blockAt, why);
  // Moving a block that shares its output with another writer would make it compute the other's
  // part too (TVM's CheckCompleteOrReductionBlock).
  if (std::string why = whyNotCompleteOrReduction(*blockPath); !why.empty())
    return fail(request.blockAt, "the block '" + block.name + "' is neither a complete block nor a reduction block: " + why);
  if (std::find(blockPath->begin(), blockPath->end(), loopPath->back()) != blockPath->end())
    return fail(request.loopAt, "the loop '" + target.loopVar->name + "' is an ancestor of the block '" + block.name + "'");
  if (scopeOf(*loopPath) != scopePath)
    return fail(request.loopAt, "the loop '" + target.loopVar->name + "' is not in the scope of the block '" + block.name + "'");
  if (isComputeAt) {
    if (std::string why = whyOutputBlock(block, *scopePath.back().as<Block>()); !why.empty())
      return fail(request.blockAt, "the block '" + block.name + "' " + why);
  }

  // The blocks under the loop that this one depends on or feeds.
  const std::vector<BufferRegion> &provided = isComputeAt ? block.writes : block.reads;
  const Block &scope = *scopePath.back().as<Block>();
  std::set<std::string> dependents;
  std::map<const Var *, Interval> required, bounds;  // by block iterator
  arith::Analyzer analyzer;
  for (const For *loop : loopsInScope(*loopPath)) analyzer.bind(loop->loopVar, Range{loop->min, loop->extent});
  for (const BufferRegion &region : provided) {
    const Buffer *buffer = region.buffer.get();
    std::set<std::string> inScope = blocksTouching(scope.body, buffer, !isComputeAt);
    inScope.erase(block.name);
    std::vector<Interval> needed;  // by dimension, what the dependents under the loop access
    for (const StmtPath &found : blocksAccessing(loopPath->back(), buffer, !isComputeAt)) {
      StmtPath dependent = *loopPath;
      dependent.insert(dependent.end(), found.begin() + 1, found.end());
      const BlockRealize &other = *dependent.back().as<BlockRealize>();
      inScope.erase(other.block->name);
      dependents.insert(other.block->name);
      VarMap bindings;
      for (size_t i = 0; i < other.iterValues.size(); ++i) bindings[other.block->iterVars[i]->var.get()] = other.iterValues[i];
      std::map<const Var *, Range> relaxed = relaxedLoops(dependent, *loopPath, isComputeAt ? storageRank(region.buffer->scope()) : 0);
      for (const BufferRegion &access : isComputeAt ? other.block->reads : other.block->writes) {
        if (access.buffer.get() != buffer) continue;
        std::vector<Interval> intervals;
        for (size_t d = 0; d < access.region.size(); ++d)
          intervals.push_back(relaxRange(Range{substitute(access.region[d].min, bindings), access.region[d].extent}, relaxed, analyzer));
        if (needed.empty()) {
          needed = std::move(intervals);
        } else {
          for (size_t d = 0; d < needed.size(); ++d) needed[d] = uniteIntervals(needed[d], intervals[d]);
        }
      }
    }
    std::vector<IteratorNeed> needs;
    if (!needed.empty() && !solveAffine(region, needed, block.iterVars, analyzer, needs))
      for (size_t d = 0; d < needed.size(); ++d)
        if (std::optional<IteratorNeed> need = solveIterator(region.region[d], needed[d], asConstInt(buffer->shape[d]), analyzer))
          needs.push_back(*need);
    for (const IteratorNeed &need : needs) {
      auto [it, fresh] = required.try_emplace(need.var, need.dom);
      if (!fresh) it->second = uniteIntervals(it->second, need.dom);
      auto [bound, freshBound] = bounds.try_emplace(need.var, need.bound);
      if (!freshBound) bound->second = uniteIntervals(bound->second, need.bound);
    }
    if (!inScope.empty())
      return fail(request.loopAt, "the " + std::string(isComputeAt ? "consumer '" : "producer '") + *inScope.begin() +
                                       "' of the block '" + block.name + "' is not under the loop '" + target.loopVar->name + "'");
  }
  if (dependents.empty())
    return fail(request.loopAt, "no " + std::string(isComputeAt ? "consumer" : "producer") + " of the block '" + block.name +
                                     "' is under the loop '" + target.loopVar->name + "'");

  // One loop per block iterator, over the range its dependents need within the buffer (its whole
  // domain otherwise), from a start simplified under the loops around it as TVM's analyzer does (a
  // loop of extent 1 is 0 there).
  std::vector<Expr> bindings;
  Expr predicate;
  std::vector<VarRef> loopVars;
  std::vector<Expr> extents;
  for (const IterVarRef &iv : block.iterVars) {
    auto it = required.find(iv->var.get());
    Expr min = iv->dom.min, extent = iv->dom.extent;
    std::optional<Interval> bound;
    if (it != required.end() && it->second.extent) {
      ClippedRange needed = clippedToBound(it->second, withinDomain(bounds.at(iv->var.get()), iv->dom), analyzer);
      min = analyzer.simplify(needed.dom.min);
      extent = intImm(*needed.dom.extent, iv->var->dtype);
      bound = needed.bound;
    }
    if (isOne(extent) && !request.preserveUnitLoops) {
      bindings.push_back(min);
    } else {
      loopVars.push_back(makeVar("ax" + std::to_string(loopVars.size()), iv->var->dtype));
      analyzer.bind(loopVars.back(), rangeFromExtent(extent));
      extents.push_back(extent);
      bindings.push_back(addExpr(min, loopVars.back()));
    }
    // Iterations outside the buffer that the needed range reaches are skipped (TVM's predicate).
    // Not where the start divides by a symbolic size: TVM proves such digits in range, which this
    // analyzer cannot, and a needed range derived from in-bounds accesses is in range.
    if (!bound || dividesBySymbolicSize(min)) continue;
    DataType dtype = iv->var->dtype;
    Expr lower = makeBinary(NodeKind::GE, bindings.back(), bound->min);
    Expr upper = makeBinary(NodeKind::LT, bindings.back(), addExpr(bound->min, intImm(*bound->extent, dtype)));
    for (const Expr &condition : {lower, upper})
      if (!analyzer.canProve(condition)) predicate = predicate ? makeBinary(NodeKind::And, predicate, condition) : condition;
  }
  BlockRealize *moved = copyNode(realize);
  moved->iterValues = bindings;
  moved->predicate = predicate ? analyzer.simplify(predicate) : nullptr;
  Stmt subtree(moved);
  for (size_t i = loopVars.size(); i-- > 0;)
    subtree = make<For>(loopVars[i], intImm(0, loopVars[i]->dtype), extents[i], ForKind::Serial, subtree);

  // Where it goes among the loop's statements: after the last holding one of the block's
  // producers, up to the first holding one of its consumers (TVM's ProducerConsumerSplit); index
  // -1 takes the latest place, -2 the earliest.
  std::set<std::string> producers, consumers;
  for (const BufferRegion &read : block.reads)
    for (const std::string &name : blocksTouching(loopPath->back(), read.buffer.get(), true)) producers.insert(name);
  for (const BufferRegion &write : block.writes)
    for (const std::string &name : blocksTouching(loopPath->back(), write.buffer.get(), false)) consumers.insert(name);
  std::vector<Stmt> children = statementsOf(target.body);
  int64_t lastProducer = -1, firstConsumer = int64_t(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    if (holdsBlockNamed(children[i], producers)) lastProducer = int64_t(i);
    if (holdsBlockNamed(children[i], consumers)) firstConsumer = std::min(firstConsumer, int64_t(i));
  }
  if (lastProducer >= firstConsumer)
    return fail(request.loopAt, "no place under the loop '" + target.loopVar->name + "' follows the producers of the block '" +
                                     block.name + "' and precedes its consumers");
  int64_t position = firstConsumer;
  if (request.index == -2) {
    position = lastProducer + 1;
  } else if (request.index != -1) {
    if (request.index <= lastProducer || request.index > firstConsumer)
      return fail(request.indexAt, "index " + std::to_string(request.index) + " is not -1, -2 or in [" +
                                        std::to_string(lastProducer + 1) + ", " + std::to_string(firstConsumer) +
                                        "], the places after the block's producers and before its consumers");
    position = request.index;
  }

  if (llvm::Error error = removeLeafBlock(sch, blockRV.func, *blockPath, request.blockAt)) return error;
  llvm::Expected<StmtPath> newLoopPath = sch.findLoop(loopRV, request.loopAt);
  if (!newLoopPath) return newLoopPath.takeError();
  const For &current = *newLoopPath->back().as<For>();
  children = statementsOf(current.body);
  children.insert(children.begin() + std::min(size_t(position), children.size()), subtree);
  For *copy = copyNode(current);
  copy->body = seq(std::move(children));
  sch.replace(blockRV.func, *newLoopPath, Stmt(copy));
  return llvm::Error::success();
}

}  // namespace

llvm::Error computeAtOrReverseComputeAt(Schedule &sch, const Located<BlockRV> &block,
                                        const Located<ComputeLocation> &loop, bool preserveUnitLoops,
                                        const Located<int64_t> &index, bool isComputeAt) {
  if (const auto *mark = std::get_if<LocationMarkRV>(&loop.value)) {
    if (mark->kind == LocationMarkRV::Kind::Root) return llvm::Error::success();
    return isComputeAt ? computeInline(sch, block) : reverseComputeInline(sch, block);
  }
  ComputeAtRequest request{block.value, std::get<LoopRV>(loop.value), preserveUnitLoops, index.value,
                           block.at,    loop.at,                       index.at};
  return moveBlockUnderLoop(sch, request, isComputeAt);
}

llvm::Error computeAt(Schedule &sch, const Located<BlockRV> &block, const Located<ComputeLocation> &loop,
                      bool preserveUnitLoops, const Located<int64_t> &index) {
  return computeAtOrReverseComputeAt(sch, block, loop, preserveUnitLoops, index, /*isComputeAt=*/true);
}

}  // namespace vtac::passes::schedule

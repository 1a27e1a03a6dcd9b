// decompose_reduction(block, loop): the block's T.init becomes a block `<name>_init` of its own,
// placed just before `loop` under copies (`<var>_init`) of the loops from `loop` down that its
// data-parallel bindings use; the block, renamed `<name>_update`, loses its init and reads what
// it writes. `loop` must enclose the block and every loop its reduction iterators use.
// Returns the init block.
#include "LoopUtils.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/schedule/Primitives.h"

#include <set>

namespace vtac::passes::schedule {

using namespace ir;

namespace {

bool usesAny(const Expr &expr, const std::set<const Var *> &vars) {
  bool found = false;
  preOrderVisit(expr, [&](const Node &node) { found |= node.isa<Var>() && vars.count(static_cast<const Var *>(&node)); });
  return found;
}

// The conjuncts of `predicate` that use none of `discarded` (TVM's RemakePredicate).
Expr keptConjuncts(const Expr &predicate, const std::set<const Var *> &discarded) {
  if (!predicate) return predicate;
  const auto *conjunction = predicate.as<BinaryExpr>();
  if (conjunction && conjunction->kind() == NodeKind::And) {
    Expr a = keptConjuncts(conjunction->a, discarded), b = keptConjuncts(conjunction->b, discarded);
    return a && b ? makeBinary(NodeKind::And, a, b) : a ? a : b;
  }
  return usesAny(predicate, discarded) ? Expr() : predicate;
}

}  // namespace

llvm::Expected<BlockRV> decomposeReduction(Schedule &sch, const Located<BlockRV> &reduction,
                                           const Located<LoopRV> &initLoop) {
  const BlockRV &blockRV = reduction.value;
  const LoopRV &loopRV = initLoop.value;
  llvm::Expected<StmtPath> blockPath = sch.findBlock(blockRV, reduction.at);
  if (!blockPath) return blockPath.takeError();
  const BlockRealize &realize = *blockPath->back().as<BlockRealize>();
  const Block &block = *realize.block;
  auto fail = [&](SourceLoc at, const std::string &why) { return diagnosticError(at, "decompose_reduction: " + why); };
  if (!block.init) return fail(reduction.at, "the block '" + block.name + "' has no T.init (not a reduction block)");
  std::vector<const For *> loops = loopsInScope(*blockPath);
  auto target = std::find_if(loops.begin(), loops.end(), [&](const For *loop) { return loop->loopVar == loopRV.loopVar; });
  if (target == loops.end())
    return fail(initLoop.at, "the loop '" + loopRV.loopVar->name + "' does not enclose the block '" + block.name + "'");
  std::set<const Var *> reductionLoops;
  for (size_t i = 0; i < block.iterVars.size(); ++i)
    if (block.iterVars[i]->iterType != IterType::DataPar)
      for (const For *loop : loops)
        if (usesAny(realize.iterValues[i], {loop->loopVar.get()})) reductionLoops.insert(loop->loopVar.get());
  for (auto it = loops.begin(); it != target; ++it)
    if (reductionLoops.count((*it)->loopVar.get()))
      return fail(initLoop.at, "the reduction loop '" + (*it)->loopVar->name + "' is outside the loop '" +
                                       loopRV.loopVar->name + "'");

  // The init block: the data-parallel iterators, renamed, over the original bindings.
  VarMap iterMap;
  std::vector<IterVarRef> initIters;
  std::vector<Expr> initBindings;
  for (size_t i = 0; i < block.iterVars.size(); ++i) {
    const IterVar &iv = *block.iterVars[i];
    if (iv.iterType != IterType::DataPar) continue;
    VarRef var = makeVar(iv.var->name, iv.var->dtype);
    initIters.push_back(make<IterVar>(var, iv.dom, iv.iterType, iv.threadTag));
    initBindings.push_back(realize.iterValues[i]);
    iterMap[iv.var.get()] = var;
  }
  std::vector<BufferRegion> initWrites;
  for (const BufferRegion &write : block.writes) {
    BufferRegion copy = write;
    for (Range &range : copy.region) range = Range{substitute(range.min, iterMap), substitute(range.extent, iterMap)};
    initWrites.push_back(copy);
  }
  auto initBlock = make<Block>(block.name + "_init", initIters, std::vector<BufferRegion>{}, initWrites,
                               substitute(block.init, iterMap), nullptr, std::vector<BufferRef>{},
                               std::vector<MatchBufferRegion>{}, block.annotations);
  std::set<const Var *> discarded;
  std::vector<const For *> chosen;
  for (auto it = loops.end(); it-- != target;) {
    bool used = std::any_of(initBindings.begin(), initBindings.end(),
                            [&](const Expr &binding) { return usesAny(binding, {(*it)->loopVar.get()}); });
    (used ? chosen.push_back(*it) : (void)discarded.insert((*it)->loopVar.get()));
  }
  Stmt init = make<BlockRealize>(initBindings, keptConjuncts(realize.predicate, discarded), initBlock);
  VarMap loopMap;
  for (const For *loop : chosen) {
    For *copy = copyNode(*loop);
    copy->loopVar = makeVar(loop->loopVar->name + "_init", loop->loopVar->dtype);
    if (loop->threadBinding)
      copy->threadBinding = make<IterVar>(copy->loopVar, loop->threadBinding->dom, loop->threadBinding->iterType,
                                          loop->threadBinding->threadTag);
    copy->body = init;
    init = Stmt(copy);
    loopMap[loop->loopVar.get()] = copy->loopVar;
  }
  init = substitute(init, loopMap);

  // The update block.
  Block *update = copyNode(block);
  update->name = block.name + "_update";
  update->init = nullptr;
  std::vector<BufferRegion> reads;
  for (const BufferRegion &write : block.writes)
    if (std::none_of(block.reads.begin(), block.reads.end(), [&](const BufferRegion &r) { return r.buffer == write.buffer; }))
      reads.push_back(write);
  reads.insert(reads.end(), block.reads.begin(), block.reads.end());
  update->reads = std::move(reads);
  BlockRealize *newRealize = copyNode(realize);
  newRealize->block = BlockRef(update);
  sch.replace(blockRV.func, *blockPath, Stmt(newRealize));
  sch.renameBlock(blockRV.func, block.name, update->name);

  llvm::Expected<StmtPath> loopPath = sch.findLoop(loopRV, initLoop.at);
  if (!loopPath) return loopPath.takeError();
  sch.replace(blockRV.func, *loopPath, seq({init, loopPath->back()}));
  return BlockRV{blockRV.func, initBlock->name};
}

}  // namespace vtac::passes::schedule

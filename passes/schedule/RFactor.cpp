// rfactor(loop, factor_axis=0): factors a reduction block by one of its reduction loops (TVM's
// RFactor). The rfactor block `<name>_rf`, under copies of all the block's loops, reduces into
// a new buffer `<buffer>_rf` per reduced buffer that has the loop's extent inserted at
// `factor_axis`: the loop
// becomes its data-parallel iterator `v<loop>` first, and each reduction iterator whose binding
// uses the loop is replaced by one reduction iterator per loop its binding uses. The write-back
// block keeps the block's name and reduces the `<buffer>_rf` over the loop into the original
// buffers, under the original loops minus the reduction loops other than `loop`.
//
// The reduction is one of TVM's reducers (BlockReduction.h): `B[idx] = B[idx] op rhs` for op in
// +, *, min, max, or a reduction of several buffers (argmax/argmin of an index and a value) as
// lets and stores; both new blocks are written in the same form, with TVM's regions. Checked as
// TVM does, in its order: a reduction block with quasi-affine bindings, no store index using a
// reduction iterator, the only writer of its buffers, in a scope that is a stage pipeline
// (StagePipeline.h); `loop` serial, with one child block, not used by data-parallel iterators;
// no loop used by both kinds of iterators; the block first under its outermost loop; the first
// reduction loop with a single child block; no unbound loop of extent > 1 under it; then the
// reduction's form and reducer; then factor_axis.
#include "BlockReduction.h"
#include "BlockTree.h"
#include "BufferUtils.h"
#include "LoopUtils.h"
#include "StagePipeline.h"

#include <limits>
#include <set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/UndefinedVars.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// `region` of `buffer` with the variables in `vars` substituted.
BufferRegion substitutedRegion(BufferRef buffer, std::vector<Range> region, const VarMap &vars) {
  for (Range &range : region) range = Range{substitute(range.min, vars), substitute(range.extent, vars)};
  return BufferRegion{std::move(buffer), std::move(region)};
}

// The element a BufferLoad reads, as a region.
BufferRegion elementRegion(const Expr &element) {
  const auto &load = *element.as<BufferLoad>();
  std::vector<Range> region;
  for (const Expr &index : load.indices) region.push_back(Range{index, intImm(1, index->dtype)});
  return BufferRegion{load.buffer, region};
}

}  // namespace

llvm::Expected<BlockRV> rfactor(Schedule &sch, const Located<LoopRV> &loop, const Located<int64_t> &factorAxisArg) {
  llvm::Expected<StmtPath> loopPath = sch.findLoop(loop.value, loop.at);
  if (!loopPath) return loopPath.takeError();
  SourceLoc at = loop.at;
  auto fail = [](SourceLoc where, const std::string &why) { return diagnosticError(where, "rfactor: " + why); };
  const For &rfLoop = *loopPath->back().as<For>();
  const std::string &loopName = rfLoop.loopVar->name;

  std::vector<StmtPath> children = childBlockPaths(loopPath->back());
  if (children.size() != 1)
    return fail(at, "the loop '" + loopName + "' has " + std::to_string(children.size()) +
                        " child blocks; it must have exactly one");
  StmtPath blockPath = *loopPath;
  blockPath.insert(blockPath.end(), children[0].begin() + 1, children[0].end());
  const BlockRealize &realize = *blockPath.back().as<BlockRealize>();
  const Block &block = *realize.block;
  const std::string blockDesc = "the block '" + block.name + "'";

  // The reduction: init and update stores of its buffers at the same indices.
  if (!block.init) return fail(at, blockDesc + " is not a reduction block (it has no T.init)");
  std::string notAffine = whyNotAffineBinding(realize, loopsInScope(blockPath));
  if (!notAffine.empty())
    return fail(at, blockDesc + " is not a reduction block: " + notAffine + " is not affine in the loops of its scope");
  std::vector<const BufferStore *> stores;
  for (const Stmt &part : {block.init, block.body})
    preOrderVisit(part, [&](const Node &node) {
      if (const auto *store = node.as<BufferStore>()) stores.push_back(store);
    });
  for (const BufferStore *store : stores)
    for (const Expr &index : store->indices)
      for (const IterVarRef &iter : block.iterVars)
        if (iter->iterType == IterType::CommReduce && usesVar(index, iter->var.get()))
          return fail(at, blockDesc + " is not a reduction block: it writes '" + store->buffer->name +
                              "' at an index that uses its reduction iterator '" + iter->var->name + "'");
  StmtPath scopePath = scopeOf(blockPath);
  for (const BufferRegion &write : block.writes)
    if (blocksAccessing(scopePath.back(), write.buffer.get(), true).size() != 1)
      return fail(at, blockDesc + " is not the only writer of '" + write.buffer->name + "' in its scope");
  if (std::string why = whyNotStagePipeline(*scopePath.back().as<Block>()); !why.empty()) return fail(at, why);

  // The loops and which kinds of iterators use them.
  if (rfLoop.forKind != ForKind::Serial)
    return fail(at, "the loop '" + loopName + "' is " + forKindName(rfLoop.forKind) + "; it must be serial");
  std::vector<const For *> loops = loopsInScope(blockPath);
  std::set<const Var *> dataParVars, reduceVars;
  for (size_t i = 0; i < block.iterVars.size(); ++i)
    for (const For *loop : loops)
      if (usesVar(realize.iterValues[i], loop->loopVar.get()))
        (block.iterVars[i]->iterType == IterType::DataPar ? dataParVars : reduceVars).insert(loop->loopVar.get());
  std::vector<StmtPath> outermostChildren = childBlockPaths(Stmt(loops.front()));
  if (outermostChildren.front().back().get() != &realize)
    return fail(at, blockDesc + " is not the first child block of its outermost loop '" +
                        loops.front()->loopVar->name + "'");
  bool metReduction = false;
  for (const For *loop : loops) {
    const Var *var = loop->loopVar.get();
    const std::string name = "the loop '" + var->name + "'";
    if (dataParVars.count(var) && reduceVars.count(var))
      return fail(at, name + " is used by both data-parallel and reduction iterators of " + blockDesc);
    if (dataParVars.count(var) && loop == &rfLoop)
      return fail(at, name + " is used by a data-parallel iterator of " + blockDesc);
    if (reduceVars.count(var) && !metReduction) {
      if (childBlockPaths(Stmt(loop)).size() != 1)
        return fail(at, "the outermost reduction loop '" + var->name + "' has more than one child block");
      metReduction = true;
    } else if (!dataParVars.count(var) && !reduceVars.count(var) && metReduction && !isOne(loop->extent)) {
      return fail(at, name + " is used by no iterator and has extent > 1 under a reduction loop");
    }
  }
  size_t outermostIndex = std::find_if(blockPath.begin(), blockPath.end(),
                                      [&](const Stmt &s) { return s.get() == loops.front(); }) - blockPath.begin();
  for (size_t k = outermostIndex; k < blockPath.size(); ++k)
    if (!blockPath[k]->isa<For>() && !blockPath[k]->isa<SeqStmt>() && !blockPath[k]->isa<BlockRealize>())
      return fail(at, blockDesc + " is under a statement other than loops (not supported)");

  llvm::Expected<BlockReduction> reduction = matchBlockReduction(block, at, "rfactor: " + blockDesc + ": ");
  if (!reduction) return reduction.takeError();
  const std::vector<Expr> &indices = reduction->updates[0]->indices;
  std::vector<BufferRef> buffers;
  for (const BufferStore *update : reduction->updates) buffers.push_back(update->buffer);
  const Buffer &buffer = *buffers[0];
  int64_t ndim = int64_t(buffer.rank());
  int64_t factorAxis = factorAxisArg.value;
  if (factorAxis < -(ndim + 1) || factorAxis > ndim)
    return fail(factorAxisArg.at, "factor_axis " + std::to_string(factorAxis) + " is out of range [" +
                                        std::to_string(-(ndim + 1)) + ", " + std::to_string(ndim) + "] for '" +
                                        buffer.name + "' of " + std::to_string(ndim) + " dimension(s)");
  if (factorAxis < 0) factorAxis += ndim + 1;

  // The rfactor buffers and block.
  std::vector<BufferRef> rfBuffers;
  for (const BufferRef &reduced : buffers) {
    Buffer *rfCopy = copyNode(*withScope(reduced, reduced->scope(), reduced->name + "_rf"));
    rfCopy->shape.insert(rfCopy->shape.begin() + factorAxis, rfLoop.extent);
    rfCopy->strides.clear();
    rfCopy->elemOffset = nullptr;
    rfBuffers.push_back(BufferRef(rfCopy));
  }

  auto iterFromLoop = [](const For &loop, IterType type) {
    return make<IterVar>(makeVar("v" + loop.loopVar->name, loop.loopVar->dtype), Range{loop.min, loop.extent}, type);
  };
  IterVarRef rfIter = iterFromLoop(rfLoop, IterType::DataPar);
  std::vector<IterVarRef> rfIters{rfIter};
  std::vector<Expr> rfBindings{rfLoop.loopVar};
  VarMap loopToIter{{rfLoop.loopVar.get(), rfIter->var}};
  VarMap rfVarMap;
  for (size_t i = 0; i < block.iterVars.size(); ++i) {
    const IterVarRef &iter = block.iterVars[i];
    const Expr &binding = realize.iterValues[i];
    if (iter->iterType == IterType::DataPar || !usesVar(binding, rfLoop.loopVar.get())) {
      rfIters.push_back(iter);
      rfBindings.push_back(binding);
      continue;
    }
    for (const VarRef &var : undefinedVars(make<Evaluate>(binding))) {
      auto loop = std::find_if(loops.begin(), loops.end(), [&](const For *l) { return l->loopVar == var; });
      if (loop == loops.end() || loopToIter.count(var.get())) continue;
      IterVarRef split = iterFromLoop(**loop, IterType::CommReduce);
      loopToIter[var.get()] = split->var;
      rfIters.push_back(split);
      rfBindings.push_back(var);
    }
    rfVarMap[iter->var.get()] = substitute(binding, loopToIter);
  }
  bool rfReduces = std::any_of(rfIters.begin(), rfIters.end(),
                               [](const IterVarRef &iter) { return iter->iterType == IterType::CommReduce; });
  std::vector<Expr> rfIndices = indices;
  rfIndices.insert(rfIndices.begin() + factorAxis, rfIter->var);
  const CommReducer &reducer = *reduction->reducer;
  std::vector<Expr> rfElements;
  for (const BufferRef &rfBuffer : rfBuffers) rfElements.push_back(bufferLoad(rfBuffer, rfIndices));
  Stmt rfBody = substitute(rfReduces ? combinedStores(reducer, rfBuffers, rfIndices, rfElements, reduction->rhs)
                                     : storesOf(rfBuffers, rfIndices, reduction->rhs),
                           rfVarMap);
  Stmt rfInit = rfReduces ? substitute(storesOf(rfBuffers, rfIndices, reducer.identity), rfVarMap) : nullptr;
  // Regions as TVM writes them: the block's reads, and its writes moved to the rfactor buffers.
  std::vector<BufferRegion> rfReads, rfWrites;
  for (const BufferRegion &read : block.reads) rfReads.push_back(substitutedRegion(read.buffer, read.region, rfVarMap));
  for (const BufferRegion &write : block.writes) {
    auto reduced = std::find(buffers.begin(), buffers.end(), write.buffer);
    if (reduced == buffers.end()) continue;
    std::vector<Range> region = write.region;
    region.insert(region.begin() + factorAxis, Range{rfIter->var, intImm(1, rfIter->var->dtype)});
    rfWrites.push_back(substitutedRegion(rfBuffers[reduced - buffers.begin()], region, rfVarMap));
  }
  std::string rfName = sch.freshBlockName(loop.value.func, block.name + "_rf");
  auto rfBlock = make<Block>(rfName, rfIters, rfReads, rfWrites, rfBody,
                             rfInit, std::vector<BufferRef>{}, std::vector<MatchBufferRegion>{}, block.annotations);
  Stmt rfNest = make<BlockRealize>(rfBindings, realize.predicate, rfBlock);
  VarMap newLoopVars;
  for (const For *loop : loops) newLoopVars[loop->loopVar.get()] = makeVar(loop->loopVar->name, loop->loopVar->dtype);
  rfNest = substitute(rfNest, newLoopVars);
  for (size_t k = loops.size(); k-- > 0;) {
    For *copy = copyNode(*loops[k]);
    copy->loopVar = cast<Var>(newLoopVars.at(loops[k]->loopVar.get()));
    copy->body = rfNest;
    rfNest = Stmt(copy);
  }

  // The write-back block: reduces the rfactor buffers over the loop into the original buffers.
  IterVarRef wbIter = iterFromLoop(rfLoop, IterType::CommReduce);
  std::vector<IterVarRef> wbIters{wbIter};
  std::vector<Expr> wbBindings{rfLoop.loopVar};
  VarMap wbVarMap{{rfIter->var.get(), wbIter->var}};
  for (size_t i = 0; i < block.iterVars.size(); ++i) {
    const IterVar &iter = *block.iterVars[i];
    if (iter.iterType != IterType::DataPar) continue;
    wbIters.push_back(make<IterVar>(makeVar(iter.var->name, iter.var->dtype), iter.dom, IterType::DataPar));
    wbBindings.push_back(realize.iterValues[i]);
    wbVarMap[iter.var.get()] = wbIters.back()->var;
  }
  Stmt wbBody = combinedStores(reducer, buffers, indices, reduction->lhs, rfElements);
  Stmt wbInit = storesOf(buffers, indices, reducer.identity);
  std::vector<BufferRegion> wbReads, wbWrites;
  for (const Expr &element : rfElements) wbReads.push_back(elementRegion(substitute(element, wbVarMap)));
  for (const Expr &element : reduction->lhs) wbWrites.push_back(elementRegion(substitute(element, wbVarMap)));
  auto wbBlock = make<Block>(block.name, wbIters, wbReads, wbWrites,
                             substitute(wbBody, wbVarMap), substitute(wbInit, wbVarMap), std::vector<BufferRef>{},
                             std::vector<MatchBufferRegion>{}, block.annotations);
  Stmt wbRealize = make<BlockRealize>(wbBindings, nullptr, wbBlock);

  // Rebuild the outermost loop's subtree: the write-back block replaces the block, the loops
  // used by reduction iterators other than `loop` go; the rfactor nest comes first.
  std::set<const For *> chain(loops.begin(), loops.end());
  std::function<Stmt(const Stmt &)> rebuild = [&](const Stmt &stmt) -> Stmt {
    if (stmt.get() == &realize) return wbRealize;
    if (const auto *loop = stmt.as<For>(); loop && chain.count(loop)) {
      Stmt body = rebuild(loop->body);
      if (loop != &rfLoop && reduceVars.count(loop->loopVar.get())) return body;
      For *copy = copyNode(*loop);
      copy->body = body;
      return Stmt(copy);
    }
    if (const auto *sequence = stmt.as<SeqStmt>()) {
      std::vector<Stmt> stmts;
      for (const Stmt &s : sequence->stmts) stmts.push_back(rebuild(s));
      return seq(std::move(stmts));
    }
    return stmt;
  };
  StmtPath outermostPath(blockPath.begin(), blockPath.begin() + outermostIndex + 1);
  sch.replace(loop.value.func, outermostPath, seq({rfNest, rebuild(blockPath[outermostIndex])}));

  // The scope block is a new node now; it allocates the rfactor buffers.
  const std::string &scopeName = scopePath.back().as<Block>()->name;
  Stmt scope = blockNamed(cast<PrimFunc>(sch.module().lookup(loop.value.func))->body, scopeName);
  Block *scopeCopy = copyNode(*scope.as<Block>());
  scopeCopy->allocBuffers.insert(scopeCopy->allocBuffers.end(), rfBuffers.begin(), rfBuffers.end());
  sch.replace(loop.value.func, {scope}, Stmt(scopeCopy));
  return BlockRV{loop.value.func, rfName};
}

}  // namespace vtac::passes::schedule

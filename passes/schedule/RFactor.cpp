// rfactor(loop, factor_axis=0): factors a reduction block by one of its reduction loops (TVM's
// RFactor). The rfactor block `<name>_rf`, under copies of all the block's loops, reduces into
// a new buffer `<buffer>_rf` that has the loop's extent inserted at `factor_axis`: the loop
// becomes its data-parallel iterator `v<loop>` first, and each reduction iterator whose binding
// uses the loop is replaced by one reduction iterator per loop its binding uses. The write-back
// block keeps the block's name and reduces `<buffer>_rf` over the loop into the original buffer,
// under the original loops minus the reduction loops other than `loop`.
//
// Reductions are one BufferStore `B[idx] = B[idx] op rhs` (or `rhs op B[idx]`) with init
// `B[idx] = identity` for op in +, *, min, max (TVM's built-in commutative reducers; the
// multi-buffer argmax form is not supported). Checked as TVM does: a reduction block with
// quasi-affine bindings, written at distinct data-parallel iterators, the only writer of its
// buffer, in a scope that is a stage pipeline (StagePipeline.h); `loop` serial, with one child
// block, not used by data-parallel iterators; no loop used by both kinds of iterators; the
// block first under its outermost loop; the first reduction loop with a single child block; no
// unbound loop of extent > 1 under it.
#include "BlockUtils.h"
#include "BufferUtils.h"
#include "LoopUtils.h"
#include "Primitive.h"
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

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// Sums, differences, products with a constant, floordiv/floormod by a constant of loop
// variables and constants (what TVM's affine binding detection accepts).
bool isQuasiAffine(const Expr &e) {
  if (e->isa<Var>() || e->isa<IntImm>()) return true;
  const auto *binary = e.as<BinaryExpr>();
  if (!binary) return false;
  switch (binary->kind()) {
  case NodeKind::Add:
  case NodeKind::Sub: return isQuasiAffine(binary->a) && isQuasiAffine(binary->b);
  case NodeKind::Mul:
    return (binary->a->isa<IntImm>() && isQuasiAffine(binary->b)) ||
           (binary->b->isa<IntImm>() && isQuasiAffine(binary->a));
  case NodeKind::FloorDiv:
  case NodeKind::FloorMod: return binary->b->isa<IntImm>() && isQuasiAffine(binary->a);
  default: return false;
  }
}

bool usesVar(const Expr &e, const Var *var) {
  bool found = false;
  preOrderVisit(e, [&](const Node &node) { found |= &node == var; });
  return found;
}

// The identity of the commutative reducer `op` over dtype, or null when op is not one.
Expr reducerIdentity(NodeKind op, DataType dtype) {
  bool isFloat = dtype.isFloat();
  double largest = !isFloat ? 0
                   : dtype.bits() == 16 ? 65504.0
                   : dtype.bits() == 32 ? double(std::numeric_limits<float>::max())
                                        : std::numeric_limits<double>::max();
  int64_t intMax = dtype.bits() >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (dtype.bits() - 1)) - 1;
  int64_t uintMax = dtype.bits() >= 64 ? -1 : (int64_t(1) << dtype.bits()) - 1;
  auto constant = [&](double f, int64_t i) { return isFloat ? floatImm(f, dtype) : intImm(i, dtype); };
  switch (op) {
  case NodeKind::Add: return constant(0, 0);
  case NodeKind::Mul: return constant(1, 1);
  case NodeKind::Min: return constant(largest, dtype.isUInt() ? uintMax : intMax);
  case NodeKind::Max: return constant(-largest, dtype.isUInt() ? 0 : -intMax - 1);
  default: return nullptr;
  }
}

}  // namespace

llvm::Expected<std::vector<RV>> applyRFactor(Schedule &sch, StepArgs &args) {
  llvm::Expected<LoopRV> loopRV = args.loop("loop");
  if (!loopRV) return loopRV.takeError();
  llvm::Expected<int64_t> factorAxisArg = args.integer("factor_axis");
  if (!factorAxisArg) return factorAxisArg.takeError();
  llvm::Expected<StmtPath> loopPath = sch.findLoop(*loopRV, args.at("loop"));
  if (!loopPath) return loopPath.takeError();
  SourceLoc at = args.at("loop");
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

  // The reduction: init and update stores of one buffer at the same indices.
  const auto *init = block.init ? block.init.as<BufferStore>() : nullptr;
  const auto *update = block.body.as<BufferStore>();
  if (!block.init) return fail(at, blockDesc + " is not a reduction block (it has no T.init)");
  if (!init || !update)
    return fail(at, blockDesc + ": its T.init and its body must each be a single buffer store");
  for (size_t i = 0; i < block.iterVars.size(); ++i)
    if (!isQuasiAffine(realize.iterValues[i]))
      return fail(at, blockDesc + " is not a reduction block: the binding of '" + block.iterVars[i]->var->name +
                          "' (" + printExpr(realize.iterValues[i]) + ") is not quasi-affine");
  if (!indexedByDistinctDataParIters(block, update->indices))
    return fail(at, blockDesc + " is not a reduction block: it writes '" + update->buffer->name +
                        "' at indices that are not distinct data-parallel iterators");
  if (init->buffer != update->buffer || init->indices.size() != update->indices.size() ||
      !std::equal(init->indices.begin(), init->indices.end(), update->indices.begin(),
                  [](const Expr &a, const Expr &b) { return structuralEqual(a, b); }))
    return fail(at, blockDesc + ": T.init and the update write different elements");
  StmtPath scopePath = scopeOf(blockPath);
  if (blocksAccessing(scopePath.back(), update->buffer.get(), true).size() != 1)
    return fail(at, blockDesc + " is not the only writer of '" + update->buffer->name + "' in its scope");
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
  // The reducer: the written element (lhs) combined with a value (rhs) by op.
  NodeKind op = NodeKind::Add;
  Expr lhs, rhs;
  const auto *combined = update->value.as<BinaryExpr>();
  auto isWrittenElement = [&](const Expr &e) {
    const auto *load = e.as<BufferLoad>();
    return load && load->buffer == update->buffer &&
           std::equal(load->indices.begin(), load->indices.end(), update->indices.begin(), update->indices.end(),
                      [](const Expr &a, const Expr &b) { return structuralEqual(a, b); });
  };
  Expr identity = combined ? reducerIdentity(combined->kind(), update->value->dtype) : nullptr;
  if (identity && (isWrittenElement(combined->a) || isWrittenElement(combined->b))) {
    bool lhsFirst = isWrittenElement(combined->a);
    op = combined->kind();
    lhs = lhsFirst ? combined->a : combined->b;
    rhs = lhsFirst ? combined->b : combined->a;
  }
  if (!lhs)
    return fail(at, blockDesc + ": the update " + printExpr(update->value) +
                        " is not a commutative reduction (+, *, min, max) of the written element");
  if (!structuralEqual(simplify(init->value), identity))
    return fail(at, blockDesc + ": the T.init value " + printExpr(init->value) + " is not the identity " +
                        printExpr(identity) + " of its reduction");

  size_t outermostIndex = std::find_if(blockPath.begin(), blockPath.end(),
                                      [&](const Stmt &s) { return s.get() == loops.front(); }) - blockPath.begin();
  for (size_t k = outermostIndex; k < blockPath.size(); ++k)
    if (!blockPath[k]->isa<For>() && !blockPath[k]->isa<SeqStmt>() && !blockPath[k]->isa<BlockRealize>())
      return fail(at, blockDesc + " is under a statement other than loops (not supported)");

  const Buffer &buffer = *update->buffer;
  int64_t ndim = int64_t(buffer.rank());
  int64_t factorAxis = *factorAxisArg;
  if (factorAxis < -(ndim + 1) || factorAxis > ndim)
    return fail(args.at("factor_axis"), "factor_axis " + std::to_string(factorAxis) + " is out of range [" +
                                            std::to_string(-(ndim + 1)) + ", " + std::to_string(ndim) + "] for '" +
                                            buffer.name + "' of " + std::to_string(ndim) + " dimension(s)");
  if (factorAxis < 0) factorAxis += ndim + 1;

  // The rfactor buffer and block.
  Buffer *rfCopy = copyNode(*withScope(update->buffer, buffer.scope(), buffer.name + "_rf"));
  rfCopy->shape.insert(rfCopy->shape.begin() + factorAxis, rfLoop.extent);
  rfCopy->strides.clear();
  rfCopy->elemOffset = nullptr;
  BufferRef rfBuffer(rfCopy);

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
  std::vector<Expr> rfIndices = update->indices;
  rfIndices.insert(rfIndices.begin() + factorAxis, rfIter->var);
  Expr rfValue = rfReduces ? makeBinary(op, bufferLoad(rfBuffer, rfIndices), rhs) : rhs;
  Stmt rfBody = substitute(make<BufferStore>(rfBuffer, rfValue, rfIndices), rfVarMap);
  Stmt rfInit = rfReduces ? substitute(make<BufferStore>(rfBuffer, init->value, rfIndices), rfVarMap) : nullptr;
  std::string rfName = sch.freshBlockName(loopRV->func, block.name + "_rf");
  auto rfBlock = make<Block>(rfName, rfIters, std::vector<BufferRegion>{}, std::vector<BufferRegion>{}, rfBody,
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

  // The write-back block: reduces the rfactor buffer over the loop into the original buffer.
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
  Stmt wbBody = make<BufferStore>(update->buffer, makeBinary(op, lhs, bufferLoad(rfBuffer, rfIndices)),
                                  update->indices);
  auto wbBlock = make<Block>(block.name, wbIters, std::vector<BufferRegion>{}, std::vector<BufferRegion>{},
                             substitute(wbBody, wbVarMap), substitute(block.init, wbVarMap), std::vector<BufferRef>{},
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
  sch.replace(loopRV->func, outermostPath, seq({rfNest, rebuild(blockPath[outermostIndex])}));

  // The scope block is a new node now; it allocates the rfactor buffer.
  const std::string &scopeName = scopePath.back().as<Block>()->name;
  Stmt scope = blockNamed(cast<PrimFunc>(sch.module().lookup(loopRV->func))->body, scopeName);
  Block *scopeCopy = copyNode(*scope.as<Block>());
  scopeCopy->allocBuffers.push_back(rfBuffer);
  sch.replace(loopRV->func, {scope}, Stmt(scopeCopy));
  const PrimFunc &func = *cast<PrimFunc>(sch.module().lookup(loopRV->func));
  sch.setBody(loopRV->func, reinferRegions(func.body, {rfName, block.name}, functionBuffers(func)));
  return std::vector<RV>{BlockRV{loopRV->func, rfName}};
}

}  // namespace vtac::passes::schedule

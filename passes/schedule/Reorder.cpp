// reorder(*loops): permutes loops of one chain. The given loops must lie on one path of loops,
// each between the outermost and the innermost of them the only child of its parent, with no
// block in between; they take each other's places in the order given, the loops between them
// that are not given stay where they are. A loop whose extent uses the variable of a loop moved
// inside it is an error, as is a block under them with a scan or opaque iterator or with a
// binding or predicate that is not affine in the loops (TVM's CheckPartialAffineBinding).
#include "BlockTree.h"
#include "LoopUtils.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/schedule/Primitives.h"

#include <set>

namespace vtac::passes::schedule {

using namespace ir;

llvm::Error reorder(Schedule &sch, const std::vector<Located<LoopRV>> &rvs, ir::SourceLoc stepAt) {
  if (rvs.empty()) return llvm::Error::success();

  // The deepest given loop's path holds the whole chain.
  std::vector<StmtPath> paths;
  std::set<const Var *> seen;
  for (size_t i = 0; i < rvs.size(); ++i) {
    llvm::Expected<StmtPath> path = sch.findLoop(rvs[i].value, rvs[i].at);
    if (!path) return path.takeError();
    if (!seen.insert(rvs[i].value.loopVar.get()).second)
      return diagnosticError(rvs[i].at, "reorder: the loop '" + rvs[i].value.loopVar->name + "' is given twice");
    paths.push_back(std::move(*path));
  }
  size_t deepest = 0;
  for (size_t i = 1; i < paths.size(); ++i)
    if (paths[i].size() > paths[deepest].size()) deepest = i;
  const StmtPath &chainPath = paths[deepest];
  size_t top = chainPath.size();
  for (size_t i = 0; i < paths.size(); ++i) {
    const StmtNode *loop = paths[i].back().get();
    if (paths[i].size() > chainPath.size() || chainPath[paths[i].size() - 1].get() != loop)
      return diagnosticError(rvs[i].at, "reorder: the loop '" + rvs[i].value.loopVar->name +
                                                    "' is not on the same chain of loops as '" +
                                                    rvs[deepest].value.loopVar->name + "'");
    top = std::min(top, paths[i].size() - 1);
  }
  // Between the outermost and the innermost: only loops, each the single child of the previous.
  std::vector<const For *> chain;
  for (size_t i = top; i < chainPath.size(); ++i) {
    const StmtNode *node = chainPath[i].get();
    if (node->isa<Block>() || node->isa<BlockRealize>())
      return diagnosticError(stepAt, "reorder: the block '" +
                                                 (node->isa<Block>() ? node->as<Block>()->name
                                                                     : node->as<BlockRealize>()->block->name) +
                                                 "' lies between the loops");
    const For *loop = node->as<For>();
    if (!loop) continue;  // a statement sequence: the next loop is not an only child
    if (!chain.empty() && chain.back()->body.get() != loop)
      return diagnosticError(stepAt, "reorder: the loop '" + loop->loopVar->name +
                                                 "' is not the only child of '" + chain.back()->loopVar->name + "'");
    chain.push_back(loop);
  }
  // As in TVM, the child blocks under the loops iterate only spatially or by reduction (a scan or
  // opaque iterator fixes the order of its loop), and their bindings are affine in the loops of
  // their scope or at least in the loops from the outermost reordered one down.
  std::set<const For *> outside;
  for (const For *loop : loopsInScope(StmtPath(chainPath.begin(), chainPath.begin() + top))) outside.insert(loop);
  StmtPath abovePath(chainPath.begin(), chainPath.end() - 1);
  for (StmtPath blockPath : childBlockPaths(chainPath.back())) {
    blockPath.insert(blockPath.begin(), abovePath.begin(), abovePath.end());
    const BlockRealize &realize = *blockPath.back().as<BlockRealize>();
    for (const IterVarRef &iv : realize.block->iterVars)
      if (iv->iterType != IterType::DataPar && iv->iterType != IterType::CommReduce)
        return diagnosticError(stepAt, "reorder: the block '" + realize.block->name +
                                                   "' under the loops has an iterator that is neither spatial nor a reduction");
    std::vector<const For *> loops = loopsInScope(blockPath), inRange;
    for (const For *loop : loops)
      if (!outside.count(loop)) inRange.push_back(loop);
    if (realize.block->iterVars.empty() || isAffineBinding(realize, loops)) continue;
    if (std::string why = whyNotAffineBinding(realize, inRange); !why.empty())
      return diagnosticError(stepAt, "reorder: the bindings or predicate of the block '" + realize.block->name +
                                                 "' under the loops are not affine in the loops from '" +
                                                 chain.front()->loopVar->name + "' down: " + why);
  }
  std::vector<const For *> order;
  for (const StmtPath &path : paths) order.push_back(path.back().as<For>());
  std::vector<const For *> placed;
  size_t next = 0;
  for (const For *loop : chain)
    placed.push_back(seen.count(loop->loopVar.get()) ? order[next++] : loop);

  // Rebuild inside out; an extent may only use variables of loops still outside it.
  Stmt body = chain.back()->body;
  for (size_t i = placed.size(); i-- > 0;) {
    for (size_t j = i + 1; j < placed.size(); ++j) {
      bool uses = false;
      preOrderVisit(placed[i]->extent, [&](const Node &node) { uses |= &node == placed[j]->loopVar.get(); });
      if (uses)
        return diagnosticError(stepAt, "reorder: the extent of '" + placed[i]->loopVar->name +
                                                   "' uses '" + placed[j]->loopVar->name + "', which would be inside it");
    }
    For *copy = copyNode(*placed[i]);
    copy->body = body;
    body = Stmt(copy);
  }
  StmtPath topPath(chainPath.begin(), chainPath.begin() + top + 1);
  sch.replace(rvs[0].value.func, topPath, body);
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule

// Loop kinds (TVM's for_kind.cc): the checks and the rewrite behind parallel/vectorize/unroll/bind.
#include "ForKind.h"

#include "BlockAnalysis.h"
#include "BlockTree.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

const char *describe(ForKind kind) {
  switch (kind) {
  case ForKind::Parallel: return "parallelized";
  case ForKind::Vectorized: return "vectorized";
  case ForKind::ThreadBinding: return "bound to a thread";
  default: return "changed";
  }
}

}  // namespace

llvm::Error setLoopKind(Schedule &sch, const Located<LoopRV> &rv, ForKind kind, const std::string &thread) {
  llvm::Expected<StmtPath> path = sch.findLoop(rv.value, rv.at);
  if (!path) return path.takeError();
  const For &loop = *path->back().as<For>();
  if (kind != ForKind::Unrolled) {
    // TVM's compact-dataflow check first: each block under the loop is complete or a reduction.
    for (const StmtPath &child : childBlockPaths(path->back())) {
      StmtPath blockPath = *path;
      blockPath.insert(blockPath.end(), child.begin() + 1, child.end());
      const BlockRealize &realize = *blockPath.back().as<BlockRealize>();
      std::string why = whyNotCompleteOrReduction(blockPath, &path->back());
      if (!why.empty())
        return diagnosticError(rv.at, "the loop '" + loop.loopVar->name + "' cannot be " + describe(kind) +
                                                    ": the block '" + realize.block->name +
                                                    "' under it is neither complete nor a reduction: " + why);
    }
    bool reductionAllowed = kind == ForKind::ThreadBinding && thread.rfind("threadIdx.", 0) == 0;
    std::string problem;
    preOrderVisit(loop.body, [&](const Node &node) {
      const auto *realize = node.as<BlockRealize>();
      if (!realize || !problem.empty()) return;
      for (size_t i = 0; i < realize->iterValues.size(); ++i) {
        IterType type = realize->block->iterVars[i]->iterType;
        if (!usesVar(realize->iterValues[i], loop.loopVar.get())) continue;
        if (type == IterType::DataPar || (type == IterType::CommReduce && reductionAllowed)) continue;
        problem = "it feeds the " + std::string(type == IterType::CommReduce ? "reduction" : "non-spatial") +
                  " iterator '" + realize->block->iterVars[i]->var->name + "' of block '" + realize->block->name + "'";
      }
    });
    if (!problem.empty())
      return diagnosticError(rv.at, "the loop '" + loop.loopVar->name + "' cannot be " + describe(kind) +
                                                  ": " + problem);
  }
  if (kind == ForKind::Vectorized && !asConstInt(loop.extent))
    return diagnosticError(rv.at, "the loop '" + loop.loopVar->name + "' cannot be vectorized: its extent is not constant");
  For *copy = copyNode(loop);
  copy->forKind = kind;
  copy->threadBinding = kind == ForKind::ThreadBinding
                            ? make<IterVar>(loop.loopVar, Range{loop.min, loop.extent}, IterType::ThreadIndex, thread)
                            : IterVarRef();
  sch.replace(rv.value.func, *path, Stmt(copy));
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule

// sample_compute_location(block, decision=None): where to compute the block, for a following
// compute_at (TVM's SampleComputeLocation over its CollectComputeLocation). The candidates, each
// named by its decision: -2, the inline mark, when compute_inline is legal; -1, the root mark
// (compute_at leaves the block where it is); and k, the k-th loop (from the outermost) around the
// block's first consumer, down to the innermost loop holding every consumer, where compute_at
// with preserve_unit_loops is legal. As in TVM, unit loops are skipped, and so are, for
// performance, the data-parallel loops after a reduction loop and the reduction loops below the
// last data-parallel one. With `decision=d` the candidate d is replayed; a d that is not a
// candidate becomes the nearest candidate below it (the root mark when there is none), as TVM
// replays a decision the program no longer offers. Without it, a candidate is drawn uniformly
// from the schedule's seeded random source. The recorded step holds the decision taken.
#include "BlockAnalysis.h"
#include "BlockTree.h"
#include "LoopUtils.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

struct Candidate {
  int64_t decision;
  ComputeLocation location;
};

// TVM's GetLoopIterType: how the blocks directly under the loop use its variable in their
// bindings (Other: in an opaque iterator, or in both data-parallel and reduction ones).
enum class LoopUse { DataParallel, Reduction, Other };

LoopUse loopUse(const For &loop) {
  int dataParallel = 0, reduction = 0, other = 0;
  for (const StmtPath &child : childBlockPaths(loop.body)) {
    const BlockRealize &realize = *child.back().as<BlockRealize>();
    for (size_t i = 0; i < realize.iterValues.size(); ++i) {
      IterType type = realize.block->iterVars[i]->iterType;
      int &uses = type == IterType::DataPar ? dataParallel : type == IterType::CommReduce ? reduction : other;
      preOrderVisit(realize.iterValues[i], [&](const Node &node) {
        if (node.as<Var>() == loop.loopVar.get()) ++uses;
      });
    }
  }
  if (other || (dataParallel && reduction)) return LoopUse::Other;
  return reduction ? LoopUse::Reduction : LoopUse::DataParallel;
}

// Whether compute_at(block, loop, preserve_unit_loops=True) and compute_inline(block) are legal:
// tried on a scratch copy of the schedule, as TVM's CanComputeAt / CanComputeInline run the
// primitive check-only (the error, the reason, is dropped).
bool canComputeAt(const Schedule &sch, const BlockRV &block, const For &loop, SourceLoc at) {
  Schedule scratch(sch.module());
  return !llvm::errorToBool(computeAt(scratch, {block, at}, {LoopRV{block.func, loop.loopVar}, at},
                                      /*preserveUnitLoops=*/true, {-1, at}));
}

bool canComputeInline(const Schedule &sch, const BlockRV &block, SourceLoc at) {
  Schedule scratch(sch.module());
  return !llvm::errorToBool(computeInline(scratch, {block, at}));
}

// The loops and blocks above the block at `path` (TVM's sref tree), outermost first.
std::vector<Stmt> srefAncestors(const StmtPath &path) {
  std::vector<Stmt> ancestors;
  for (size_t i = 0; i + 1 < path.size(); ++i)
    if (path[i]->isa<For>() || path[i]->isa<Block>()) ancestors.push_back(path[i]);
  return ancestors;
}

// The candidates in increasing decision order (TVM's CollectComputeLocation).
llvm::Expected<std::vector<Candidate>> computeLocations(const Schedule &sch, const BlockRV &block, SourceLoc at) {
  if (llvm::Expected<StmtPath> path = sch.findBlock(block, at); !path) return path.takeError();
  std::vector<Candidate> candidates;
  if (canComputeInline(sch, block, at)) candidates.push_back({-2, LocationMarkRV{LocationMarkRV::Kind::Inline}});
  candidates.push_back({-1, LocationMarkRV{LocationMarkRV::Kind::Root}});

  llvm::Expected<std::vector<BlockRV>> consumers = dependentBlocks(sch, block, at, /*producers=*/false);
  if (!consumers) return consumers.takeError();
  if (consumers->empty()) return candidates;
  std::vector<std::vector<Stmt>> ancestors;
  StmtPath firstConsumer;
  for (const BlockRV &consumer : *consumers) {
    llvm::Expected<StmtPath> path = sch.findBlock(consumer, at);
    if (!path) return path.takeError();
    if (firstConsumer.empty()) firstConsumer = *path;
    ancestors.push_back(srefAncestors(*path));
  }
  // The innermost loop holding every consumer bounds the candidates.
  size_t common = ancestors[0].size();
  for (const std::vector<Stmt> &chain : ancestors) {
    size_t shared = 0;
    while (shared < common && shared < chain.size() && chain[shared] == ancestors[0][shared]) ++shared;
    common = shared;
  }
  if (common == 0 || !ancestors[0][common - 1]->isa<For>()) return candidates;
  std::vector<const For *> loops = loopsInScope(firstConsumer);
  auto boundary = std::find(loops.begin(), loops.end(), ancestors[0][common - 1].as<For>());
  if (boundary == loops.end()) return candidates;
  size_t count = size_t(boundary - loops.begin()) + 1;

  std::vector<LoopUse> uses;
  int lastDataParallel = -1;
  for (size_t i = 0; i < count; ++i) {
    uses.push_back(loopUse(*loops[i]));
    if (uses[i] == LoopUse::DataParallel) lastDataParallel = int(i);
  }
  bool afterReduction = false;
  for (size_t i = 0; i < count; ++i) {
    if (std::optional<int64_t> extent = asConstInt(loops[i]->extent); extent && *extent == 1) continue;
    if (uses[i] == LoopUse::DataParallel) {
      if (afterReduction) break;
    } else {
      afterReduction = true;
      if (int(i) > lastDataParallel) break;
    }
    if (canComputeAt(sch, block, *loops[i], at)) candidates.push_back({int64_t(i), LoopRV{block.func, loops[i]->loopVar}});
  }
  return candidates;
}

}  // namespace

llvm::Expected<ComputeLocation> sampleComputeLocation(Schedule &sch, const Located<BlockRV> &block,
                                                      Located<std::optional<int64_t>> &decision) {
  llvm::Expected<std::vector<Candidate>> candidates = computeLocations(sch, block.value, block.at);
  if (!candidates) return candidates.takeError();

  const Candidate *chosen = nullptr;
  if (!decision.value) {
    std::uniform_int_distribution<size_t> pick(0, candidates->size() - 1);
    chosen = &(*candidates)[pick(sch.random())];
  } else {
    for (const Candidate &candidate : *candidates)
      if (candidate.decision <= *decision.value) chosen = &candidate;
    if (!chosen)
      chosen = &*std::find_if(candidates->begin(), candidates->end(), [](const Candidate &c) { return c.decision == -1; });
  }
  decision.value = chosen->decision;
  return chosen->location;
}

}  // namespace vtac::passes::schedule

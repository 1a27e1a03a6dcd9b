// The region cover check of TVM's stage-pipeline property (StagePipeline.h).
#include "StagePipeline.h"

#include "BlockUtils.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Substitute.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// The region the block at `path` accesses over all its loops in the scope, per dimension.
std::vector<Interval> regionOverScope(const StmtPath &path, const BufferRegion &region) {
  const BlockRealize &realize = *path.back().as<BlockRealize>();
  VarMap bindings;
  for (size_t i = 0; i < realize.iterValues.size(); ++i) bindings[realize.block->iterVars[i]->var.get()] = realize.iterValues[i];
  std::map<const Var *, Range> loops;
  for (const Stmt &stmt : path)
    if (const auto *loop = stmt.as<For>()) loops[loop->loopVar.get()] = Range{loop->min, loop->extent};
  std::vector<Interval> intervals;
  for (const Range &range : region.region)
    intervals.push_back(relaxRange(Range{substitute(range.min, bindings), substitute(range.extent, bindings)}, loops));
  return intervals;
}

// Whether `produced` provably misses part of `consumed` (unknown bounds: no).
bool provablyUncovered(const Interval &produced, const Interval &consumed) {
  if (!produced.extent || !consumed.extent) return false;
  std::optional<int64_t> offset = asConstInt(simplify(subExpr(consumed.min, produced.min)));
  return offset && (*offset < 0 || *offset + *consumed.extent > *produced.extent);
}

}  // namespace

std::string whyNotStagePipeline(const Block &scope) {
  std::vector<StmtPath> children = childBlockPaths(scope.body);
  for (size_t j = 0; j < children.size(); ++j) {
    const Block &consumer = *children[j].back().as<BlockRealize>()->block;
    for (const BufferRegion &read : consumer.reads) {
      std::vector<Interval> produced;
      for (size_t i = 0; i < j; ++i)
        for (const BufferRegion &write : children[i].back().as<BlockRealize>()->block->writes) {
          if (write.buffer != read.buffer) continue;
          std::vector<Interval> region = regionOverScope(children[i], write);
          if (produced.empty()) produced = region;
          else
            for (size_t d = 0; d < region.size(); ++d) produced[d] = uniteIntervals(produced[d], region[d]);
        }
      if (produced.empty()) continue;
      std::vector<Interval> consumed = regionOverScope(children[j], read);
      for (size_t d = 0; d < consumed.size(); ++d)
        if (provablyUncovered(produced[d], consumed[d]))
          return "the block '" + consumer.name + "' reads a part of '" + read.buffer->name +
                 "' that the blocks before it in the scope do not write (its scope is not a stage pipeline)";
    }
  }
  return "";
}

}  // namespace vtac::passes::schedule

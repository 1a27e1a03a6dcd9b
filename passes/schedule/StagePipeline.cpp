// TVM's stage-pipeline property of a scope (StagePipeline.h): write-after-read dependencies and
// the region cover of each consumer, per lowest common ancestor with its producers.
#include "StagePipeline.h"

#include "BlockUtils.h"
#include "BufferUtils.h"

#include <algorithm>
#include <map>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Substitute.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

const Block &blockAt(const StmtPath &path) { return *path.back().as<BlockRealize>()->block; }

// The region the block at `path` accesses while the loops of its path below position `depth`
// run over their ranges (the loops at or above it stay symbolic), per dimension.
std::vector<Interval> regionBelow(const StmtPath &path, size_t depth, const BufferRegion &region) {
  const BlockRealize &realize = *path.back().as<BlockRealize>();
  VarMap bindings;
  for (size_t i = 0; i < realize.iterValues.size(); ++i) bindings[realize.block->iterVars[i]->var.get()] = realize.iterValues[i];
  std::map<const Var *, Range> loops;
  for (size_t k = depth + 1; k < path.size(); ++k)
    if (const auto *loop = path[k].as<For>()) loops[loop->loopVar.get()] = Range{loop->min, loop->extent};
  std::vector<Interval> intervals;
  for (const Range &range : region.region)
    intervals.push_back(relaxRange(Range{substitute(range.min, bindings), substitute(range.extent, bindings)}, loops));
  return intervals;
}

// Position in both paths of their lowest common ancestor.
size_t commonAncestorDepth(const StmtPath &a, const StmtPath &b) {
  size_t depth = 0;
  while (depth + 1 < a.size() && depth + 1 < b.size() && a[depth + 1] == b[depth + 1]) ++depth;
  return depth;
}

// Whether the intervals `produced` provably miss part of `consumed` in a dimension of `size`
// elements. Only constant offsets between the bounds are compared (anything else: no), and as
// in TVM only what lies inside the buffer counts: all are clipped to [0, size) where the bounds
// are constants. The produced intervals are united as a lower bound (TVM's
// UnionRegionLowerBound): a gap between two producers stays a gap.
bool provablyUncovered(const std::vector<Interval> &produced, const Interval &consumed, const Expr &size) {
  const Expr &base = produced.front().min;  // positions below are relative to it
  auto relative = [&](const Interval &interval) -> std::optional<std::pair<int64_t, int64_t>> {
    std::optional<int64_t> offset = asConstInt(simplify(subExpr(interval.min, base)));
    if (!offset || !interval.extent) return std::nullopt;
    return std::pair{*offset, *offset + *interval.extent};
  };
  std::optional<int64_t> absoluteBase = asConstInt(simplify(base)), extent = asConstInt(size);
  auto clip = [&](std::pair<int64_t, int64_t> range) {
    if (absoluteBase && extent)
      range = {std::max(range.first, -*absoluteBase), std::min(range.second, *extent - *absoluteBase)};
    return range;
  };
  std::optional<std::pair<int64_t, int64_t>> wanted = relative(consumed);
  if (!wanted) return false;
  auto [begin, end] = clip(*wanted);
  std::vector<std::pair<int64_t, int64_t>> pieces;
  for (const Interval &interval : produced) {
    std::optional<std::pair<int64_t, int64_t>> piece = relative(interval);
    if (!piece) return false;
    pieces.push_back(clip(*piece));
  }
  std::sort(pieces.begin(), pieces.end());
  for (const auto &[pieceBegin, pieceEnd] : pieces)
    if (pieceBegin <= begin) begin = std::max(begin, pieceEnd);
  return begin < end;
}

// Why the consumer at children[j] reads a region of `read`'s buffer that its producers (the
// earlier children writing it) do not cover, or an empty string.
std::string whyNotCovered(const std::vector<StmtPath> &children, size_t j, const BufferRegion &read) {
  // Per common ancestor depth, per dimension: the intervals the producers there write.
  std::map<size_t, std::vector<std::vector<Interval>>> producedUnder;
  for (size_t i = 0; i < j; ++i)
    for (const BufferRegion &write : blockAt(children[i]).writes) {
      if (write.buffer != read.buffer) continue;
      size_t depth = commonAncestorDepth(children[i], children[j]);
      std::vector<Interval> region = regionBelow(children[i], depth, write);
      std::vector<std::vector<Interval>> &produced = producedUnder[depth];
      produced.resize(region.size());
      for (size_t d = 0; d < region.size(); ++d) produced[d].push_back(region[d]);
    }
  for (const auto &[depth, produced] : producedUnder) {
    std::vector<Interval> consumed = regionBelow(children[j], depth, read);
    for (size_t d = 0; d < consumed.size(); ++d) {
      if (!provablyUncovered(produced[d], consumed[d], read.buffer->shape[d])) continue;
      const For *loop = nullptr;  // the innermost loop around both, if any
      for (size_t k = 0; k <= depth; ++k)
        if (const auto *outer = children[j][k].as<For>()) loop = outer;
      return "the block '" + blockAt(children[j]).name + "' reads a part of '" + read.buffer->name +
             "' that the blocks before it " +
             (loop ? "do not write in the same iteration of the loop '" + loop->loopVar->name + "'"
                   : std::string("in the scope do not write")) +
             " (its scope is not a stage pipeline)";
    }
  }
  return "";
}

}  // namespace

std::string whyNotStagePipeline(const Block &scope) {
  std::vector<StmtPath> children = childBlockPaths(scope.body);
  for (size_t j = 0; j < children.size(); ++j) {
    const Block &block = blockAt(children[j]);
    for (const BufferRegion &write : block.writes)
      for (size_t i = 0; i < j; ++i)
        if (accessesBuffer(blockAt(children[i]), write.buffer.get(), /*writes=*/false))
          return "the block '" + block.name + "' writes '" + write.buffer->name + "', which the block '" +
                 blockAt(children[i]).name +
                 "' before it reads (a write-after-read dependency: its scope is not a stage pipeline)";
    for (const BufferRegion &read : block.reads)
      if (std::string why = whyNotCovered(children, j, read); !why.empty()) return why;
  }
  return "";
}

}  // namespace vtac::passes::schedule

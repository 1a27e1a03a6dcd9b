// TVM's stage-pipeline property of a scope block, which compute_at, reverse_compute_at,
// compute_inline, reverse_compute_inline and rfactor require of the scope they work in.
#pragma once

#include <string>

#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// Why the scope is not a stage pipeline, or an empty string when no reason is found (TVM's
// BlockInfoCollector::CheckRegionCoverAndStagePipeline):
// - a write-after-read dependency: a child block writes a buffer that an earlier child block
//   reads;
// - no region cover: a child block reads a region of a buffer that the earlier child blocks
//   writing it do not provably cover. As in TVM, producers are grouped by their lowest common
//   ancestor with the consumer (the scope, or a loop both are under) and compared with the
//   consumer per group: both regions relaxed over the loops below that ancestor (and, for a
//   buffer threads share, over the thread loops whose threads share it), so a consumer that
//   reads, in one iteration of a common loop, what another iteration produces is not covered.
//   What a producer writes is bounded from below as TVM's EstimateRegionLowerBound does: its
//   indices must be independent digits (`i`, `k // 8`, `k % 8`, `f // n` of a loop over
//   n * 32) of the relaxed loops, fusing per dimension into one iterator whose steps the
//   region's extent spans, with T.where conjuncts bounding such an iterator (or loops no index
//   uses); otherwise, for a strided write for instance, it counts as writing nothing. The
//   consumer's read is bounded from above (that form, or interval relaxation). Clipped to the
//   buffer, the produced bounds must provably (arith::Analyzer, knowing the scope's loops)
//   enclose the consumed ones.
//   Not ported: the loops above the scope are unknown to the analyzer; TVM's full
//   DetectIterMap (padded or non-divisible digits, predicates over scaled fused iterators, a
//   consumer's per-dimension maps under its predicate) is not: such producers count as writing
//   nothing, such consumers are relaxed without their predicate.
// TVM's opaque dependency kind has no source there (its block scope never creates one), so there
// is nothing to port for it.
std::string whyNotStagePipeline(const ir::Block &scope);

}  // namespace vtac::passes::schedule

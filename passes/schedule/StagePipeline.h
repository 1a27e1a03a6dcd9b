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
//   writing it do not cover. As in TVM, producers are grouped by their lowest common ancestor
//   with the consumer (the scope, or a loop both are under) and compared with the consumer per
//   group: both regions relaxed over the loops below that ancestor only, so a consumer that
//   reads, in one iteration of a common loop, what another iteration produces is not covered.
//   TVM rejects what it cannot prove covered; here a region is rejected only when its bounds
//   differ from the produced ones by constants that show a gap (other index forms pass).
// TVM's opaque dependency kind has no source there (its block scope never creates one), so there
// is nothing to port for it.
std::string whyNotStagePipeline(const ir::Block &scope);

}  // namespace vtac::passes::schedule

// compute_inline as a function, for the steps that inline a block without a compute_inline step
// of their own (compute_at at sample_compute_location's inline mark, and that sampler's check).
#pragma once

#include "Primitive.h"

namespace vtac::passes::schedule {

// Inlines the block (see ComputeInline.cpp); an error at `at`, changing nothing, when it cannot.
llvm::Error computeInline(Schedule &sch, const BlockRV &block, ir::SourceLoc at);

}  // namespace vtac::passes::schedule

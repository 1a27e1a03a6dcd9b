// What parallel, vectorize, unroll and bind share: changing a loop's kind after TVM's checks.
#pragma once

#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

// Sets the loop's kind (a thread binding to `thread` for ForKind::ThreadBinding). Parallel,
// vectorized and thread-bound loops must only feed data-parallel block iterators (reduction
// iterators may be bound to threadIdx.*, TVM's cross-thread reduction).
llvm::Error setLoopKind(Schedule &sch, const Located<LoopRV> &rv, ir::ForKind kind, const std::string &thread = "");

}  // namespace vtac::passes::schedule

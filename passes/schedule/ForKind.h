// What parallel, vectorize, unroll and bind share: changing a loop's kind after TVM's checks.
#pragma once

#include "Primitive.h"

namespace vtac::passes::schedule {

// Sets the kind of the loop argument "loop" (a thread binding to `thread` for ForKind::ThreadBinding).
// Parallel, vectorized and thread-bound loops must only feed data-parallel block iterators
// (reduction iterators may be bound to threadIdx.*, TVM's cross-thread reduction).
llvm::Expected<std::vector<RV>> setLoopKind(Schedule &sch, StepArgs &args, ir::ForKind kind,
                                            const std::string &thread = "");

}  // namespace vtac::passes::schedule

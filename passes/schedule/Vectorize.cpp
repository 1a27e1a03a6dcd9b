// vectorize(loop): the loop becomes T.vectorized(...). See ForKind.h for the checks.
#include "ForKind.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyVectorize(Schedule &sch, StepArgs &args) {
  return setLoopKind(sch, args, ir::ForKind::Vectorized);
}

}  // namespace vtac::passes::schedule

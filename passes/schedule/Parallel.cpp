// parallel(loop): the loop becomes T.parallel(...). See ForKind.h for the checks.
#include "ForKind.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyParallel(Schedule &sch, StepArgs &args) {
  return setLoopKind(sch, args, ir::ForKind::Parallel);
}

}  // namespace vtac::passes::schedule

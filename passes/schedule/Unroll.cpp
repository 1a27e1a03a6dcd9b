// unroll(loop): the loop becomes T.unroll(...). See ForKind.h for the checks.
#include "ForKind.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyUnroll(Schedule &sch, StepArgs &args) {
  return setLoopKind(sch, args, ir::ForKind::Unrolled);
}

}  // namespace vtac::passes::schedule

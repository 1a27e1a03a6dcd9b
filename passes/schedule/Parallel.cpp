// parallel(loop): the loop becomes T.parallel(...). See ForKind.h for the checks.
#include "ForKind.h"

namespace vtac::passes::schedule {

llvm::Error parallel(Schedule &sch, const Located<LoopRV> &loop) {
  return setLoopKind(sch, loop, ir::ForKind::Parallel);
}

}  // namespace vtac::passes::schedule
